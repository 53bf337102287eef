// Package viewdump pages through a live projection view over NATS: the
// service a serve runs for every view it holds, on the view's own subject
// (viewapi.DumpPrefix), and the client
// (`toolstream replay --diff`) that reads a view page by page, and pages
// through a local view the same way; and the digest of a live view
// (viewapi.DigestPrefix: AddEndpoints serves it with the dump, Digest asks
// it),
// what `replay --verify` compares a rebuilt view with. LiveDigest and
// OpenLive read a projection's live view from a running serve, else from
// its view directory when no serve answers (NotServed).
//
// Invariants:
//   - Every page of one dump comes from the same checkpoint: the first
//     request opens a Pebble snapshot of the view (projector.Runner.View)
//     and names it by a token; later requests page through it by the token,
//     however fast the live view moves on.
//   - Rows come in key order, each page after the last key of the one
//     before; a page holds at most PageRows rows and about PageBytes bytes.
//   - A process answers only for the views it runs and the sessions it
//     opened, each view on its own subjects (so a role is allowed to
//     answer only the views it runs: package auth); it stays silent
//     otherwise (a partition's subject reaches every process of the role:
//     no queue group), so a view no process runs gets no answer, not an
//     empty dump.
//   - Snapshots are bounded: at most MaxOpen at once (the least recently
//     used is closed past it), each closed after IdleMax unused, all closed
//     by Service.Close, which must run before the runners close.
//
// Callers branch on ErrRemote (a *RemoteError) when a serve answered with
// an error, and on nats.ErrNoResponders when no serve answers.
package viewdump
