// Package runs closes the loop back to the model: it knows when every call
// of a model response has ended, turns each outcome into the tool-result
// message the provider expects, keeps the conversation of a run and its
// state, and tells the loop when to stop using tools or change its plan.
//
// A run is keyed by tenant and run id (the envelope's Run, from the Ts-Run
// header; a response with no run is its own run). A run is a sequence of
// rounds; a round is one model response and the calls it made. Two
// projections build it:
//
//   - Calls (runs-calls) reads TS_CALLS and copies into the run's stream
//     (ts.run.<tenant>.<run>, TS_OUT) what the round needs of it: each
//     call the assembler decided (completed, rejected, incomplete) and each
//     approval asked for or granted, as RunCall events. A projection reads
//     one stream, and the results are in TS_OUT.
//   - Projection (runs) reads TS_OUT: response outcomes, the executor's
//     results, RunCall, and the drivers' plan writes and messages. When
//     the response of a round has ended (its ResponseOutcome says how many
//     calls it made) and each of those calls has a terminal outcome —
//     succeeded, failed, rejected, incomplete, denied, outcome_unknown — it
//     emits RoundSettled with the round's tool-result messages in the
//     provider's shape (Chat role:tool with tool_call_id, Responses
//     function_call_output with call_id, Anthropic tool_result with
//     tool_use_id and is_error, Gemini functionResponse). A rejected or
//     cut call is an error result that says what to fix. A call waiting
//     for approval keeps its round open, and the run's status says
//     waiting_approval.
//
// Signals: RunDegraded once Config.DegradeAfter calls in a row failed or
// were rejected (per tenant: TenantDegradeAfter); ReplanSuggested when two
// settled rounds in a row brought no evidence the run had not seen
// (same calls, same results), a dependency is unavailable (circuit open,
// unknown tool), one round or less of the budget is left, or a result
// contradicts a value the plan's step assumed.
//
// Run state is under optimistic versions: every change of a run raises its
// Version, and a plan write (PlanWritten) carries the version its writer
// read. The projection applies it only at that version; otherwise it
// records the refusal (stale_version) with the current version, never a
// merge. The log orders concurrent writes, so of two writers that read the
// same version exactly one wins, on replay too.
//
// History (BuildHistory) writes a run's inputs and settled rounds as one
// provider's messages within a token budget: the last rounds verbatim,
// older ones compacted deterministically, large results referenced.
//
// Leases (Leases) say which driver may start the next round of a run: a
// record per run in the key-value bucket ts_runs, changed by
// compare-and-set, like the executor's call records. Coordination state is
// not a view: it is never rebuilt from the log.
//
// The service (Service, tsv.runs.<verb>.<tenant>) answers runs, history,
// plan writes, messages and leases over NATS request/reply; the tenant is
// the subject's last token, so a producer's permission to its own tenant's
// subjects is the whole check.
//
// Invariants (docs/design.md): 3 and 4 (state, checkpoint and outbox in one
// batch, by package projector; emitted ids derive from their cause:
// events.RoundSettledID and friends), 6 (time from events; calls are
// ordered by the assembler's Order, never by map order: the views and what
// they emit are a function of the log — replay equals live), 7 (every key
// starts with the tenant; queries refuse an empty one with
// projector.ErrNoTenant), 9 (an event without a run or response, a message
// of another role, is rejected with its reason; the rest goes on).
//
// Bounds: a plan is at most 64 KiB; a result is inlined in a message up to
// Config.ResultInlineMax, else referenced.
//
// A projection instance is used by one Runner goroutine; queries take a
// projector.Reader (a snapshot View) and are safe concurrently; Service
// and Leases are safe for concurrent use.
package runs
