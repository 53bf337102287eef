package memory

import (
	"bytes"
	"crypto/sha256"
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
// A merge that changed more than the counters (it revived a record,
// confirmed one held for confirmation, ended another, set a new end of
// validity) keeps a snapshot
// instead (snapshot, restore): the state before it of every record
// version its event saved, the quota's included, and a digest of the
// states of the user's records its event left. Forgetting the statement
// while the digest is the same sets each of them back, exactly: no later
// event changed a record of the user, and an event that reads a slot
// writes to it or adds a record. Otherwise it is left as it was, as
// above: a later event changed a record, another statement of its event
// saved, a record it changed had an end of validity before it, an end it
// set moved the expiry watermark where the replay's would not be, or a
// tenant quota may have changed another user's records.
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
	// a merge that changed more than the counters (not Plain): what it
	// changed of each record, as it was before (its snapshot), and the
	// digest of the user's records once its event was applied (restore)
	Before []state `msgpack:"b,omitempty"`
	After  []byte  `msgpack:"d,omitempty"`
	// the user's expiry watermark before the merge and after its event,
	// where the event's sweep left it as it was (Expiry)
	Expiry      bool  `msgpack:"x,omitempty"`
	ExpiryPrior int64 `msgpack:"xb,omitempty"`
	ExpiryAfter int64 `msgpack:"xa,omitempty"`
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
	if s := x.snap; s != nil && s.key == nil {
		s.key, s.m, s.bad = x.k.alias(h.ID, n.ID), m, s.bad || m.Plain // a plain merge needs none: undo
	}
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
	var rest []aliased
	restored, err := x.restore(ms[i].m)
	if err == nil && !restored {
		rest, err = x.undo(h, ms, i)
	}
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

// state is what a merge may change of a record version: all of it but
// what the version said (its text, slot and value), which only a new
// version changes. It names records by id, never by text, so a snapshot
// holds nothing that forgetting another record must erase.
type state struct {
	ID           string   `msgpack:"id"`
	Version      int      `msgpack:"v"`
	ObservedAt   int64    `msgpack:"ob"`
	ValidUntil   int64    `msgpack:"vu,omitempty"`
	EndedAt      int64    `msgpack:"end,omitempty"`
	Confidence   float64  `msgpack:"cf"`
	Status       Status   `msgpack:"s"`
	Supersedes   []string `msgpack:"sup,omitempty"`
	SupersededBy string   `msgpack:"by,omitempty"`
	UseCount     int      `msgpack:"use"`
	UsedAt       int64    `msgpack:"ua,omitempty"`
	OpenEnded    bool     `msgpack:"oe,omitempty"`
}

func stateOf(r *Record) state {
	return state{ID: r.ID, Version: r.Version, ObservedAt: r.ObservedAt, ValidUntil: r.ValidUntil, EndedAt: r.EndedAt,
		Confidence: r.Confidence, Status: r.Status, Supersedes: slices.Clone(r.Supersedes), SupersededBy: r.SupersededBy,
		UseCount: r.UseCount, UsedAt: r.UsedAt, OpenEnded: r.OpenEnded}
}

// with returns r (a version s names) in state s.
func (s state) with(r *Record) *Record {
	c := clone(r)
	c.ObservedAt, c.ValidUntil, c.EndedAt, c.Confidence = s.ObservedAt, s.ValidUntil, s.EndedAt, s.Confidence
	c.Status, c.Supersedes, c.SupersededBy = s.Status, slices.Clone(s.Supersedes), s.SupersededBy
	c.UseCount, c.UsedAt, c.OpenEnded = s.UseCount, s.UsedAt, s.OpenEnded
	return c
}

// snapshot is what a tx keeps of a merge that is not plain while its
// event is applied: the state before it of every record version it saved
// (those of the merge itself and of the quota after it). bad: it cannot be
// undone by restoring them — a statement of the same event changed the
// view before or after it, a save made or dropped a version or moved the
// head, or a tenant quota may have changed another user's records.
type snapshot struct {
	key       []byte // the merge's alias entry
	m         merge
	before    []state
	capturing bool
	saves     int // the tx's saves when the merge ended
	bad       bool
	// the event's sweep left the watermark as it was (prior)
	expiry bool
	prior  int64
}

// saved is told of every save of the tx (save's arguments).
func (s *snapshot) saved(old *Record, oldHead bool, nu *Record, nuHead bool) {
	if !s.capturing {
		return
	}
	if old == nil || nu == nil || !oldHead || !nuHead || old.ID != nu.ID || old.Version != nu.Version {
		s.bad = true
		return
	}
	if !slices.ContainsFunc(s.before, func(b state) bool { return b.ID == old.ID }) {
		s.before = append(s.before, stateOf(old))
	}
}

// startSnapshot begins the snapshot of a merge, before reinforce saves
// anything: only where the merge is the first statement of its event to
// change the view (its state before is then the one of the view before
// the event, but for the sweep, which a replay makes at the next event
// just the same), and only one merge a tx.
func (x *tx) startSnapshot() {
	if x.snap != nil {
		x.snap.bad = true
		return
	}
	x.snap = &snapshot{capturing: true, bad: x.saves > 0, expiry: x.swept == x.meta.Expiry, prior: x.meta.Expiry}
}

// endSnapshot ends the merge's part of the snapshot, once reinforce saved
// all it changes.
func (x *tx) endSnapshot() {
	if s := x.snap; s != nil && s.capturing {
		s.capturing, s.saves = false, x.saves
	}
}

// quotaSnapshot resumes the snapshot for the quotas enforced after the
// event's statements: their saves are the merge's too, if nothing else
// saved since it.
func (x *tx) quotaSnapshot() {
	if s := x.snap; s != nil {
		s.capturing = true
		s.bad = s.bad || s.key == nil || x.saves != s.saves || x.e.TenantQuota(x.tenant) > 0
	}
}

// keepSnapshot writes the merge's alias entry again with its snapshot and
// the digest of the view it left.
func (x *tx) keepSnapshot() error {
	s := x.snap
	x.snap = nil
	if s == nil || s.bad || s.key == nil || len(s.before) == 0 {
		return nil
	}
	d, err := x.digest()
	if err != nil {
		return err
	}
	s.m.Before, s.m.After = s.before, d
	s.m.Expiry, s.m.ExpiryPrior, s.m.ExpiryAfter = s.expiry, s.prior, x.meta.Expiry
	return x.w.Set(s.key, encode(&s.m))
}

// digest hashes the state of every current record version of the user
// (each on its own, combined by xor).
func (x *tx) digest() ([]byte, error) {
	d := make([]byte, digestBytes)
	err := x.w.Scan(x.k.ids(), func(key, value []byte) error {
		var e idEntry
		if err := decodeInto(value, &e); err != nil {
			return err
		}
		if e.Tomb || e.Version == 0 {
			return nil
		}
		r, err := x.load(x.k.lastComponent(key), e.Version)
		if err != nil || r == nil {
			return err
		}
		xorInto(d, stateDigest(r))
		return nil
	})
	return d, err
}

// digestBytes is the length of a digest.
const digestBytes = 16

func stateDigest(r *Record) []byte {
	s := stateOf(r)
	h := sha256.Sum256(encode(&s))
	return h[:digestBytes]
}

func xorInto(d, h []byte) {
	for i := range d {
		d[i] ^= h[i]
	}
}

// restore undoes a merge that is not plain from its snapshot: if the
// user's records are as its event left them (the digest is the same), no
// later event changed them, and none decided anything from them without
// changing them (every event that reads a slot writes to it or to a
// record it adds), so each record it saved is set back to its state
// before it: the view is the one before the event, which is what a
// replay makes of the log without the statement. Not where a record it
// changed had an end of validity before it, nor where one it set moved
// the expiry watermark in a way the replay's would not have. It reports
// whether it restored.
func (x *tx) restore(m merge) (bool, error) {
	if m.Plain || len(m.Before) == 0 || len(m.After) != digestBytes {
		return false, nil
	}
	d, err := x.digest()
	if err != nil {
		return false, err
	}
	if !bytes.Equal(d, m.After) {
		return false, nil
	}
	olds := make([]*Record, 0, len(m.Before))
	validity := false
	for _, s := range m.Before {
		cur, err := x.head(s.ID)
		if err != nil || cur == nil || cur.Version != s.Version || s.ValidUntil != 0 {
			return false, err
		}
		validity = validity || cur.ValidUntil != 0
		olds = append(olds, cur)
	}
	// an end of validity the merge set: the watermark goes back to where
	// it was, if no sweep moved it since and none would have without the
	// merge (its watermark then was after every event time so far)
	if validity && !(m.Expiry && x.meta.Expiry == m.ExpiryAfter &&
		(m.ExpiryPrior == 0 || m.ExpiryPrior > max(x.meta.Clock, x.at))) {
		return false, nil
	}
	for i, s := range m.Before {
		if err := x.save(olds[i], true, s.with(olds[i]), true); err != nil {
			return false, err
		}
	}
	if validity {
		x.meta.Expiry = m.ExpiryPrior
	}
	return true, nil
}
