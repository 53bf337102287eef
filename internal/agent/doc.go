// Package agent drives runs for the gateway's run mode (Toolstream-Mode:
// run): the loop of package runs, everything of it that needs no HTTP.
//
// A drive of a run (Driver.Run) repeats, while the driver holds the run's
// lease:
//
//  1. read the run's state and rounds (the runs view);
//  2. if the last round is open, wait for it to settle — or, when one of
//     its calls waits for a person, end the drive with StatusWaitingApproval
//     and the calls' keys (the client resumes the run once they are
//     decided); if it answered, read the answer and the verifier's verdict
//     and end with StatusAnswered;
//  3. otherwise ask the model again (Model.Round): the client's
//     conversation, then the run's history with the tool results (runs
//     history, in the client's provider shape, within the configured token
//     budget), and the tools the tenant may call in the registry in force
//     now (so a tool added to the tools file is offered to the next round
//     without a restart), at most ToolsMax of them, the most relevant to the
//     conversation (package toolsel). A run that degraded, and the last
//     round of the budget (RoundsMax), are asked with tool_choice none: the
//     model answers without tools.
//
// The driver never runs a tool and never decides a call: the assembler
// does, the executor runs it under its idempotency key and lease, and the
// runs projection says when the round settled. So a driver that dies at
// any point loses nothing and repeats nothing: the next one (Resume in the
// restarted process, or the next request of the run) reads the same state
// and goes on from the last settled round; a round whose model answer was
// published whole is never asked again, only waited for.
//
// The answer the client sees is the model's as the verifier's verdict
// (AnswerVerified, in the log) leaves it under the tenant's policy:
// unchanged (annotate), repaired (redact) or withheld (block). An answer
// with no verdict within VerifyWait is withheld (fail closed).
// Before it reads the verdict, a run of a user checks the answer against
// the user's constraints in force at the answer's event time and records
// the check in the log (constraints.go); the verdict read is then the one
// the verifier made with it (violates_constraint claims under the policy).
//
// A drive's context is the client's: when it ends the run is cancelled
// (ReasonClientDisconnected, recorded with the run's request so a later
// request of the run gets the same answer) and no further round starts; a
// round being read from the model is cut, so none of its calls runs
// (docs/design.md invariant 1). The gateway passes a context that outlives the
// client unless the request said Toolstream-On-Disconnect: cancel: then the
// run goes on to its answer or its approval wait, and the result is in the
// log and in the state a later request reads.
//
// Which parts of package runs it uses, and why: state, rounds and history
// through the runs service (tsv.runs.get, rounds, history) — the API every
// producer's loop uses, answered wherever the runs projection runs (serve
// may run it in another process, --components) — and the leases through
// the library (runs.Leases.Hold), which renews the lease in the background
// and marks it lost at once when a renewal fails, so the driver starts no
// round on a lease it may no longer hold.
//
// A run is a conversation: a request whose conversation the run has not
// taken is a new question, which continues the run (its user messages
// recorded in the run, RunMessage, and a new round asked); the same
// request again is a retry, which drives the run as it is (turns.go).
//
// A run of a user remembers (memory.go): the user messages of each turn
// are written to the user's memory (the memory service), and each round
// is given what the user's memory recalls for the run's latest user
// message, within MemoryConfig.RecallBudgetTokens, in the provider's
// shape (a system message, instructions, system), constraints first.
//
// A run plans and delegates (plan.go, delegate.go; docs/design.md,
// "Plans and delegation"): rounds with tools also offer the built-in
// tools toolstream_plan and toolstream_delegate, whose calls the driver
// holding the lease performs and answers in the log as an executor
// would (unless Config.PlansOff or DelegateOff turned the tool off: then
// it is offered on no round and its call fails unknown_tool, nothing
// done). A plan call is a versioned plan write (a stale write is written
// again on the current version); the plan, its accepted steps and the
// last round's replan triggers are given to the next round, and a run
// past its plan's budget of replans ends (ReasonReplansExhausted). A
// delegate call starts a child run (events.ChildRunID) with some of the
// parent's tools, enforced in the log (ResponseStarted.ToolsOnly), and
// a budget carved from the parent's, drives it to its end and answers
// with the child's answer and evidence; the child's spec is stored with
// its first request, so a restarted driver resumes it, never starts it
// twice.
//
// What it keeps: the run's first request, sealed under its user's data key
// (erasure makes it unreadable, docs/design.md invariant 8), in the key-value
// bucket ts_agent, with how the driver ended the run when it did; and a
// marker per run under way, by driver name, which Resume reads after a
// restart. Coordination state, like leases: not a view.
//
// Bounds: a drive waits at most RecordWait for the round the model
// answered to appear in the view, VerifyWait for a verdict, and gives up
// after two failed model responses in a row or RoundsMax rounds.
//
// A Driver is safe for concurrent use. In one process a run has one drive
// at a time; a second request of the run waits for the first's outcome.
package agent
