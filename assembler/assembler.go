package assembler

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/invariants"
	"github.com/toolstream/toolstream/projector"
)

// Name is the assembler projection's name.
const Name = "assembler"

// Assembler is the projection from canonical model events to calls.
//
// The hot path is an argument delta: appended to its call's argument row
// (one write per call per batch) and nothing decoded but the event itself. Call and
// response rows are written when they open and when they are decided; the
// in-memory caches below mirror them (they are derived from the view and
// rebuilt from it on a miss, so a restart or a replay sees the same
// decisions).
type Assembler struct {
	cfg       Config
	log       *slog.Logger
	validator Validator                        // registry in effect; nil = none
	loaded    bool                             // validator restored from the view after a restart
	previews  map[string]*preview              // committed deltas' previews (preview.go)
	pvNotes   []pvNote                         // deltas noted since the last commit, sent after the next
	seq       uint64                           // the sequence of the message being applied
	calls     map[respID]map[string]*callEntry // open calls, by response and item
	ncalls    int                              // the calls in calls (at most cacheMax)
	resps     map[respID]*respEntry            // open responses
	decided   map[respID]struct{}              // responses known to be decided: their late events are ignored
	callsGen  uint64                           // bumped whenever calls is cleared (respEntry.known)
	// Response rows changed since the batch's Flush, written then (once
	// per batch instead of with every event of the response), and the
	// responses as they were before the message being applied changed
	// them (put back if its Tx is dropped).
	pending  map[respID]*respEntry
	respUndo []respUndo
	scratch  []byte // a delta's record, copied by Tx.Append
	argReads int    // argument rows read to decide a call (not held in memory)
	memBytes int    // argument bytes the cached calls hold (callEntry.mem)

	// Quotas (admit.go): the tenants' rows, those changed since the
	// batch's Flush, the rows as they were before the message being
	// applied (undone if its Tx is dropped), and the tenants refused since
	// their last admitted event (for log lines only).
	quotas  map[string]*tenantQuota
	touched map[string]*tenantQuota // changed since the last Flush
	undo    map[string]quotaRow     // as they were before the message being applied
	over    map[string]overQuota
	qbuf    []byte
}

// callEntry is an open call's row plus what the hot path needs.
//
// mem mirrors the call's argument row (its deltas' bytes, deltas of them)
// while it holds at most memArgsMax bytes, so deciding the call reads no
// row: it is the bytes the row holds, kept where every delta is applied
// (appendArgs) and dropped with the entry when a message's Tx is dropped,
// as bytes is. memOff: the row is read instead (past the bound).
type callEntry struct {
	row    call
	bytes  int    // argument bytes received
	id     callID // where it is in Assembler.calls
	key    []byte // the call row's key, built once per call
	args   []byte // the argument row's key, built once per call
	mem    []byte // the argument bytes, unless memOff
	deltas int    // the deltas in mem
	memOff bool
}

// memArgsMax bounds the argument bytes an open call keeps in memory (most
// calls' arguments are smaller; an open call's heap stays within a constant
// of its bytes, BenchmarkOpenCallMemory), and memArgsTotal those of all
// open calls together; a call past either reads its row when it is decided.
const (
	memArgsMax   = 4 << 10
	memArgsTotal = 16 << 20
)

// keep mirrors a delta appended to the call's argument row.
func (a *Assembler) keep(ce *callEntry, delta string) {
	if ce.memOff {
		return
	}
	if len(ce.mem)+len(delta) > memArgsMax || a.memBytes+len(delta) > memArgsTotal {
		a.unkeep(ce)
		ce.memOff = true
		return
	}
	ce.mem = append(ce.mem, delta...)
	ce.deltas++
	a.memBytes += len(delta)
}

// unkeep lets go of the argument bytes ce holds in memory.
func (a *Assembler) unkeep(ce *callEntry) {
	a.memBytes -= len(ce.mem)
	ce.mem, ce.deltas = nil, 0
}

// callID names a call in the cache without building a key: a delta finds
// its open call by two map lookups, with no key made per delta; a
// response's end drops its calls by one.
type callID struct{ tenant, resp, item string }

// respID names a response in the cache without building a key.
type respID struct{ tenant, resp string }

// respUndo is a response as it was before the message being applied.
type respUndo struct {
	ck      respID
	re      *respEntry
	row     response
	stored  int64
	pending bool // its row was already waiting for Flush
}

