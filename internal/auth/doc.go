// Package auth is Toolstream's NATS identity: the security material of one
// installation in the standard NATS decentralized model (an operator, the
// system account, the log's account, users as signed JWTs in .creds
// files), and the roles whose permissions say what each identity may
// publish and read.
//
// The material lives in one directory (by default <data>/auth), created on
// first use by Ensure: every file is readable by its owner only (0600, the
// directory 0700). The operator's and accounts' seeds never leave it; a
// user is a JWT signed by the log's account plus the user's own seed, and
// nothing about users is stored on the server, so Creds can issue one for
// any role and tenant without touching a running server.
//
// An embedded nats-server trusts the operator (ServerTrust, which
// bus.ConfigureServer sets); an external server or cluster is given the
// same trust with ServerConfig, a fragment to include in its
// configuration. The package links no server (a client takes its
// identities from here). A server configured either way
// refuses anonymous clients.
//
// Roles (roles.go) are data: the subjects each role may publish and
// subscribe to, derived from the log's subject scheme (package events) and
// the names of the processors' durable consumers. Every role but admin
// receives replies on an inbox prefix of its own (InboxPrefix), so no role
// can read another identity's replies. Only the admin role may create,
// update, purge, delete, snapshot or restore the log and the buckets.
//
// The data keys (bucket ts_keys) have one writer: the keys role
// (RoleKeyring), which runs the keys service (package keys). Every other
// role is denied the bucket's subjects and every JetStream API verb on its
// stream (a deny that wins over reading the whole account), so no role but
// keys and admin can write, delete, roll up or read a key, by subject or
// by a wildcard direct get. They ask the service instead, authorised by
// the subject they may publish: a producer tsv.keys.user.<its tenant>
// only, processors tsv.keys.seal|open.*, the reader tsv.keys.open.*, the
// operator tsv.keys.erase.* besides.
//
// Invariants kept here (numbers from docs/design.md): 7, tenants never meet (a
// producer publishes only its tenant's raw events and reads only its
// tenant's outcomes, and asks only for its tenant's users' keys); 10, only
// the operator decides what runs (no anonymous client, every identity
// limited to what its role needs, one writer of the data keys).
//
// Material is immutable after Ensure or Load and safe for concurrent use.
package auth
