package memory

import (
	"fmt"
	"slices"
	"sort"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Erasure (docs/design.md invariant 8). A record's text is in the log only in
// events sealed under the record's own key (SealScope). Forgetting a
// record tombstones it in the view (Apply of an events.MemoryForgotten);
// the operator then destroys the keys of the ids the forgetting tombstoned
// (Forgotten) and writes an erasure tombstone, from which the projection's
// runner rebuilds the view: in that rebuild, as in every later replay, the
// record's events no longer open, and ApplyErased marks their ids erased.

// ApplyErased applies a memory event whose body can no longer be opened
// (events.ErrErased: its key was destroyed), given its envelope env. An
// observation or correction, sealed under a record's key, leaves the mark
// of an erased record — the id, when and by which event, never its text —
// unless the id already means something in the view (a record, a merged
// observation, a tombstone, an earlier mark). A later observation may use
// the id again; a correction of it is ErrForgotten. ok is false when env
// names no record (an event sealed under the user's key): there is
// nothing to mark, and the caller skips it. Errors come from w.
func (e *Engine) ApplyErased(w projector.Writer, env *events.Event) (ok bool, err error) {
	if env.Kind != events.KindMemoryObserved && env.Kind != events.KindMemoryCorrected || checkEnvelope(env) != nil {
		return false, nil
	}
	rec, err := events.ScopeRecord(env.Scope())
	if err != nil || rec == "" || len(rec) > IDBytesMax {
		return false, nil
	}
	if u, err := events.ScopeUser(env.Scope()); err != nil || u != env.User {
		return false, nil
	}
	k := keysFor(env.Tenant, env.User)
	_, known, err := w.Get(k.id(rec))
	if err != nil || known {
		return err == nil, err
	}
	return true, w.Set(k.id(rec), encode(&idEntry{Erased: true, At: env.At, Event: env.ID}))
}

// Forgotten returns the ids that the forgetting of id tombstoned, sorted:
// id, the records that carried its text and the observations merged into
// them; and with them every id of an earlier forgetting of a statement
// that had been merged into one of those records (its tombstone keeps the
// record's id), and so on. Their data keys (events.RecordScope) are what
// erasure destroys so that the forgotten text is unreadable in the log
// too. The earlier forgettings are erased again (their text was forgotten
// already): a forgetting left unerased (memory run) would otherwise open
// in the rebuild, where the record it was merged into no longer does, as
// a record of its own that later statements merge into, and its
// forgetting would take them, which the live view kept
// (TestErasingARecordErasesWhatWasMergedIntoItAndForgottenBefore). It
// returns none when id is not forgotten, and ErrNoTenant or ErrNoUser.
func (e *Engine) Forgotten(r projector.Reader, tenant, user, id string) ([]string, error) {
	k, err := owner(tenant, user)
	if err != nil {
		return nil, fmt.Errorf("memory: forgotten %q: %w", id, err)
	}
	if id, err = statementID(r, k, id); err != nil {
		return nil, err
	}
	var t idEntry
	if b, ok, err := r.Get(k.id(id)); err != nil || !ok {
		return nil, err
	} else if err := decodeInto(b, &t); err != nil || !t.Tomb {
		return nil, err
	}
	// each forgetting's ids, and the forgettings of statements merged into
	// a record before, by the record
	byEvent, into := map[string][]string{}, map[string][]string{}
	err = r.Scan(k.ids(), func(key, value []byte) error {
		var o idEntry
		if decodeInto(value, &o) != nil || !o.Tomb {
			return nil
		}
		byEvent[o.Event] = append(byEvent[o.Event], k.lastComponent(key))
		if o.Alias != "" && o.Event != t.Event {
			into[o.Alias] = append(into[o.Alias], o.Event)
		}
		return nil
	})
	out := slices.Clone(byEvent[t.Event])
	taken := map[string]bool{t.Event: true}
	for i := 0; i < len(out); i++ {
		for _, ev := range into[out[i]] {
			if !taken[ev] {
				taken[ev] = true
				out = append(out, byEvent[ev]...)
			}
		}
	}
	sort.Strings(out)
	return out, err
}