// respEntry is an open response's row plus the activity time stored in
// its open-index row.
//
// known, when not nil, is every call the response has in the view, item →
// decided: a response the view did not have when its entry was made has
// only the calls this process wrote since, and while calls has not been
// cleared (gen is callsGen), those still open are all in calls. Then a
// call missing from both has no row, and one known decided needs no read:
// a response's calls cost no read of the view (existing, open,
// endResponse). nil (a response found in the view, the cache cleared, or
// more than knownMax calls): the view is read as before.
type respEntry struct {
	row    response
	stored int64 // last activity written to the ~open row
	known  map[string]bool
	gen    uint64 // Assembler.callsGen when known was started
}

// knownMax bounds a respEntry's known calls; past it the response's calls
// are read from the view.
const knownMax = 1024

// knownOf is re's known calls if they can be trusted now, else nil.
func (a *Assembler) knownOf(re *respEntry) map[string]bool {
	if re == nil || re.known == nil || re.gen != a.callsGen {
		return nil
	}
	return re.known
}

// noteCall records that the response has a call of item, decided or not.
func (re *respEntry) noteCall(item string, decided bool) {
	if re.known == nil {
		return
	}
	if _, ok := re.known[item]; !ok && len(re.known) >= knownMax {
		re.known = nil // from here on the view is read
		return
	}
	re.known[item] = decided
}

// cacheMax bounds each cache; past it the cache is dropped and rebuilt
// from the view on demand.
const cacheMax = 100_000

var (
	_ projector.Projection = (*Assembler)(nil)
	_ projector.Flusher    = (*Assembler)(nil)
)

// New returns an assembler projection.
func New(cfg Config) *Assembler {
	cfg.setDefaults()
	return &Assembler{cfg: cfg, log: cfg.Logger, previews: map[string]*preview{},
		calls: map[respID]map[string]*callEntry{}, resps: map[respID]*respEntry{}, decided: map[respID]struct{}{}, pending: map[respID]*respEntry{},
		quotas: map[string]*tenantQuota{}, touched: map[string]*tenantQuota{}, undo: map[string]quotaRow{}, over: map[string]overQuota{}}
}

// Name implements projector.Projection.
func (a *Assembler) Name() string { return Name }

// Subjects implements projector.Projection: model events, clock ticks and
// registry changes.
func (a *Assembler) Subjects() []string {
	return []string{events.AllModel, events.ModelClockSubject, events.RegistrySubject}
}

// Apply implements projector.Projection.
func (a *Assembler) Apply(tx *projector.Tx, m *projector.Msg) error {
	return a.applyWith(tx, m, a.apply)
}

// applyWith runs fn, Apply's or Reject's work on m, keeping the caches and
// the previews' notes as the Tx keeps what fn wrote.
func (a *Assembler) applyWith(tx *projector.Tx, m *projector.Msg, fn func(*projector.Tx, *projector.Msg) error) error {
	a.notesFrom(m.Seq)
	a.seq = m.Seq
	mark := len(a.pvNotes)
	if err := fn(tx, m); err != nil {
		a.notesTo(mark)
		a.dropQuotas() // the Tx is dropped: so is what the caches learnt
		a.dropResponses()
		clear(a.decided)
		return err
	}
	a.applied()
	a.respUndo = a.respUndo[:0]
	return nil
}

func (a *Assembler) apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	if err := a.load(tx); err != nil {
		return err
	}
	// A tick or a registry change acts on every tenant: only the system
	// tenant's control subjects (which only the assembler role may write)
	// carry one. On a tenant's model subject it is refused
	// (forged_control) and moves nobody's clock.
	if err := events.CheckControl(m.Subject, ev); err != nil {
		return err
	}
	switch ev.Body.(type) {
	case *events.Tick:
		return a.tick(tx, ev)
	case *events.RegistryChanged:
		return a.registryChanged(tx, m, ev)
	}
	if ev.Response == "" {
		return fmt.Errorf("%w: %s without response id", events.ErrMissingField, ev.Kind)
	}
	admitted, err := a.admit(tx, m, ev)
	if err != nil {
		return err
	}
	if !admitted {
		return a.stepOn(tx, m.Seq, ev, (*step).refuse)
	}
	return a.stepOn(tx, m.Seq, ev, (*step).apply)
}

