// Package client is Toolstream for Go programs: one connection, as one
// identity, to the log and its services, with context-first methods,
// functional options and errors to branch on.
//
// Connect takes the options the toolstream commands take (WithURL for
// --nats-url, WithCredsFile for --creds, WithUserPassword for --nats-user
// and --nats-password, WithTLSCA for --tls-ca); the commands themselves
// are built on it.
//
//   - Producing (Writer, Publish): a provider's streaming events, one by
//     one as an SSE proxy sees them or a whole reader, in any supported
//     format, normalised here into canonical model events and sealed under
//     the user's data key before they are published (docs/design.md invariant
//     8: personal data reaches the log only sealed), or published raw for
//     the server's ingest to normalise. Writing a stream twice stores it
//     once (message ids derive from the stream and the event's position).
//   - Consuming (Calls, Results, Verdicts): a tenant's calls as the
//     assembler decided them, their results and the verifier's verdicts,
//     as typed values of an iter.Seq2, in log order, resuming After a
//     stream sequence, following the log as it grows (Follow), or live
//     for an identity that may not read the log (Live). A read is the
//     tenant's one subject filter on the one stream that holds it, read by
//     direct gets (package logread): no consumer is made on the server, so
//     nothing is acknowledged and a reader can take no one else's
//     deliveries; the position is the caller's (Meta.Seq). An event that
//     does not decode is a *MalformedError with its sequence, and the
//     iteration goes on. Activity reads the whole life of the calls and
//     answers (decisions, responses, approvals, executions, results,
//     answers, verdicts) as one iteration over several streams, each with
//     its own position (AfterIn), of one tenant or of AllTenants.
//   - Deciding (Approvals, Approve, Deny): a call that waits for approval
//     is approved, or denied with a reason, by its call id or key.
//   - Runs (Run, Runs, Rounds, History, WritePlan, Say, Lease, Renew,
//     Release): the runs service, tsv.runs.*: a run's state and its
//     history in a provider's shape; plan writes carry the version they
//     read, and a stale one is a *StaleError with the current version.
//   - Memory (Message, Observe, Recall, Records, RecordHistory, Correct,
//     Forget, EraseUser): the memory service, tsv.memory.*, and erasure
//     (package erasure) that reaches the log: destroyed data keys and
//     tombstones.
//
// Each of these is a role, a small interface *Client implements
// (roles.go): Producer, Consumer, Latest (the last word on one call or
// response), Decider, RunReader and RunDriver, Memory and Eraser;
// Toolstream is all of them. A part of a program takes the role it needs.
//
// The package links no server and no storage: it speaks the services'
// messages (packages memapi and runsapi) and publishes through the one
// ordered publisher, so a producer program stays small (internal/lint's
// TestSDKLinksNoServer keeps it so).
//
// Errors: every method documents the sentinels of errors.go it returns;
// ErrNotFound, ErrStaleVersion, ErrPermissionDenied and ErrBadInput are
// the ones callers branch on. A permission the server refuses is
// ErrPermissionDenied even where NATS only lets the operation time out
// (the server's asynchronous permission violation is read back). Nothing
// in this package panics on what the log or a service holds.
//
// A Client is safe for concurrent use; a Writer is one stream's and is
// not.
package client
