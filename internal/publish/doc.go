// Package publish is the one way Toolstream publishes a run of messages
// to the log in their order: Ordered for a producer that adds messages
// one at a time (the client's Writer, the gateway's kept frames), and
// Batch, Each and InOrder for a round of messages at once (the
// projector's relay on a replicated stream).
//
// Order is the point (the assembler needs a stream's deltas in order,
// and a relay's outbox is published in outbox order): a pipelined publish that fails and is sent again after later ones were
// stored would store the run out of order. So Ordered never lets nats.go
// retry a publish, and on a replicated stream, where leaders change, it
// publishes atomic batches, each only after the previous one was
// acknowledged, retried under the same message ids while the stream has
// no leader. Message ids are the caller's (events.MsgID): a message
// published again within the stream's duplicate window is acknowledged as
// a duplicate and stored once; Ordered.Duplicate decides whether such an
// acknowledgement is this publisher's own message.
//
// It depends on nats.go's jetstream only, so a producer that links it
// links no server and no storage.
//
// An Ordered is one producer's and is not safe for concurrent use; the
// functions are.
package publish