// load reads the registry from the view after a start or a Reset.
func (a *Assembler) load(tx *projector.Tx) error {
	if a.loaded {
		return nil
	}
	return a.restoreRegistry(tx)
}

// Reject implements projector.Rejecter: a model event refused on a call's
// subject (ts.model.<tenant>.<response>.<item>), one that does not decode
// or that the assembler does not take, may have held some of the call's
// bytes, so the call ends CallIncomplete stream_failed saying why, as a
// refused raw event ends its stream's open calls (Ingest.Reject); a call
// not opened yet is opened to be ended, so its later events change
// nothing. A fault of the assembler's own (projector.FaultError) on a
// call's event ends the call so too: the runner applied the batch again
// without that event, whose bytes the call would otherwise complete
// without (invariant 1: never execute an incomplete call); a subject
// naming no call (a response's own events) has the projector's rejection
// row only.
func (a *Assembler) Reject(_ context.Context, tx *projector.Tx, m *projector.Msg, reason error) error {
	tenant, resp, item, err := events.ParseModelSubject(m.Subject)
	if err != nil || resp == "" || item == "" {
		return nil
	}
	ev := &events.Event{Tenant: tenant, Response: resp, Item: item, At: m.Time,
		Body: &events.ItemAborted{Reason: events.ReasonStreamFailed, Detail: "a model event of the call was refused: " + reason.Error()}}
	ev.Kind = ev.Body.Kind()
	return a.applyWith(tx, m, func(tx *projector.Tx, m *projector.Msg) error {
		if err := a.load(tx); err != nil {
			return err
		}
		return a.stepOn(tx, m.Seq, ev, (*step).abortRefused)
	})
}

// stepOn applies ev to its response with do: one step.
func (a *Assembler) stepOn(tx *projector.Tx, seq uint64, ev *events.Event, do func(*step) error) error {
	re, err := a.response(tx, ev)
	if err != nil || re == nil {
		return err // re nil: the response is decided, late events change nothing
	}
	a.beforeResponse(respID{ev.Tenant, ev.Response}, re)
	s := &step{a: a, tx: tx, ev: ev, seq: seq, re: re}
	if err = do(s); err != nil {
		a.forget(ev.Tenant, ev.Response) // the Tx is dropped: so is what the caches learnt
		return err
	}
	return s.finish()
}

// Reset implements projector.Resetter: the caches go, the registry is read
// from the view again, and the previews noted since the last commit go
// (their batch is dropped); the previews, which hold committed deltas
// only, stay, every tenant's.
func (a *Assembler) Reset() {
	a.notesTo(0)
	clear(a.calls)
	a.ncalls, a.memBytes = 0, 0
	a.callsGen++
	clear(a.resps)
	clear(a.pending)
	a.respUndo = a.respUndo[:0]
	clear(a.decided)
	clear(a.quotas)
	clear(a.touched)
	clear(a.undo)
	a.validator, a.loaded = nil, false
}

// response returns the open response of ev, creating it on first sight; nil
// when it is decided.
func (a *Assembler) response(tx *projector.Tx, ev *events.Event) (*respEntry, error) {
	ck := respID{ev.Tenant, ev.Response}
	if re := a.resps[ck]; re != nil {
		return re, nil
	}
	if re := a.pending[ck]; re != nil { // the cache was cleared: its row is not written yet
		a.resps[ck] = re
		return re, nil
	}
	if _, ok := a.decided[ck]; ok {
		return nil, nil
	}
	rk, err := respKey(ev.Tenant, ev.Response)
	if err != nil {
		return nil, err
	}
	re := &respEntry{}
	found, err := load(tx, rk, &re.row)
	if err != nil {
		return nil, err
	}
	if found && re.row.Status != "" {
		a.remember(ck)
		return nil, nil
	}
	if found {
		if v, ok, err := tx.Get(openKey(ev.Tenant, ev.Response)); err != nil {
			return nil, err
		} else if ok && len(v) == 8 {
			re.stored = int64(binary.BigEndian.Uint64(v))
		}
	} else {
		re.row.Env = envOf(ev)
		re.stored = -1 // not written yet
		re.known, re.gen = map[string]bool{}, a.callsGen
	}
	if len(a.resps) >= cacheMax {
		clear(a.resps)
	}
	a.resps[ck] = re
	return re, nil
}

