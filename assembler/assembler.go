package assembler

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Name is the assembler projection's name.
const Name = "assembler"

// Assembler is the projection from canonical model events to calls.
type Assembler struct {
	cfg       Config
	log       *slog.Logger
	validator Validator // registry in effect; nil = none
	loaded    bool      // validator restored from the view after a restart
	previews  map[string]*preview
}

var _ projector.Projection = (*Assembler)(nil)

// New returns an assembler projection.
func New(cfg Config) *Assembler {
	cfg.setDefaults()
	return &Assembler{cfg: cfg, log: cfg.Logger, previews: map[string]*preview{}}
}

// Name implements projector.Projection.
func (a *Assembler) Name() string { return Name }

// Subjects implements projector.Projection: model events, clock ticks and
// registry changes.
func (a *Assembler) Subjects() []string {
	return []string{"ts.model.>", "ts.ctl._system.clock", "ts.ctl._system.registry"}
}

// Apply implements projector.Projection.
func (a *Assembler) Apply(_ context.Context, tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	if !a.loaded {
		if err := a.restoreRegistry(tx); err != nil {
			return err
		}
	}
	switch b := ev.Body.(type) {
	case *events.Tick:
		return a.tick(tx, ev)
	case *events.RegistryChanged:
		return a.registryChanged(tx, b)
	}
	if ev.Response == "" {
		return fmt.Errorf("%w: %s without response id", events.ErrMissingField, ev.Kind)
	}
	rk, err := respKey(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	var r response
	found, err := load(tx, rk, &r)
	if err != nil {
		return err
	}
	if found && r.Status != "" {
		return nil // the response is decided: late events change nothing
	}
	if !found {
		r.Env = envOf(ev)
	}
	s := &step{a: a, tx: tx, ev: ev, seq: m.Seq, r: &r}
	if err := s.apply(); err != nil {
		return err
	}
	if err := store(tx, rk, &r); err != nil {
		return err
	}
	ok := openKey(ev.Tenant, ev.Response)
	if r.Status != "" {
		return tx.Delete(ok)
	}
	return tx.Set(ok, binary.BigEndian.AppendUint64(nil, uint64(ev.At)))
}

func envOf(ev *events.Event) envelope {
	return envelope{User: ev.User, Session: ev.Session, Run: ev.Run, Step: ev.Step}
}

// step is the application of one model event to one response.
type step struct {
	a   *Assembler
	tx  *projector.Tx
	ev  *events.Event
	seq uint64
	r   *response
}

func (s *step) apply() error {
	ev := s.ev
	switch b := ev.Body.(type) {
	case *events.ResponseStarted, *events.TextDelta, *events.InputRejected:
		return nil
	case *events.OutputItemAdded:
		if b.Type != events.ItemFunctionCall {
			return nil // server tools, text, reasoning: not client calls
		}
		c, key, err := s.open(b.Name, b.Index)
		if err != nil || c == nil {
			return err
		}
		if b.HasArguments {
			if err := s.appendArgs(c, key, b.Arguments); err != nil {
				return err
			}
		}
		return store(s.tx, key, c)
	case *events.ArgumentsDelta:
		c, key, err := s.open("", 0)
		if err != nil || c == nil {
			return err
		}
		if err := s.appendArgs(c, key, b.Delta); err != nil {
			return err
		}
		return store(s.tx, key, c)
	case *events.ArgumentsDone:
		return s.done("", b.Arguments, b.HasArguments, "")
	case *events.OutputItemDone:
		if b.Type != "" && b.Type != events.ItemFunctionCall {
			return nil
		}
		return s.done(b.Name, b.Arguments, b.HasArguments, b.Status)
	case *events.ItemAborted:
		key, err := callKey(ev.Tenant, ev.Response, ev.Item)
		if err != nil {
			return err
		}
		var c call
		if ok, err := load(s.tx, key, &c); err != nil || !ok || c.State != stateOpen {
			return err
		}
		return s.incomplete(&c, key, b.Reason, b.Detail)
	case *events.ResponseCompleted:
		return s.endResponse(events.StatusCompleted, events.ReasonStreamEnded, "the response completed before the call's completion signal", "", "")
	case *events.ResponseIncomplete:
		return s.endResponse(events.StatusIncomplete, b.Reason, "response incomplete: "+string(b.Reason), "", "")
	case *events.ResponseFailed:
		return s.endResponse(events.StatusFailed, events.ReasonStreamFailed, "response failed: "+b.Code+" "+b.Message, b.Code, b.Message)
	default:
		return fmt.Errorf("%w: assembler does not take %s", events.ErrBadInput, ev.Kind)
	}
}

// open returns the call of the event's item, creating it on first sight. A
// decided call comes back nil: nothing may change it any more.
func (s *step) open(name string, index int) (*call, []byte, error) {
	ev := s.ev
	if ev.Item == "" {
		return nil, nil, fmt.Errorf("%w: %s without item id", events.ErrMissingField, ev.Kind)
	}
	key, err := callKey(ev.Tenant, ev.Response, ev.Item)
	if err != nil {
		return nil, nil, err
	}
	var c call
	found, err := load(s.tx, key, &c)
	if err != nil {
		return nil, nil, err
	}
	if found {
		if c.State != stateOpen {
			return nil, nil, nil
		}
		if c.Name == "" {
			c.Name = name
		}
		if c.CallID == "" {
			c.CallID = ev.CallID
		}
		c.From.LastSeq = s.seq
		return &c, key, nil
	}
	c = call{Name: name, CallID: ev.CallID, Index: index, Order: s.r.Calls, Env: envOf(ev),
		From: events.Provenance{FirstSeq: s.seq, LastSeq: s.seq, OpenedAt: ev.At}}
	s.r.Calls++
	return &c, key, nil
}

// appendArgs stores a delta as its own row: linear in the bytes received.
func (s *step) appendArgs(c *call, key []byte, delta string) error {
	c.From.Deltas++
	c.From.Bytes += len(delta)
	if c.Overflow || delta == "" {
		return nil
	}
	if c.From.Bytes > s.a.cfg.ArgsBytesMax {
		c.Overflow = true // stop buffering; the partial stays for audit
		return nil
	}
	cp, err := chunkPrefix(s.ev.Tenant, s.ev.Response, s.ev.Item)
	if err != nil {
		return err
	}
	if err := s.tx.Set(chunkKey(cp, c.Chunks), []byte(delta)); err != nil {
		return err
	}
	c.Chunks++
	s.a.feedPreview(s.ev, c, delta)
	return nil
}

// buffered returns the call's argument bytes and deletes their rows.
func (s *step) buffered(tenant, resp, item string) ([]byte, error) {
	cp, err := chunkPrefix(tenant, resp, item)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	var keys [][]byte
	err = s.tx.Scan(cp, func(k, v []byte) error {
		buf.Write(v)
		keys = append(keys, append([]byte(nil), k...))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := s.tx.Delete(k); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// done handles a completion signal.
func (s *step) done(name, args string, hasArgs bool, status string) error {
	c, key, err := s.open(name, 0)
	if err != nil || c == nil {
		return err
	}
	if status == "incomplete" {
		return s.incomplete(c, key, events.ReasonTruncated, "the provider marked the item incomplete")
	}
	return s.decide(c, key, args, hasArgs)
}

// endResponse decides every call still open and the response itself.
func (s *step) endResponse(status events.ResponseStatus, reason events.Reason, detail, code, msg string) error {
	ev := s.ev
	prefix, err := callsPrefix(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	type open struct {
		key []byte
		c   call
	}
	var opens []open
	err = s.tx.Scan(prefix, func(k, v []byte) error {
		var c call
		if ok, err := load(s.tx, k, &c); err != nil || !ok {
			return err
		}
		if c.State == stateOpen {
			opens = append(opens, open{append([]byte(nil), k...), c})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range opens {
		if err := s.incomplete(&opens[i].c, opens[i].key, reason, detail); err != nil {
			return err
		}
	}
	s.r.Status = string(status)
	out := &events.ResponseOutcome{Status: status, Calls: s.r.Calls, ErrorCode: code, ErrorMessage: msg}
	if status != events.StatusCompleted {
		out.Reason = reason
	}
	subj, err := events.ResponseSubject(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	return s.tx.Emit(subj, s.event(events.ResponseOutcomeID(ev.Tenant, ev.Response), "", "", s.r.Env, out))
}

// event builds an emitted event with the response's identities.
func (s *step) event(id, item, callID string, env envelope, body events.Body) *events.Event {
	return &events.Event{ID: id, Tenant: s.ev.Tenant, User: env.User, Session: env.Session, Run: env.Run, Step: env.Step,
		Response: s.ev.Response, Item: item, CallID: callID, At: s.ev.At, Body: body}
}
