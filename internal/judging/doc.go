// Package judging asks an external judge about the claims the verifier
// could not decide and records its verdicts in the log.
//
// The verifier is a projection: pure over the log, it calls no network.
// A Worker is not a projection; like the executor it runs beside the
// projections in serve. It follows the verifier's first verdict on each
// answer (AnswerVerified with id events.VerifiedID), reads the answer's
// undecided claims and its evidence from the verifier's view, asks the
// judge (AskJudge, through a Judge: HTTPJudge posts to a URL) and publishes each verdict as a JudgeVerdict
// event on the answer's subject. The verifier projection applies them
// (verifier.ApplyJudgeVerdicts), live and in a replay, which never calls
// the judge again.
//
// Invariants:
//
//   - Nothing twice. A verdict's id is events.JudgeVerdictID(tenant,
//     response, claim), the same however often the claim is asked about,
//     so the log's duplicate window drops a verdict published again by a
//     redelivery or a restart; past the window the projection ignores a
//     verdict on a claim no longer undecided. An answer the view shows with
//     nothing undecided (judged already) is not asked about.
//   - The verdict never waits. The verifier's verdict is in the log before
//     the worker sees it. A judge that cannot be reached, answers too late
//     (Config.Timeout) or answers outside the contract
//     (ErrResponse) is asked again after a backoff
//     (Config.Backoff, doubling) up to Config.Attempts deliveries; then the
//     claims stay undecided and the worker goes on. Retries are the
//     consumer's redeliveries: one answer waiting for the judge holds up no
//     other.
//   - The judge sees the answer's own evidence: the results in the scope
//     the verifier checked it against (its run, else its session, else the
//     tenant's unscoped results), produced at or before the answer's time.
//   - A verdict is sealed under the answer's user, as the answer is: an
//     erasure of the user takes the judge's reasons with it.
//
// The judge's contract (HTTPJudge) is bounded: a request of at most
// RequestBytesMax, an answer of at most ResponseBytesMax bytes.
//
// Concurrency: New once; Run once per Worker; an HTTPJudge is safe for
// concurrent use. At most Config.InFlight
// answers are put to the judge at a time.
package judging