// beforeResponse keeps re as it was before the message being applied, so that a
// message whose Tx is dropped can be undone (dropResponses).
func (a *Assembler) beforeResponse(ck respID, re *respEntry) {
	a.respUndo = append(a.respUndo, respUndo{ck: ck, re: re, row: re.row, stored: re.stored, pending: a.pending[ck] == re})
}

// dropResponses undoes what a message whose Tx is dropped did to the
// responses it touched: each leaves the caches with its calls (their rows
// are read from the batch again), and one whose row was waiting for Flush
// is put back as it was, to be written then; its known calls are dropped
// (the view is read for them).
func (a *Assembler) dropResponses() {
	for i := len(a.respUndo) - 1; i >= 0; i-- {
		u := a.respUndo[i]
		a.forget(u.ck.tenant, u.ck.resp)
		delete(a.pending, u.ck)
		if u.pending {
			u.re.row, u.re.stored, u.re.known = u.row, u.stored, nil
			a.pending[u.ck] = u.re
			a.resps[u.ck] = u.re
		}
	}
	a.respUndo = a.respUndo[:0]
}

// flushResponses writes the response rows the batch changed (Flush).
func (a *Assembler) flushResponses(tx *projector.Tx) error {
	for ck, re := range a.pending { // distinct keys: the order changes nothing
		rk, err := respKey(ck.tenant, ck.resp)
		if err != nil {
			return err
		}
		if err := store(tx, rk, &re.row); err != nil {
			return err
		}
	}
	clear(a.pending)
	return nil
}

// remember notes a decided response, so its late events cost no read.
func (a *Assembler) remember(ck respID) {
	if len(a.decided) >= cacheMax {
		clear(a.decided)
	}
	a.decided[ck] = struct{}{}
}

// forget drops a response and its calls from the caches.
func (a *Assembler) forget(tenant, resp string) {
	ck := respID{tenant, resp}
	delete(a.resps, ck)
	a.ncalls -= len(a.calls[ck])
	for _, ce := range a.calls[ck] {
		a.unkeep(ce)
	}
	delete(a.calls, ck)
}

func envOf(ev *events.Event) envelope {
	return envelope{User: ev.User, Session: ev.Session, Run: ev.Run, Step: ev.Step}
}

// step is the application of one model event to one response.
type step struct {
	a     *Assembler
	tx    *projector.Tx
	ev    *events.Event
	seq   uint64
	re    *respEntry
	dirty bool // the response row changed
	// usage is what the response's end event says of its tokens, for
	// its outcome.
	usage events.Usage
}

func (s *step) apply() error {
	ev := s.ev
	switch b := ev.Body.(type) {
	case *events.TextDelta:
		return s.text(b.Text)
	case *events.ResponseStarted:
		if b.Provider != "" && s.re.row.Provider != b.Provider {
			s.re.row.Provider, s.dirty = b.Provider, true
		}
		if b.ClientRuns && !s.re.row.ClientRuns {
			s.re.row.ClientRuns, s.dirty = true, true
		}
		if b.ToolsOnly && !s.re.row.ToolsOnly {
			s.re.row.ToolsOnly, s.re.row.Tools, s.dirty = true, b.Tools, true
		}
		return nil
	case *events.InputRejected:
		return nil
	case *events.OutputItemAdded:
		if b.Type != events.ItemFunctionCall {
			return nil // server tools, text, reasoning: not client calls
		}
		ce, err := s.open(b.Name, b.Index)
		if err != nil || ce == nil {
			return err
		}
		if b.HasArguments {
			return s.appendArgs(ce, b.Arguments)
		}
		return nil
	case *events.ArgumentsDelta:
		ce, err := s.open("", 0)
		if err != nil || ce == nil {
			return err
		}
		return s.appendArgs(ce, b.Delta)
	case *events.ArgumentsDone:
		return s.done("", b.Arguments, b.HasArguments, "")
	case *events.OutputItemDone:
		if b.Type != "" && b.Type != events.ItemFunctionCall {
			return nil
		}
		return s.done(b.Name, b.Arguments, b.HasArguments, b.Status)
	case *events.ItemAborted:
		ce, key, err := s.existing(ev.Item)
		if err != nil || ce == nil {
			return err
		}
		return s.incomplete(ce, key, b.Reason, b.Detail)
	case *events.ResponseCompleted:
		s.usage = b.Usage
		return s.endResponse(events.StatusCompleted, events.ReasonStreamEnded, "the response completed before the call's completion signal", "", "")
	case *events.ResponseIncomplete:
		s.usage = b.Usage
		return s.endResponse(events.StatusIncomplete, b.Reason, "response incomplete: "+string(b.Reason), "", "")
	case *events.ResponseFailed:
		s.usage = b.Usage
		return s.endResponse(events.StatusFailed, events.ReasonStreamFailed, "response failed: "+b.Code+" "+b.Message, b.Code, b.Message)
	default:
		return fmt.Errorf("%w: assembler does not take %s", events.ErrBadInput, ev.Kind)
	}
}

