// Package assembler turns a model's streaming output into tool calls that
// are safe to execute. It holds two projections over the log:
//
//   - Ingest reads raw provider events (ts.in.<tenant>.<format>.<stream>),
//     normalises them with package ingest, and emits canonical model events
//     (ts.model.…) through the outbox.
//   - Assembler reads canonical model events, keeps one buffer per call
//     identity, and emits CallCompleted, CallRejected or CallIncomplete per
//     call and one ResponseOutcome per response.
//
// Invariants (docs/design.md, which lists the tests of each):
//
//  1. Never an incomplete call. A call completes only on its protocol's
//     completion signal, which the adapters translate into ArgumentsDone or
//     OutputItemDone; nothing here counts braces. A call still open when its
//     response ends, is truncated, fails, is cancelled, or goes silent past
//     Config.IdleTimeout (measured by the log's clock ticks, event time) becomes
//     CallIncomplete with its partial bytes kept for audit. A call decided once
//     is never decided again: a late done after truncation changes nothing.
//     CallCompleted also requires that the arguments parse as exactly one JSON
//     object, fit Config.ArgsBytesMax, and pass the tool registry in effect at
//     that point of the log (tool exists, tenant may call it, schema).
//  2. One buffer per call identity (tenant, response, item). call_id is kept
//     to correlate the result; the provider's index is kept but never used as
//     identity.
//     Order (what invariants 1 and 6 rest on). Ingest applies a stream's numbered raw events (Ts-Seq) in
//     position order whatever order the log holds them in: an event after a
//     missing position is held in the view until the position arrives, or
//     until IngestConfig.GapWait (ticks) or HoldMax declares it lost, which
//     aborts the stream's open calls. The relays of both projections keep
//     their outbox order in the log (projector package).
//  9. Bad input (undecodable events, events without identities) is rejected by
//     the projector with its reason; invalid arguments become CallRejected
//     with a typed reason; processing of everything else goes on.
//
// Memory: an open call's bytes live in Pebble in one row per call, each
// delta appended as a record (projector.Tx.Append: a batch's deltas of one
// call are one merge; linear, no re-copy of the buffer per delta), deleted
// when the call is decided. The live preview parser keeps at most the
// currently open top-level value, so an open call holds at most about twice
// its argument bytes. See preview.go.
//
// Determinism (6): time comes from events (ticks for deadlines); the tool
// registry comes from RegistryChanged events in the log, so replay validates
// against the registry that was in effect, not today's file.
//
// Only the operator decides what runs (10): Config.AcceptRegistry (in
// practice registry.Accepter with the keys the process trusts) decides each
// RegistryChanged against the registry in force. A change that is unsigned,
// signed by a key not trusted, badly signed, stale (issued no later than
// the registry in force: an old change published again), too large or not
// canonical JSON is rejected like any bad input (9): the projector records
// it with its typed reason (registry_unsigned, registry_stale, …) and the
// registry in force stays. The view keeps the accepted change's event, so a
// restart decides the next change against the same issue time.
//
// A projection instance is used by one Runner goroutine.
package assembler
