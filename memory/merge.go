package memory

import (
	"math"
	"slices"
)

// Merges, and forgetting one (docs/design.md invariants 6 and 8). A
// statement that says what a record of its slot says is merged into it
// (reinforce): its id becomes an alias of the record, and the record gains
// a use, confidence and, if the statement is newer, its observed time.
// Forgetting the merged statement forgets that statement's text and nothing
// else: the record stays, as if the statement had never been said, which
// is what a replay makes of it once the statement's key is destroyed (its
// event no longer opens, so it was never merged).
//
// To undo a merge exactly, its alias entry keeps what the merge read and
// added (merge): the record version's confidence, observed time and
// open-endedness (read by recall only) before it, the statement's, and the
// order of the merges into the version. The version's confidence, observed
// time and open-endedness are made again from the first
// merge's "before" by the remaining merges in their order, with the same
// arithmetic as reinforce (so the result is the replay's to the bit), and
// the version and every later one (a correction carries the use count on)
// lose the use.
//
// That is exact only while the merge changed nothing but those counters
// (plain): no status (a record revived, made active again), no other
// record (a held lift confirmed, a ban ended, an older holder superseded),
// no end of validity (the sweep and the expiry index read it). Nor may a
// remaining merge that was not newer than the
// record be newer without the forgotten one and then change more than the
// observed time (newerChangesNothing), nor another record of the slot
// have been weighed against the observed time the forgotten statement
// gave (said between the record's first time and its time with it:
// weighedBetween). Where any of these holds, or the entry predates this
// (an alias with no merge kept), the statement is forgotten and the
// record is left as it was, still counting it: the view then differs from
// its replay until erasure's rebuild swaps the rebuilt view in
// (docs/design.md, Erasure).
//
// Forgetting the record with it, the other way to agree with a replay,
// would erase text the user did not ask to forget — the statements merged
// into that record and every statement read from the same sentences — and
// whether it happened would depend on what later erasures leave of the
// log, so one replay and the next would forget differently (tried:
// TestForgottenKeysEraseExactlyTheText then fails). A record consolidated
// from episodes (consolidate.go) is left as it was: its sources are
// episodes.

// merge is the value of an alias entry: what reinforcing a record version
// with a statement read and added.
type merge struct {
	Version int   `msgpack:"v"`
	Seq     int   `msgpack:"n"`           // the order of the merges into the record
	Plain   bool  `msgpack:"p,omitempty"` // it changed the version's counters alone
	Obs     int64 `msgpack:"o,omitempty"` // the version's observed time before the merge
	Open    bool  `msgpack:"e,omitempty"` // and whether it was open-ended
	SaidAt  int64 `msgpack:"s,omitempty"` // the statement's observed time
	// the statement's validity: what it would have set, said later
	SaidUntil int64 `msgpack:"su,omitempty"`
	SaidOpen  bool  `msgpack:"so,omitempty"`
	// the version's confidence before the merge, and the statement's
	Conf     float64 `msgpack:"c,omitempty"`
	SaidConf float64 `msgpack:"sc,omitempty"`
}

// reinforced is a record's confidence once a statement of confidence said
// says it again.
func reinforced(conf, said float64) float64 {
	return math.Min(0.99, 1-float64((1-conf)*float64(1-0.5*said)))
}

// aliased is one merge into a record: the merged statement's id and its
// entry.
type aliased struct {
	id string
	m  merge
}

// merges returns the merges kept for the record id, in their order; ok is
// false when an alias entry keeps none (written before merges were kept).
func (x *tx) merges(id string) (out []aliased, ok bool, err error) {
	ok = true
	err = x.w.Scan(x.k.aliases(id), func(key, value []byte) error {
		var m merge
		if len(value) == 0 || decodeInto(value, &m) != nil || m.Version == 0 {
			ok = false
			return nil
		}
		out = append(out, aliased{x.k.lastComponent(key), m})
		return nil
	})
	slices.SortFunc(out, func(a, b aliased) int { return a.m.Seq - b.m.Seq })
	return out, ok, err
}

// keepMerge writes the alias entry of n merged into h (its stored state
// before the merge; h2 after it).
func (x *tx) keepMerge(h, h2, n *Record) error {
	ms, _, err := x.merges(h.ID)
	if err != nil {
		return err
	}
	seq := 1
	if len(ms) > 0 {
		seq = ms[len(ms)-1].m.Seq + 1
	}
	plain := h2.Status == h.Status && len(h2.Supersedes) == len(h.Supersedes) &&
		h2.ValidUntil == h.ValidUntil && len(h.From) == 0
	m := merge{Version: h.Version, Seq: seq, Plain: plain, Obs: h.ObservedAt, Open: h.OpenEnded, SaidAt: n.ObservedAt,
		SaidUntil: n.ValidUntil, SaidOpen: n.OpenEnded, Conf: h.Confidence, SaidConf: n.Confidence}
	return x.w.Set(x.k.alias(h.ID, n.ID), encode(&m))
}