// abortRefused ends the call of the step's item, opened first when it is
// not (Reject's step: its event, an events.ItemAborted, says why).
func (s *step) abortRefused() error {
	ce, err := s.open("", 0)
	if err != nil || ce == nil {
		return err // decided (or refused its room): nothing is left to end
	}
	b := s.ev.Body.(*events.ItemAborted)
	return s.incomplete(ce, ce.key, b.Reason, b.Detail)
}

// finish keeps the response row and the open index. A decided response's
// row is written at once; an open one's, when it changed, waits for the
// batch's Flush (a response's events change it one after another: its
// start, text, each call opened and decided). The last activity is
// rewritten only when it moved by a sixteenth of the idle deadline, so a
// delta does not pay for it.
func (s *step) finish() error {
	ev, re := s.ev, s.re
	ck := respID{ev.Tenant, ev.Response}
	if re.row.Status != "" {
		s.a.forget(ev.Tenant, ev.Response)
		delete(s.a.pending, ck)
		s.a.remember(ck)
		if err := s.storeResponse(); err != nil {
			return err
		}
		return s.tx.Delete(openKey(ev.Tenant, ev.Response))
	}
	if s.dirty || re.stored < 0 {
		if invariants.Enabled {
			s.checkResponse()
		}
		s.a.pending[ck] = re
	}
	if re.stored < 0 || ev.At-re.stored >= int64(s.a.cfg.IdleTimeout)/16 {
		re.stored = ev.At
		return s.tx.Set(openKey(ev.Tenant, ev.Response), binary.BigEndian.AppendUint64(nil, uint64(ev.At)))
	}
	return nil
}

func (s *step) storeResponse() error {
	if invariants.Enabled {
		s.checkResponse()
	}
	rk, err := respKey(s.ev.Tenant, s.ev.Response)
	if err != nil {
		return err
	}
	return store(s.tx, rk, &s.re.row)
}

// existing returns the open call of item, or nil when there is none or it
// is decided.
func (s *step) existing(item string) (*callEntry, []byte, error) {
	id := callID{s.ev.Tenant, s.ev.Response, item}
	if ce := s.a.calls[respID{id.tenant, id.resp}][item]; ce != nil {
		return ce, ce.key, nil
	}
	key, err := callKey(s.ev.Tenant, s.ev.Response, item)
	if err != nil {
		return nil, nil, err
	}
	if s.a.knownOf(s.re) != nil {
		return nil, key, nil // decided, or never opened: not open either way
	}
	ce := &callEntry{key: key}
	found, err := load(s.tx, key, &ce.row)
	if err != nil || !found || ce.row.State != stateOpen {
		return nil, key, err
	}
	// After a restart: count the bytes already buffered.
	if ce.args, err = argsKey(s.ev.Tenant, s.ev.Response, item); err != nil {
		return nil, nil, err
	}
	row, _, err := s.tx.Get(ce.args)
	if err != nil {
		return nil, nil, err
	}
	if err := argRecords(row, func(d []byte) { ce.bytes += len(d); s.a.keep(ce, string(d)) }); err != nil {
		return nil, nil, err
	}
	s.a.cache(id, ce)
	return ce, key, nil
}

func (a *Assembler) cache(id callID, ce *callEntry) {
	if a.ncalls >= cacheMax {
		clear(a.calls)
		a.ncalls, a.memBytes = 0, len(ce.mem) // ce's bytes are already kept
		a.callsGen++
	}
	ce.id = id
	ck := respID{id.tenant, id.resp}
	m := a.calls[ck]
	if m == nil {
		m = map[string]*callEntry{}
		a.calls[ck] = m
	}
	if _, ok := m[id.item]; !ok {
		a.ncalls++
	}
	m[id.item] = ce
}

