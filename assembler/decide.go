package assembler

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// decide turns a call with its completion signal into CallCompleted or
// CallRejected. args, when hasArgs, are the provider's authoritative full
// arguments; otherwise the buffered deltas are.
func (s *step) decide(ce *callEntry, key []byte, args string, hasArgs bool) error {
	ev, c := s.ev, &ce.row
	buf, err := s.buffered(ce, &c.From)
	if err != nil {
		return err
	}
	raw := buf
	if hasArgs {
		raw = []byte(args)
		c.From.Bytes = max(c.From.Bytes, len(raw))
	}
	if err := s.settle(ce, key); err != nil {
		return err
	}
	raw, deps, depReason, depDetail := s.dependencies(c, raw)
	// A built-in tool of the run driver (events.IsBuiltinTool) is not the
	// registry's: its arguments must be one JSON object, the driver checks
	// the rest and publishes the outcome. Not in a response whose client
	// runs its calls (passthrough): there the name is any other name.
	builtin := events.IsBuiltinTool(c.Name) && !s.re.row.ClientRuns
	out, coerced, repaired, reason, detail := s.a.validate(ev.Tenant, c, raw, builtin)
	if reason == "" && depReason != "" {
		reason, detail = depReason, depDetail
	}
	if reason == "" && s.re.row.ToolsOnly && !builtin && !slices.Contains(s.re.row.Tools, c.Name) {
		reason, detail = events.ReasonPermission, fmt.Sprintf("tool %s was not given to this run (it may call: %s)", c.Name, strings.Join(s.re.row.Tools, ", "))
	}
	subj, err := events.CallSubject(ev.Tenant, c.Name)
	if err != nil {
		return err
	}
	if reason != "" {
		c.Outcome = "rejected"
		if err := store(s.tx, key, c); err != nil {
			return err
		}
		return s.tx.Emit(subj, s.event(events.RejectedID(ev.Tenant, ev.Response, ev.Item), ev.Item, c.CallID, c.Env,
			&events.CallRejected{Name: c.Name, Index: c.Index, Reason: reason, Detail: detail, Arguments: auditBytes(raw, s.a.cfg.ArgsBytesMax), Order: c.Order, From: c.From}))
	}
	c.Outcome = "completed"
	after, err := s.serialAfter(c, deps)
	if err != nil {
		return err
	}
	if err := store(s.tx, key, c); err != nil {
		return err
	}
	return s.tx.Emit(subj, s.event(events.CompletedID(ev.Tenant, ev.Response, ev.Item), ev.Item, c.CallID, c.Env,
		&events.CallCompleted{Name: c.Name, Index: c.Index, Arguments: out, Coerced: coerced, Repaired: repaired, DependsOn: deps, Order: c.Order, From: c.From, After: after,
			ClientRuns: s.re.row.ClientRuns || builtin, Builtin: builtin}))
}

// settle marks a call decided, gives back its tenant's open call and
// drops its cache and preview state.
func (s *step) settle(ce *callEntry, key []byte) error {
	ce.row.State = stateDecided
	s.re.row.Decided++
	s.dirty = true
	s.a.uncache(ce.id)
	item := itemOf(key)
	s.re.noteCall(item, true)
	s.a.dropPreviewKey(s.ev.Tenant, s.ev.Response, item)
	return s.closed()
}

// incomplete decides a call that never got its completion signal.
func (s *step) incomplete(ce *callEntry, key []byte, reason events.Reason, detail string) error {
	ev, c := s.ev, &ce.row
	item := itemOf(key)
	partial, err := s.buffered(ce, &c.From)
	if err != nil {
		return err
	}
	if err := s.settle(ce, key); err != nil {
		return err
	}
	c.Outcome = "incomplete"
	if err := store(s.tx, key, c); err != nil {
		return err
	}
	subj, err := events.CallSubject(ev.Tenant, c.Name)
	if err != nil {
		return err
	}
	return s.tx.Emit(subj, s.event(events.IncompleteID(ev.Tenant, ev.Response, item), item, c.CallID, c.Env,
		&events.CallIncomplete{Name: c.Name, Index: c.Index, Reason: reason, Detail: detail, Partial: partial, Order: c.Order, From: c.From}))
}

// itemOf recovers the item id from a call key: tenant\0c\0resp\0item,
// each part escaped as projector.TenantKey escapes it (0x00 and 0x01 as
// 0x01 and the byte plus one), so no part holds a 0x00 and the item is
// unescaped here: it names the call in the events emitted and in the
// response's known calls, as the event's own item id does.
func itemOf(key []byte) string {
	p := bytes.SplitN(key, []byte{0}, 4)[3]
	if bytes.IndexByte(p, 0x01) < 0 {
		return string(p)
	}
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == 0x01 && i+1 < len(p) {
			i++
			out = append(out, p[i]-1)
			continue
		}
		out = append(out, p[i])
	}
	return string(out)
}

