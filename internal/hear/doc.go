// Package hear wakes a waiter on the log when a subject carries a
// message, and again shortly after: a core subscriber can be handed a
// message before the stream behind its subject has stored it, so the read
// a wake-up asks for must be able to come again after the store.
//
// Invariants: the subscription is in place on the server before Subject
// returns (it flushes), so a message published after the caller's first
// read is heard; every message is followed by rechecks that end within
// RecheckLast of the last one's, so a quiet subject costs nothing; Close
// stops them.
package hear