// unmerge takes the merged statement id (its entry e, an alias) out of
// the record it was merged into, as if it had never been said, where that
// can be done exactly; elsewhere the record is left as it was (see above).
// Either way the merges after it are numbered as if it had never been
// said, and its own entry is left for tombstone to delete.
func (x *tx) unmerge(id string, e *idEntry) error {
	h, err := x.head(e.Alias)
	if err != nil || h == nil || len(h.From) > 0 {
		return err // gone, or consolidated from episodes: left as it was
	}
	ms, ok, err := x.merges(e.Alias)
	if err != nil || !ok {
		return err
	}
	i := slices.IndexFunc(ms, func(a aliased) bool { return a.id == id })
	if i < 0 {
		return nil
	}
	rest, err := x.undo(h, ms, i)
	if err != nil {
		return err
	}
	seq := ms[i].m.Seq
	for _, a := range ms {
		if a.id == id {
			continue
		}
		if j := slices.IndexFunc(rest, func(r aliased) bool { return r.id == a.id }); j >= 0 {
			a = rest[j]
		}
		if a.m.Seq > seq {
			a.m.Seq--
		}
		if err := x.w.Set(x.k.alias(e.Alias, a.id), encode(&a.m)); err != nil {
			return err
		}
	}
	return nil
}

// undo takes merge ms[i] out of the record whose head is h, if that can be
// done exactly: the merged version's confidence, observed time and
// open-endedness made again from the merges left, and one use less there
// and in every later version. It returns the merges left of that version with what they read
// before them now, or none when nothing was undone.
func (x *tx) undo(h *Record, ms []aliased, i int) ([]aliased, error) {
	if !ms[i].m.Plain {
		return nil, nil
	}
	version := ms[i].m.Version
	var same []aliased // the merges into that version, in order
	for _, a := range ms {
		if a.m.Version == version {
			if !a.m.Plain {
				return nil, nil
			}
			same = append(same, a)
		}
	}
	v, err := x.load(h.ID, version)
	if err != nil || v == nil {
		return nil, err
	}
	conf, obs, open := same[0].m.Conf, same[0].m.Obs, same[0].m.Open
	lo := obs // the earliest observed time the version is weighed at
	var rest []aliased
	for _, a := range same {
		if a.id == ms[i].id {
			continue
		}
		newer := a.m.SaidAt > obs
		if newer && a.m.SaidAt <= a.m.Obs && !newerChangesNothing(v, a.m) {
			return nil, nil // said later than the record now, it would have changed more
		}
		a.m.Conf, a.m.Obs, a.m.Open = conf, obs, open
		conf = reinforced(conf, a.m.SaidConf)
		if newer {
			obs, open = a.m.SaidAt, a.m.SaidOpen
		}
		rest = append(rest, a)
	}
	if obs != v.ObservedAt {
		weighed, err := x.weighedBetween(v, min(lo, obs))
		if err != nil || weighed {
			return nil, err
		}
	}
	vs, err := x.versions(h.ID)
	if err != nil {
		return nil, err
	}
	for _, o := range vs {
		if o.Version < version {
			continue
		}
		o2 := clone(o)
		o2.UseCount--
		if o.Version == version {
			o2.Confidence, o2.ObservedAt, o2.OpenEnded = conf, obs, open
		}
		if err := x.save(o, o.Version == h.Version, o2, o.Version == h.Version); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// newerChangesNothing reports whether a statement merged into v as not
// newer than it (m) would, said later than v, have changed nothing but its
// observed time and whether it is open-ended: the same end of validity, v
// not held for confirmation (it would be confirmed), and v no lift (a lift
// said again ends the bans said before it; liftAgain).
func newerChangesNothing(v *Record, m merge) bool {
	return m.SaidUntil == v.ValidUntil && v.Status != StatusNeedsConfirmation &&
		!(v.Kind == KindConstraint && v.Polarity == Positive)
}

// weighedBetween reports whether another record of v's slot, now or
// before, was said between obs (v's observed time without a merged
// statement, or earlier) and v's observed time with it, both included:
// where it was filed, or what it superseded, was decided against the time
// the statement gave.
func (x *tx) weighedBetween(v *Record, obs int64) (bool, error) {
	if !v.Slotted() {
		return false, nil
	}
	lo, hi := min(obs, v.ObservedAt), max(obs, v.ObservedAt)
	holders, err := x.holders(v)
	if err != nil {
		return false, err
	}
	others := holders
	err = x.w.Scan(x.k.pastOf(v), func(key, value []byte) error {
		id := x.k.lastComponent(key)
		n, _ := uvarint(value)
		if id == v.ID {
			return nil
		}
		r, err := x.load(id, n)
		if err == nil && r != nil {
			others = append(others, r)
		}
		return err
	})
	if err != nil {
		return false, err
	}
	for _, o := range others {
		if o.ObservedAt >= lo && o.ObservedAt <= hi {
			return true, nil
		}
	}
	return false, nil
}
