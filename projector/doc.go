// Package projector is the machinery every Toolstream projection runs on: a
// durable pull consumer with batched fetch, a deterministic Apply contract,
// Pebble state + checkpoint + outbox committed in one batch, a relay that
// publishes the outbox, replay from sequence 1 into a fresh view, and a
// canonical digest of a view.
//
// How a batch goes (the order is the correctness argument):
//
//  1. Messages are taken from the consumer, up to Config.BatchMax at a time.
//  2. Each message at or below the stored checkpoint is skipped: redelivery
//     is a no-op (invariant 3).
//  3. Apply runs against a Tx: reads see the batch's earlier writes, writes go
//     to a per-message overlay. On success the overlay joins the batch; on a
//     bad-input error (errors.Is(err, events.ErrBadInput)) it is dropped and
//     the message is recorded as rejected with its sequence and reason
//     (invariant 9): it is acknowledged and never redelivered. Any other
//     error stops the runner: that is an impossible state, not bad input.
//     A panic of Apply's (or of Reject's, or of a Flush's that the
//     message left) is a fault of the projection's on that message,
//     rejected as bad input too, with the view (and, for a Resetter, its
//     memory, by applying the batch again without it) as it was before
//     the message: fault.go.
//  4. State changes, the new checkpoint and the outbox rows of every message
//     are committed in ONE Pebble batch (invariants 3 and 4). A projection
//     that keeps what the batch changed in memory (Flusher) writes it just
//     before, once.
//  5. Only then is the last message acknowledged (AckAll).
//  6. The relay publishes outbox rows with Nats-Msg-Id = the event's
//     deterministic id and deletes a row only after JetStream acknowledged
//     it; a crash between publish and delete republishes, and JetStream's
//     duplicate window drops the repeat.
//
// The Pebble checkpoint, not the consumer's ack floor, is the truth about
// what was applied: on start the durable consumer is recreated to deliver
// from checkpoint+1. So a crash after the commit but before the ack loses
// nothing and applies nothing twice, and a Pebble write that never reached
// the disk (Pebble commits without fsync unless Config.Sync) is simply
// applied again from the log, with the same outbox ids.
//
// Determinism (invariant 6): Apply gets the message's stream sequence and
// stream timestamp; a projection must take time only from events and never
// let map order decide what it writes or emits. Digest hashes the state and
// rejection rows in key order, so a view rebuilt by Replay from sequence 1
// has the live view's digest.
//
// Modes (Config.Mode): ModeLive reads through a durable consumer and relays
// the outbox; ModeHold keeps emitted events in the outbox (tests);
// ModeReplay reads by direct gets (nothing is created on the server) and
// drops emitted events, which the live view already emitted. Replay
// rebuilds a view from sequence 1 in ModeReplay; a Replayer takes a replay
// to a sequence, reports its progress through a callback, and resumes from
// its checkpoint, in a later process too, a directory only a Replayer of
// the same projection made (a marker row under "m/"; ErrNotReplay for
// anything else: a live view resumed as a replay would lose its outbox; and
// a live or held runner refuses a replay's directory, whose emits were
// dropped).
//
// Keys: a projection's keys live under "s/", rejections under "r/", the
// outbox under "o/" and metadata under "m/". TenantKey builds state keys that
// start with the tenant and refuses an empty one (invariant 7); it escapes
// its parts, so two different lists of parts never share a key (ids may
// hold any byte).
//
// Concurrency: a Runner's Run must be called once; Digest, Checkpoint, View
// and WaitFor are safe to call concurrently with it.
package projector
