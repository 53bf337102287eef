// Package bus opens Toolstream's event log: an embedded nats-server with
// JetStream file storage in a data directory (the default, nothing else to
// install), or a connection to an external server or cluster. It creates or
// updates the log's stream idempotently.
//
// The log is one stream, TOOLSTREAM, over the subjects "ts.>" (the scheme is
// in package events). One stream gives every projection one sequence space,
// so a projection that reads several kinds of event (the verifier reads
// answers and results) replays them in exactly the order it saw them live
// (invariant 6).
//
// Limits, documented here because operators meet them:
//   - Duplicate window (Nats-Msg-Id): StreamConfig.DuplicateWindow, default
//     10 minutes. An outbox relay that retries within it is deduplicated by
//     the server (invariant 4); downstream projections also key their state by
//     event identity, so a repeat after the window is still a no-op there.
//   - Retention: limits, by default unlimited in age and size (the log is the
//     source of truth and replay starts at sequence 1); set MaxAge/MaxBytes to
//     bound it, knowing that replay then starts at the first retained event.
//   - Message size: the server's max_payload, 8 MiB here (Toolstream's own
//     argument limit, 1 MiB by default, is enforced by the assembler).
//
// Durability: JetStream acknowledges a publish once the message is written to
// the stream's file; with Sync "" the server flushes to disk every 2 minutes
// (its default), "always" flushes every write, a duration sets the interval.
// A process crash loses nothing acknowledged; a power failure can lose the
// unflushed interval.
//
// Cluster mode: NATSURL lists several servers, comma-separated; the
// connection fails over between them and reconnects forever. A new stream
// gets 3 replicas on a clustered server (its INFO names a cluster) and 1 on
// a standalone or embedded one, unless Config.Replicas says otherwise; an
// existing stream keeps its replicas. JetStream's own placement, not the
// client's URL list, decides whether 3 servers are there: Open retries while
// the cluster forms and never falls back to fewer replicas (stream.go).
// Open writes the stream only when a field it manages differs, so users
// whose permissions only let them read the stream open the bus too.
// Executors give their bucket Bus.Replicas. With R3 a write is acknowledged
// once two of the three servers stored it, so losing it takes a power
// failure of two servers within the sync interval. Asynchronous publishes
// time out after Config.PublishTimeout: an acknowledgement lost with a dying
// stream leader is retried under the same Nats-Msg-Id, not waited for.
//
// Partitions: Config.Partitions maps model subjects to partitions
// (partition.go).
//
// A Bus is safe for concurrent use.
package bus
