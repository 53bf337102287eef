// Package keys is the data-key store that makes erasure reach the log
// (docs/design.md, invariant 8 and "Erasure"). Personal data is
// written to the log sealed (events.EncodeSealed) with the key of its scope
// — one key per (tenant, user), one per memory record — and this package
// keeps those keys in a JetStream key-value bucket, ts_keys, replicated like
// the log. Erasing a user or a record deletes its keys with JetStream's
// erasing delete, which overwrites the stored bytes: from then on the
// events they sealed read as events.ErrErased everywhere, in the live log,
// in every copy of it (mirrors, snapshots, backups of the streams) and in
// every replay.
//
// A Store is an events.Keyring with a cache: a key read from the bucket is
// used for Config.CacheTTL before it is asked for again, so an erasure made
// by another process takes effect here within it, or at once after Forget.
// A key is made on first use by compare-and-set, so two processes sealing
// for a new user at the same moment agree on one key. Losing the bucket
// loses every sealed event of the log: back it up (Backup) and keep the
// backup as safe as the keys themselves; a restored backup brings back the
// keys of erasures made after it, so erasures must be made again after a
// restore (the log's Erased tombstones list them).
//
// One writer (docs/design.md invariant 10). The bucket is written only by the
// keys service (Service, on ServicePrefix), run under an identity of its
// own role (auth.RoleKeyring) that alone, with the admin, may publish to
// the bucket, delete its messages or read it. Every other identity's store
// is Remote: it asks the service, which is authorised by subject
// (tsv.keys.<verb>.<tenant>; a producer may ask only VerbUser on its own
// tenant's subject, processors VerbSeal and VerbOpen of any tenant, the
// reader VerbOpen, the operator VerbErase too) and validates every token
// it is asked for, so a literal '*' or '>' is refused (ErrRefused), never
// matched. A key is made by compare-and-set and never overwritten.
//
// A bad key is that user's outcome, never a crash. A stored value that is
// not a key (the wrong length) is ErrBadKey, which wraps events.ErrBadKey
// (bad input): a projection reading that user's events records them as
// rejected (events.ReasonBadKey), one writing for that user writes the
// event with its body withheld (events.EncodeWithheld), a producer sealing
// at the edge gets the error; other users and tenants go on. The service
// never replaces it; erasing the user removes it.
//
// What this package cannot reach: on a cluster, the servers' replication
// logs (Raft) hold a key until they are compacted; the operating system's
// free blocks hold what any deleted file held. Both are outside the files
// Toolstream keeps.
//
// Safe for concurrent use.
package keys
