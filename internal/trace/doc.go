// Package trace reads the lineage of one tool call from the log: the model
// events of its item and response (with the raw provider events they were
// normalised from), the assembler's decision and its provenance, the
// executor's attempts, approvals and result, the executor's record, and the
// verdicts that cited the result as evidence, with the timings between
// them. `toolstream trace` prints it; the package owns no flags and prints
// only to the writer it is given.
//
// Invariants:
//   - A trace is read, never written: Call only reads the log and the
//     executor's record; it publishes nothing and changes no view.
//   - Steps are in log order: events of several streams are ordered by
//     their stream timestamps (one stream's sequence order is its
//     timestamps' order).
//   - Subjects are built only with package events' builders.
//   - Verdicts are looked up in the result's scope, as the verifier does:
//     the same run, else the same session, else the tenant's unscoped
//     answers.
//
// Errors callers branch on are sentinels: ErrNotFound when no call has the
// id, ErrAmbiguous (an *AmbiguousError naming the calls) when the id names
// calls of several responses.
package trace