// uncache drops a decided call from the cache; a response with no open
// call cached leaves it, so the responses there are at most the calls.
func (a *Assembler) uncache(id callID) {
	ck := respID{id.tenant, id.resp}
	m := a.calls[ck]
	ce, ok := m[id.item]
	if !ok {
		return
	}
	a.unkeep(ce)
	delete(m, id.item)
	a.ncalls--
	if len(m) == 0 {
		delete(a.calls, ck)
	}
}

// open returns the call of the event's item, creating it on first sight. A
// decided call comes back nil: nothing may change it any more.
func (s *step) open(name string, index int) (*callEntry, error) {
	ev := s.ev
	if ev.Item == "" {
		return nil, fmt.Errorf("%w: %s without item id", events.ErrMissingField, ev.Kind)
	}
	ce, key, err := s.existing(ev.Item)
	if err != nil {
		return nil, err
	}
	if ce != nil {
		if (ce.row.Name == "" && name != "") || (ce.row.CallID == "" && ev.CallID != "") {
			if ce.row.Name == "" {
				ce.row.Name = name
			}
			if ce.row.CallID == "" {
				ce.row.CallID = ev.CallID
			}
			return ce, store(s.tx, key, &ce.row)
		}
		return ce, nil
	}
	if known := s.a.knownOf(s.re); known != nil {
		if _, ok := known[ev.Item]; ok {
			return nil, nil // decided (an open one is in the cache)
		}
	} else {
		var row call
		if found, err := load(s.tx, key, &row); err != nil || found {
			return nil, err // decided
		}
	}
	if room, err := s.openRoom(); err != nil || !room {
		if err == nil {
			err = s.refuseCall(key, name, index)
		}
		return nil, err
	}
	ce = &callEntry{row: call{Name: name, CallID: ev.CallID, Index: index, Order: s.re.row.Calls, Env: envOf(ev),
		From: events.Provenance{FirstSeq: s.seq, OpenedAt: ev.At}}, key: key}
	if ce.args, err = argsKey(ev.Tenant, ev.Response, ev.Item); err != nil {
		return nil, err
	}
	s.re.row.Calls++
	s.dirty = true
	if err := store(s.tx, key, &ce.row); err != nil {
		return nil, err
	}
	s.a.cache(callID{ev.Tenant, ev.Response, ev.Item}, ce)
	s.re.noteCall(ev.Item, false)
	return ce, nil
}

// appendArgs appends a delta to the call's argument row: linear in the
// bytes received, and a batch's deltas of one call are one write.
func (s *step) appendArgs(ce *callEntry, delta string) error {
	if ce.row.Overflow || delta == "" {
		return nil
	}
	if ce.bytes+len(delta) > s.a.cfg.ArgsBytesMax {
		ce.row.Overflow = true // stop buffering; the partial stays for audit
		return store(s.tx, ce.key, &ce.row)
	}
	rec := append(binary.AppendUvarint(s.a.scratch[:0], uint64(len(delta))), delta...)
	s.a.scratch = rec
	if err := s.tx.Append(ce.args, rec); err != nil {
		return err
	}
	ce.bytes += len(delta)
	s.a.keep(ce, delta)
	s.a.feedPreview(s.ev, &ce.row, ce.bytes, delta)
	return nil
}

// buffered returns a call's argument bytes and their provenance, and
// deletes their rows.
func (s *step) buffered(ce *callEntry, from *events.Provenance) ([]byte, error) {
	ak := ce.args
	if !ce.memOff {
		// The row holds these bytes (callEntry.mem): it is deleted
		// unread. A call with no delta has no row; deleting none is
		// what the view then needs.
		buf, deltas := ce.mem, ce.deltas
		s.a.unkeep(ce)
		if deltas > 0 {
			if err := s.tx.Delete(ak); err != nil {
				return nil, err
			}
		}
		from.Deltas, from.Bytes, from.LastSeq = deltas, len(buf), s.seq
		return buf, nil
	}
	s.a.argReads++
	row, found, err := s.tx.Get(ak)
	if err != nil {
		return nil, err
	}
	// The row holds the bytes and a length before each delta: the bytes
	// fit, copied once.
	buf := make([]byte, 0, len(row))
	deltas := 0
	if err := argRecords(row, func(d []byte) { buf = append(buf, d...); deltas++ }); err != nil {
		return nil, err
	}
	if found {
		if err := s.tx.Delete(ak); err != nil {
			return nil, err
		}
	}
	from.Deltas, from.Bytes, from.LastSeq = deltas, len(buf), s.seq
	return buf, nil
}