// validate applies the JSON rules, the size limit and the registry. The
// arguments must be JSON before anything else is judged: a call whose text
// is not JSON is invalid_json with the byte where it stops, even when it
// names no tool (a tagged call whose wrapper is not JSON), unless its
// tenant or the contract of the tool it names opted in to repair
// (repair.go), which may also find the name.
//
// builtin skips the registry (a built-in tool's call).
func (a *Assembler) validate(tenant string, c *call, raw []byte, builtin bool) ([]byte, []string, []string, events.Reason, string) {
	if c.Overflow || len(raw) > a.cfg.ArgsBytesMax {
		return nil, nil, nil, events.ReasonTooLarge, fmt.Sprintf("arguments exceed %d bytes", a.cfg.ArgsBytesMax)
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		trimmed = []byte("{}") // a no-argument tool streams "" (Anthropic, Responses)
	}
	// One pass reads the arguments: Compact checks them as json.Valid
	// does (the same scanner) while it copies them without insignificant
	// space; only arguments it refuses are repaired or judged.
	var out bytes.Buffer
	out.Grow(len(trimmed))
	var repaired []string
	if err := json.Compact(&out, trimmed); err != nil {
		if name, fixed, changes, ok := repairCall(c.Name, trimmed); ok && a.lenient(tenant, name) {
			c.Name, trimmed, repaired = name, fixed, changes
		}
		if repaired == nil {
			return nil, nil, nil, events.ReasonInvalidJSON, jsonErrorAt(trimmed)
		}
		out.Reset()
		if err := json.Compact(&out, trimmed); err != nil {
			return nil, nil, nil, events.ReasonInvalidJSON, err.Error()
		}
	}
	if c.Name == "" {
		return nil, nil, nil, events.ReasonUnknownTool, "the call names no tool"
	}
	if trimmed[0] != '{' {
		return nil, nil, nil, events.ReasonNotAnObject, "arguments must be one JSON object"
	}
	args := out.Bytes()
	if a.validator == nil || builtin {
		return args, nil, repaired, "", ""
	}
	v, coerced, reason, detail := a.validator.Validate(tenant, c.Name, args)
	if reason != "" {
		return nil, nil, nil, reason, detail
	}
	if v == nil {
		v = args
	}
	return v, coerced, repaired, "", ""
}

func auditBytes(raw []byte, limit int) []byte {
	if len(raw) > limit {
		return raw[:limit]
	}
	return raw
}

// tick times out responses silent for longer than IdleTimeout, by event
// time.
func (a *Assembler) tick(tx *projector.Tx, ev *events.Event) error {
	type idle struct{ tenant, resp string }
	var due []idle
	err := tx.Scan(prefixOpen, func(k, v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("assembler: corrupt open row %q", k)
		}
		last := int64(binary.BigEndian.Uint64(v))
		if ev.At-last >= int64(a.cfg.IdleTimeout) {
			rest := k[len(prefixOpen):]
			i := bytes.IndexByte(rest, 0)
			due = append(due, idle{string(rest[:i]), string(rest[i+1:])})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range due {
		synthetic := &events.Event{Tenant: d.tenant, Response: d.resp, At: ev.At}
		re, err := a.response(tx, synthetic)
		if err != nil {
			return err
		}
		if re == nil {
			continue
		}
		a.beforeResponse(respID{d.tenant, d.resp}, re)
		s := &step{a: a, tx: tx, ev: synthetic, re: re}
		if err := s.endResponse(events.StatusIncomplete, events.ReasonTimedOut,
			fmt.Sprintf("no completion within %v of the last event", a.cfg.IdleTimeout), "", ""); err != nil {
			return err
		}
		if err := s.finish(); err != nil {
			return err
		}
	}
	return nil
}

// registryChanged makes the registry of a change the one in force from
// this point of the log on, if Config.AcceptRegistry accepts it. The view
// keeps the change's event as it is in the log, so a restart decides the
// next change against the same registry and the same issue time.
func (a *Assembler) registryChanged(tx *projector.Tx, m *projector.Msg, ev *events.Event) error {
	if a.cfg.AcceptRegistry == nil {
		return nil
	}
	v, err := a.cfg.AcceptRegistry(a.validator, ev)
	if err != nil {
		return fmt.Errorf("%w: %w: %w", events.ErrBadInput, ErrInvalidRegistry, err)
	}
	a.validator = v
	return tx.Set(keyRegistry, m.Data)
}

// restoreRegistry takes the registry in force from the view. A row the
// accepter no longer accepts (the keys it trusts changed; a row written
// before registry changes were signed) leaves no registry in force, as
// replay of the same log would.
func (a *Assembler) restoreRegistry(tx *projector.Tx) error {
	a.loaded = true
	if a.cfg.AcceptRegistry == nil {
		return nil
	}
	data, ok, err := tx.Get(keyRegistry)
	if err != nil || !ok {
		return err
	}
	ev, err := events.Decode(data)
	if err == nil {
		a.validator, err = a.cfg.AcceptRegistry(nil, ev)
	}
	if err != nil {
		a.validator = nil
		a.log.Warn("registry of the view not accepted; no registry in force until the next change", "err", err)
	}
	return nil
}
