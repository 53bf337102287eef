// Package logread reads a JetStream stream in sequence order with batched
// direct gets ($JS.API.DIRECT.GET.<stream>, nats-server 2.11+): no consumer
// exists on the server for the read, so the only permission a reader needs
// is that one subject, and a role that may read the log can neither take
// nor acknowledge another process's deliveries (invariant 10).
//
// A read asks for up to BatchMax messages at a time, from a sequence, and
// optionally only those on a subject filter (wildcards allowed; the server
// skips the others); the server answers with the messages, in order, then
// an end-of-batch marker that says how many more match. Deleted sequences
// are skipped. With Follow, a read that has caught up polls for more with a
// backoff up to PollMax until its context ends; otherwise it returns once
// nothing more matches, or at UpTo.
//
// Read is safe to call from several goroutines at once (each call has its
// own inbox).
package logread