// done handles a completion signal.
func (s *step) done(name, args string, hasArgs bool, status string) error {
	ce, err := s.open(name, 0)
	if err != nil || ce == nil {
		return err
	}
	key := ce.key
	if status == "incomplete" {
		return s.incomplete(ce, key, events.ReasonTruncated, "the provider marked the item incomplete")
	}
	return s.decide(ce, key, args, hasArgs)
}

// endResponse decides every call still open and the response itself.
func (s *step) endResponse(status events.ResponseStatus, reason events.Reason, detail, code, msg string) error {
	ev := s.ev
	prefix, err := callsPrefix(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	items, err := s.openItems(prefix)
	if err != nil {
		return err
	}
	for _, item := range items {
		ce, key, err := s.existing(item)
		if err != nil {
			return err
		}
		if ce != nil {
			if err := s.incomplete(ce, key, reason, detail); err != nil {
				return err
			}
		}
	}
	s.re.row.Status = string(status)
	s.dirty = true
	out := &events.ResponseOutcome{Status: status, Calls: s.re.row.Calls, ErrorCode: code, ErrorMessage: msg, Provider: s.re.row.Provider, Usage: s.usage}
	if status != events.StatusCompleted {
		out.Reason = reason
	}
	if s.re.row.TextBytes > 0 {
		tk, err := textKey(ev.Tenant, ev.Response)
		if err != nil {
			return err
		}
		// The text goes with the outcome: a response that called no tool
		// and completed is a final answer, for the verifier; the text a
		// response wrote before its calls is the assistant's turn of the
		// round, for the runs' history.
		if status == events.StatusCompleted || s.re.row.Calls > 0 {
			text, _, err := s.tx.Get(tk)
			if err != nil {
				return err
			}
			out.Text = string(text)
		}
		if err := s.tx.Delete(tk); err != nil {
			return err
		}
	}
	subj, err := events.ResponseSubject(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	return s.tx.Emit(subj, s.event(events.ResponseOutcomeID(ev.Tenant, ev.Response), "", "", s.re.row.Env, out))
}

// openItems lists the response's open calls in the order of their keys
// (prefix is the response's calls).
func (s *step) openItems(prefix []byte) ([]string, error) {
	var items []string
	if known := s.a.knownOf(s.re); known != nil {
		type openCall struct {
			key  string
			item string
		}
		var opens []openCall
		for item, decided := range known {
			if decided {
				continue
			}
			k, err := callKey(s.ev.Tenant, s.ev.Response, item)
			if err != nil {
				return nil, err
			}
			opens = append(opens, openCall{string(k), item})
		}
		slices.SortFunc(opens, func(a, b openCall) int { return strings.Compare(a.key, b.key) })
		for _, o := range opens {
			items = append(items, o.item)
		}
		return items, nil
	}
	err := s.tx.Scan(prefix, func(k, v []byte) error {
		var c call
		if ok, err := load(s.tx, k, &c); err != nil || !ok {
			return err
		}
		if c.State == stateOpen {
			items = append(items, itemOf(k))
		}
		return nil
	})
	return items, err
}

// text keeps display text for the response's outcome, up to TextBytesMax.
func (s *step) text(t string) error {
	room := s.a.cfg.TextBytesMax - s.re.row.TextBytes
	if room <= 0 || t == "" {
		return nil
	}
	if len(t) > room {
		for room > 0 && !utf8.RuneStart(t[room]) {
			room-- // never cut a character
		}
		t = t[:room]
	}
	k, err := textKey(s.ev.Tenant, s.ev.Response)
	if err != nil {
		return err
	}
	if err := s.tx.Append(k, []byte(t)); err != nil {
		return err
	}
	s.re.row.TextBytes += len(t)
	s.dirty = true
	return nil
}

// event builds an emitted event with the response's identities.
func (s *step) event(id, item, callID string, env envelope, body events.Body) *events.Event {
	return &events.Event{ID: id, Tenant: s.ev.Tenant, User: env.User, Session: env.Session, Run: env.Run, Step: env.Step,
		Response: s.ev.Response, Item: item, CallID: callID, At: s.ev.At, Body: body}
}
