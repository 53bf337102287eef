// Package responses is the first projection on the backbone: a per-tenant
// index of the model responses seen on the log and their status. Commands
// such as `toolstream calls` and `trace` build on it.
//
// It reads canonical model events (ts.model.>) and the assembler's response
// outcomes (ts.resp.>). Status moves open → completed | incomplete | failed
// by the provider's own end events; the assembler's ResponseOutcome, when
// present, is recorded beside it.
//
// Invariants: 3 (state and checkpoint in one batch, by package projector),
// 6 (time and order only from events: the view is a pure function of the
// log), 7 (every key starts with the tenant; List and Get refuse an empty
// tenant with projector.ErrNoTenant), 9 (an undecodable event is rejected by
// the machinery, the rest goes on).
//
// The projection is safe for one Runner; queries take a projector.Reader
// (a snapshot View) and are safe concurrently.
package responses
