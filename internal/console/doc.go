// Package console is the web page of the people who operate Toolstream:
// the calls as they happen, one call's lineage, the approvals waiting for a
// person, verified answers with their claims, a user's memory and the
// health of the projections and executors. Server serves it on one HTTP
// listener from assets embedded in the binary (no internet at run time).
//
// Who may see and do what. A session is a Grant: a role of package auth
// (operator or reader) and, for a per-tenant viewer, one tenant. Sign-in is
// a one-time token (Mint, made by `toolstream console-token` with the key
// in <data>/auth/console.key) redeemed by a POST of the console's own
// sign-in form to /signin (the token in the body; the URL console-token
// prints carries it after #, which the form's script fills in), which sets
// the session cookie; a GET of /signin only shows the form, and a POST
// whose Origin or Sec-Fetch-Site names another site, or that names
// neither, is refused (no login CSRF). Without a session every page and
// API answers 401. A grant of one
// tenant never sees another tenant's calls, traces, answers, memory or
// breakers: every list is filtered and every request naming another tenant
// is refused with 403. Acting is decided by the role's NATS permissions
// (auth.Identity.MayPublish): an operator may approve, deny, correct and
// forget; a reader may not. The console acts as a client of the log
// through package client, like the CLI: a decision is an event in the log
// (client.Approve, client.Deny, the call named by its key), a user's
// memory is read and corrected through the memory service
// (client.Records, client.RecordHistory, client.Correct), and a forget
// goes through the same path as `toolstream memory forget`
// (Config.Forget).
//
// State-changing requests are POSTs that need the session cookie, the
// session's CSRF token in the X-Console-CSRF header and, when the browser
// sends them, an Origin of this host and Sec-Fetch-Site same-origin.
//
// Live updates. The console follows the log's call, execution, approval,
// result, response and answer subjects from the start (not the model
// deltas) into a bounded table of the latest calls and answers
// (Config.CallsMax, Config.AnswersMax), and pushes each change to the open
// pages as server-sent events (/api/events). The table is not a projection:
// it is what `toolstream calls --follow` prints, kept in memory, and a
// restart reads it again from the log.
//
// Tokens are one-time: a redeemed token's nonce is remembered (on disk,
// Config.UsedFile) until the token expires. A session is its cookie,
// signed with the console's key under another domain than tokens (one is
// never taken for the other): it survives a restart of serve with the same
// --data, and its CSRF token is derived from it with the key. Signing out
// keeps the session's id among the used names until it would have expired,
// so a signed-out session stays ended across restarts; a new console key
// ends every session.
package console
