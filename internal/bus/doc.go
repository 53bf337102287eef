// Package bus opens Toolstream's event log: an embedded nats-server with
// JetStream file storage in a data directory (the default, nothing else to
// install), or a connection to an external server or cluster. It creates or
// updates the log's streams idempotently.
//
// The log is one stream per family of subjects (events.Streams): TS_IN
// (raw provider events, kept Config.RawRetention), TS_MODEL, TS_CALLS,
// TS_OUT and TS_MEM. A projection reads exactly one of them, unfiltered,
// and replays it in the order it was stored (invariant 6); why the log is
// split this way is in docs/design.md, "The stream layout". A server that
// holds a log of the earlier single-stream layout is refused (ErrOldLayout).
//
// Limits, documented here because operators meet them:
//   - Duplicate window (Nats-Msg-Id): Config.DuplicateWindow, default 10
//     minutes, per stream. An outbox relay that retries within it is
//     deduplicated by the server (invariant 4); downstream projections also
//     key their state by event identity, so a repeat after the window is
//     still a no-op there.
//   - Retention: limits; TS_IN keeps raw events for RawRetention (24h by
//     default: they are plaintext, and ingest reads them within seconds);
//     the other streams keep everything (replay starts at sequence 1).
//   - Message size: the server's max_payload, 8 MiB here (Toolstream's own
//     argument limit, 1 MiB by default, is enforced by the assembler).
//
// Durability: JetStream acknowledges a publish once the message is written to
// the stream's file; with Sync "" the server flushes to disk every 2 minutes
// (its default), "always" flushes every write, a duration sets the interval.
// A process crash loses nothing acknowledged; a power failure can lose the
// unflushed interval.
//
// Authentication: the embedded server trusts only the operator of its
// security material (package auth) and refuses anonymous clients; it listens
// on a non-loopback address only with TLS or AllowPlaintext. Its own
// connection is in-process. Readers read with Read and ReadAcross (batched
// direct gets, package logread), never a consumer.
//
// Cluster mode: NATSURL lists several servers, comma-separated; the
// connection fails over between them and reconnects forever. A new stream
// gets 3 replicas on a clustered server (its INFO names a cluster) and 1 on
// a standalone or embedded one, unless Config.Replicas says otherwise; an
// existing stream keeps its replicas. JetStream's own placement, not the
// client's URL list, decides whether 3 servers are there: Open retries while
// the cluster forms and never falls back to fewer replicas (stream.go).
// Open writes a stream only when a field it manages differs, so users whose
// permissions only let them read the streams open the bus too (ConnectOnly
// skips the streams altogether, for producers). Executors give their bucket
// Bus.Replicas. With R3 a write is acknowledged once two of the three
// servers stored it. Asynchronous publishes time out after
// Config.PublishTimeout: an acknowledgement lost with a dying stream leader
// is retried under the same Nats-Msg-Id, not waited for.
//
// Partitions: Config.Partitions maps model subjects (TS_MODEL) to
// partitions (partition.go).
//
// A Bus is safe for concurrent use.
package bus
