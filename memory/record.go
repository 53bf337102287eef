package memory

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/internal/mpack"
	"github.com/toolstream/toolstream/memory/memapi"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// Kind, Polarity and Status are the memory service's (package memapi):
// what a record says about its user, whether it affirms or denies its
// slot, and where a record version stands.
type (
	Kind     = memapi.Kind
	Polarity = memapi.Polarity
	Status   = memapi.Status
)

const (
	KindPreference = memapi.KindPreference
	KindConstraint = memapi.KindConstraint
	KindFact       = memapi.KindFact
	KindEpisode    = memapi.KindEpisode

	Positive = memapi.Positive
	Negative = memapi.Negative

	StatusActive            = memapi.StatusActive
	StatusSuperseded        = memapi.StatusSuperseded
	StatusExpired           = memapi.StatusExpired
	StatusForgotten         = memapi.StatusForgotten
	StatusNeedsConfirmation = memapi.StatusNeedsConfirmation
	StatusCold              = memapi.StatusCold
)

// Record is one version of one memory of one user: the service's record
// (memapi.Record, whose fields and encodings it has) with the engine's
// methods.
//
// A record id names a statement; each correction writes a new version of
// it. Times are Unix nanoseconds of event time, never of a wall clock.
type Record memapi.Record

// Slotted reports whether the record takes a slot (subject and attribute).
// Episodes never do.
func (r *Record) Slotted() bool {
	return r.Kind != KindEpisode && r.Subject != "" && r.Attribute != ""
}

// Ref returns the record version's audit reference, "id@version".
func (r *Record) Ref() string { return ref(r.ID, r.Version) }

// touched is when the record was last said or recalled: recency and the
// eviction value decay from it.
func (r *Record) touched() int64 { return max(r.ObservedAt, r.UsedAt) }

// heldAt reports whether the version was in force at t, as it was known at t:
// learnt by then, inside its validity window and not yet ended.
func (r *Record) heldAt(t int64) bool {
	return r.LearnedAt <= t && r.ValidFrom <= t &&
		(r.ValidUntil == 0 || t < r.ValidUntil) && (r.EndedAt == 0 || t < r.EndedAt)
}

// validAt reports whether t is inside the record's validity window.
func (r *Record) validAt(t int64) bool {
	return r.ValidFrom <= t && (r.ValidUntil == 0 || t < r.ValidUntil)
}

func ref(id string, version int) string { return id + "@" + strconv.Itoa(version) }

// refID returns the id of a ref "id@version" (ids may contain '@').
func refID(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return s[:i]
	}
	return s
}

// String is the record's canonical one-line text form, used by dumps and
// tests.
func (r *Record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Ref(), r.Kind)
	if r.Slotted() {
		fmt.Fprintf(&b, " %s/%s", r.Subject, r.Attribute)
		if r.Value != "" {
			fmt.Fprintf(&b, "=%s", r.Value)
		}
		if r.Scope != "" {
			fmt.Fprintf(&b, " scope=%s", r.Scope)
		}
	}
	fmt.Fprintf(&b, " %s %s conf=%.2f use=%d", r.Polarity, r.Status, r.Confidence, r.UseCount)
	fmt.Fprintf(&b, " obs=%s learned=%s valid=[%s,%s)", fmtTime(r.ObservedAt), fmtTime(r.LearnedAt),
		fmtTime(r.ValidFrom), fmtOpen(r.ValidUntil))
	if r.UsedAt != 0 {
		fmt.Fprintf(&b, " used=%s", fmtTime(r.UsedAt))
	}
	if r.EndedAt != 0 {
		fmt.Fprintf(&b, " ended=%s", fmtTime(r.EndedAt))
	}
	if r.OpenEnded {
		b.WriteString(" open_ended")
	}
	if r.Permission != "" {
		fmt.Fprintf(&b, " perm=%s", r.Permission)
	}
	if r.Origin != "" && r.Origin != r.ID {
		fmt.Fprintf(&b, " origin=%s", r.Origin)
	}
	if r.Sentence != "" {
		fmt.Fprintf(&b, " sentence=%s", r.Sentence)
	}
	if r.Message != "" && r.Message != r.ID {
		fmt.Fprintf(&b, " message=%s", r.Message)
	}
	if r.Speaker != "" {
		fmt.Fprintf(&b, " speaker=%q", r.Speaker)
	}
	if len(r.From) > 0 {
		fmt.Fprintf(&b, " from=%s", strings.Join(r.From, ","))
	}
	if len(r.Supersedes) > 0 {
		fmt.Fprintf(&b, " supersedes=%s", strings.Join(r.Supersedes, ","))
	}
	if r.SupersededBy != "" {
		fmt.Fprintf(&b, " by=%s", r.SupersededBy)
	}
	fmt.Fprintf(&b, " src=%s %q", r.Source, r.Text)
	return b.String()
}

func fmtTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

func fmtOpen(ns int64) string {
	if ns == 0 {
		return "∞"
	}
	return fmtTime(ns)
}

// Key layout. Every key starts with "<tenant>/<user>/" (invariant 7), so one
// user's whole state is one contiguous key range and no scan of one user can
// reach another's keys. Tenants are [A-Za-z0-9_-] (events.ValidTenant); the
// user and every other component are escaped by esc, so '/' only ever
// separates components.
//
//	<t>/<u>/meta                               per-user counters and clock
//	<t>/<u>/rec/<id>/<version:%08d>            Record (msgpack), every version
//	<t>/<u>/ix/<term>/<id>                     posting of the current version
//	<t>/<u>/slot/<scope>/<subject>/<attr>/<id> the slot's current holders
//	<t>/<u>/past/<scope>/<subject>/<attr>/<id> the slot's other records (superseded, expired):
//	                                           a statement that says what one says again
//	                                           merges into it (observe)
//	<t>/<u>/val/<tier>/<value:16 hex>/<id>     active records by eviction value (tier 1: constraints)
//	<t>/<u>/exp/<valid_until:%020d>/<id>       records that will expire
//	<t>/<u>/cf/<id>                            records that need confirmation
//	<t>/<u>/id/<id>                            what an id is: a record (its current version),
//	                                           an observation merged into a record, or a
//	                                           tombstone (forgotten: time and event, no text)
//	<t>/<u>/alias/<record id>/<obs id>         observations merged into a record, with what
//	                                           the merge read and added (merge.go)
//	<t>/<u>/se/<sentence>/<id>                 records and merged observations that
//	                                           share the text of one sentence of a message
//	<t>/<u>/vec/<id>                           the vector of the record's current version
//	                                           (events.MemoryEmbedded), if one came
const (
	nsMeta  = "meta"
	nsRec   = "rec/"
	nsIx    = "ix/"
	nsSlot  = "slot/"
	nsPast  = "past/"
	nsVal   = "val/"
	nsExp   = "exp/"
	nsCf    = "cf/"
	nsID    = "id/"
	nsAlias = "alias/"
	nsSe    = "se/"
	nsVec   = "vec/"
)

// esc makes s safe as one key component: '/', '%' and control bytes become
// %XX, so components never contain the separator and distinct strings stay
// distinct.
func esc(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c == '%' || c < 0x20 || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '/' || c == '%' || c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

type keys struct{ prefix string } // "<tenant>/<esc(user)>/"

func keysFor(tenant, user string) keys { return keys{tenant + "/" + esc(user) + "/"} }

func (k keys) meta() []byte          { return []byte(k.prefix + nsMeta) }
func (k keys) recAll() []byte        { return []byte(k.prefix + nsRec) }
func (k keys) recs(id string) []byte { return []byte(k.prefix + nsRec + esc(id) + "/") }
func (k keys) rec(id string, v int) []byte {
	return fmt.Appendf(nil, "%s%s%s/%08d", k.prefix, nsRec, esc(id), v)
}
func (k keys) ixTerm(term string) []byte { return []byte(k.prefix + nsIx + esc(term) + "/") }
func (k keys) ix(term, id string) []byte { return []byte(k.prefix + nsIx + esc(term) + "/" + esc(id)) }
func (k keys) slotOf(r *Record) []byte {
	return []byte(k.prefix + nsSlot + esc(r.Scope) + "/" + esc(r.Subject) + "/" + esc(r.Attribute) + "/")
}
func (k keys) slot(r *Record) []byte { return append(k.slotOf(r), esc(r.ID)...) }
func (k keys) pastOf(r *Record) []byte {
	return []byte(k.prefix + nsPast + esc(r.Scope) + "/" + esc(r.Subject) + "/" + esc(r.Attribute) + "/")
}
func (k keys) past(r *Record) []byte { return append(k.pastOf(r), esc(r.ID)...) }
func (k keys) vals() []byte          { return []byte(k.prefix + nsVal) }
func (k keys) val(tier int, score float64, id string) []byte {
	return fmt.Appendf(nil, "%s%s%d/%016x/%s", k.prefix, nsVal, tier, sortableFloat(score), esc(id))
}
func (k keys) exps() []byte { return []byte(k.prefix + nsExp) }
func (k keys) exp(until int64, id string) []byte {
	return fmt.Appendf(nil, "%s%s%020d/%s", k.prefix, nsExp, until, esc(id))
}
func (k keys) cfs() []byte              { return []byte(k.prefix + nsCf) }
func (k keys) cf(id string) []byte      { return []byte(k.prefix + nsCf + esc(id)) }
func (k keys) id(id string) []byte      { return []byte(k.prefix + nsID + esc(id)) }
func (k keys) ids() []byte              { return []byte(k.prefix + nsID) }
func (k keys) aliases(to string) []byte { return []byte(k.prefix + nsAlias + esc(to) + "/") }
func (k keys) alias(to, id string) []byte {
	return []byte(k.prefix + nsAlias + esc(to) + "/" + esc(id))
}
func (k keys) sentence(label string) []byte { return []byte(k.prefix + nsSe + esc(label) + "/") }
func (k keys) se(label, id string) []byte {
	return []byte(k.prefix + nsSe + esc(label) + "/" + esc(id))
}
func (k keys) vecs() []byte         { return []byte(k.prefix + nsVec) }
func (k keys) vec(id string) []byte { return []byte(k.prefix + nsVec + esc(id)) }

// Tenant keys. A tenant with a quota (Engine.TenantQuota) keeps, besides
// its users' keys, the count and the eviction order of its users' active
// records under "<tenant>/%tenant/". No user's keys start there: esc
// writes every '%' of a user as %25, and "%te" is no escape. Nothing else
// of a user is kept there, and no text.
//
//	<t>/%tenant/meta                                    active records of all its users (tenantMeta)
//	<t>/%tenant/val/<tier>/<value:16 hex>/<user>/<id>   its users' active records by eviction value
const tenantComponent = "%tenant"

type tenantKeys struct{ prefix string } // "<tenant>/%tenant/"

func tenantKeysFor(tenant string) tenantKeys { return tenantKeys{tenant + "/" + tenantComponent + "/"} }

func (k tenantKeys) meta() []byte { return []byte(k.prefix + nsMeta) }
func (k tenantKeys) vals() []byte { return []byte(k.prefix + nsVal) }
func (k tenantKeys) val(tier int, score float64, user, id string) []byte {
	return fmt.Appendf(nil, "%s%s%d/%016x/%s/%s", k.prefix, nsVal, tier, sortableFloat(score), esc(user), esc(id))
}

// tenantMeta is the per-tenant counter of a tenant with a quota.
type tenantMeta struct {
	Active int `msgpack:"a"` // active records of all its users
}

// vector is a record version's vector (the value of a vec key).
type vector struct {
	Version int       `msgpack:"v"`
	Model   string    `msgpack:"m"`
	Vector  []float32 `msgpack:"x"`
}

// decodeVector decodes a vec key's value. A recall with a query vector
// reads every vector of the user, so the form encode writes (a map of
// v, m and x, x an array of float32) is read here directly, 20 times
// faster than by reflection; any other form, and anything
// unexpected, goes to msgpack as before, which decides what it means
// or which error it is.
func decodeVector(b []byte) (vector, error) {
	if v, ok := readVector(b); ok {
		return v, nil
	}
	var v vector
	err := decodeInto(b, &v)
	return v, err
}

// readVector reads b as encode writes a vector (a map of its three
// fields: v, m and x, the vector as an array of float32), or says it
// cannot; the primitives are internal/mpack's.
func readVector(b []byte) (v vector, ok bool) {
	n, off, ok := mpack.ReadMapLen(b, 0)
	if !ok || n != 3 {
		return vector{}, false
	}
	var seen [3]bool
	for range 3 {
		var key []byte
		if key, off, ok = mpack.ReadStr(b, off); !ok || len(key) != 1 {
			return vector{}, false
		}
		switch {
		case key[0] == 'v' && !seen[0]:
			var ver int64
			if ver, off, ok = mpack.ReadInt(b, off); !ok || ver < 0 || ver > math.MaxInt32 {
				return vector{}, false
			}
			v.Version, seen[0] = int(ver), true
		case key[0] == 'm' && !seen[1]:
			var m []byte
			if m, off, ok = mpack.ReadStr(b, off); !ok {
				return vector{}, false
			}
			v.Model, seen[1] = string(m), true
		case key[0] == 'x' && !seen[2]:
			var l int
			if l, off, ok = mpack.ReadArrayLen(b, off); !ok || l < 0 || l > (len(b)-off)/5 { // nil: msgpack's decoder decides
				return vector{}, false
			}
			x := make([]float32, l)
			for i := range x {
				if x[i], off, ok = mpack.ReadFloat32(b, off); !ok {
					return vector{}, false
				}
			}
			v.Vector, seen[2] = x, true
		default:
			return vector{}, false
		}
	}
	return v, off == len(b)
}

func (k keys) lastComponent(key []byte) string {
	i := bytes.LastIndexByte(key, '/')
	return unesc(string(key[i+1:]))
}

func unesc(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sortableFloat maps f to a uint64 whose order is f's order.
func sortableFloat(f float64) uint64 {
	u := math.Float64bits(f)
	if u>>63 == 0 {
		return u | 1<<63
	}
	return ^u
}

func unsortableFloat(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// meta is the per-user state: the clock (latest event time applied) and the
// counters BM25 and the quota need.
type meta struct {
	Clock  int64 `msgpack:"c"`
	Docs   int   `msgpack:"d"` // records with postings (current versions)
	Len    int   `msgpack:"l"` // sum of their document lengths
	Active int   `msgpack:"a"` // records counted by the quota
	// Expiry is at or before the earliest valid_until of the expiry
	// entries (0: none), so that an event sweeps only when one may be due.
	Expiry int64 `msgpack:"e,omitempty"`
}

// encode is msgpack with sorted map keys: the same value always gives the
// same bytes (invariant 6).
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("memory: encode %T: %v", v, err)) // plain structs: impossible
	}
	return buf.Bytes()
}

func decodeRecord(b []byte) (*Record, error) {
	var r Record
	if err := msgpack.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("memory: decode record: %w", err)
	}
	return &r, nil
}

func putUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func uvarint(b []byte) (int, bool) {
	v, n := binary.Uvarint(b)
	return int(v), n > 0
}

func decodeInto(b []byte, v any) error {
	if err := msgpack.Unmarshal(b, v); err != nil {
		return fmt.Errorf("memory: decode %T: %w", v, err)
	}
	return nil
}

// FormatEntry returns the canonical text form of one key and value of the
// memory state, for dumps and digests: the key as it is, then the decoded
// value. Values it does not know are shown in hex.
func FormatEntry(key, value []byte) string {
	k := string(key)
	parts := strings.SplitN(k, "/", 4)
	if len(parts) < 3 {
		return fmt.Sprintf("%s = %x", k, value)
	}
	rest := parts[2]
	if len(parts) == 4 {
		rest += "/" + parts[3]
	}
	if parts[1] == tenantComponent {
		return formatTenantEntry(k, rest, value)
	}
	switch {
	case rest == nsMeta:
		var m meta
		if msgpack.Unmarshal(value, &m) == nil {
			out := fmt.Sprintf("%s = clock=%s docs=%d len=%d active=%d", k, fmtTime(m.Clock), m.Docs, m.Len, m.Active)
			if m.Expiry != 0 {
				out += " next_expiry=" + fmtTime(m.Expiry)
			}
			return out
		}
	case strings.HasPrefix(rest, nsRec):
		if r, err := decodeRecord(value); err == nil {
			return k + " = " + r.String()
		}
	case strings.HasPrefix(rest, nsIx):
		if p, ok := decodePosting(value); ok {
			return fmt.Sprintf("%s = v%d %s tf=%d dl=%d", k, p.version, p.status, p.tf, p.dl)
		}
	case strings.HasPrefix(rest, nsVal):
		f := strings.SplitN(strings.TrimPrefix(rest, nsVal), "/", 3)
		if len(f) < 3 {
			break
		}
		if u, err := strconv.ParseUint(f[1], 16, 64); err == nil {
			v, _ := binary.Uvarint(value)
			return fmt.Sprintf("%s = v%d value=%.4f", k, v, unsortableFloat(u))
		}
	case strings.HasPrefix(rest, nsID):
		var e idEntry
		if msgpack.Unmarshal(value, &e) == nil {
			switch {
			case e.Tomb:
				return fmt.Sprintf("%s = forgotten at=%s by=%s", k, fmtTime(e.At), e.Event)
			case e.Erased:
				return fmt.Sprintf("%s = erased at=%s by=%s", k, fmtTime(e.At), e.Event)
			case e.Alias != "" && e.Sentence != "":
				return fmt.Sprintf("%s = merged into %s sentence=%s", k, e.Alias, e.Sentence)
			case e.Alias != "":
				return fmt.Sprintf("%s = merged into %s", k, e.Alias)
			default:
				return fmt.Sprintf("%s = v%d", k, e.Version)
			}
		}
	case strings.HasPrefix(rest, nsVec):
		var v vector
		if msgpack.Unmarshal(value, &v) == nil {
			return fmt.Sprintf("%s = v%d model=%s dim=%d", k, v.Version, v.Model, len(v.Vector))
		}
	case strings.HasPrefix(rest, nsAlias):
		var m merge
		if len(value) > 0 && msgpack.Unmarshal(value, &m) == nil {
			out := fmt.Sprintf("%s = into v%d #%d before obs=%s conf=%.2f said obs=%s conf=%.2f", k, m.Version, m.Seq,
				fmtTime(m.Obs), m.Conf, fmtTime(m.SaidAt), m.SaidConf)
			if m.Plain {
				out += " plain"
			}
			return out
		}
		return k + " ="
	case strings.HasPrefix(rest, nsSe):
		return k + " ="
	case strings.HasPrefix(rest, nsSlot), strings.HasPrefix(rest, nsPast), strings.HasPrefix(rest, nsExp), strings.HasPrefix(rest, nsCf):
		if v, n := binary.Uvarint(value); n > 0 {
			return fmt.Sprintf("%s = v%d", k, v)
		}
	}
	return fmt.Sprintf("%s = %x", k, value)
}

// idEntry says what an id of a user is: the current version of a record,
// an observation merged into another record by reinforcement (with the
// sentence it shares, if any), a tombstone — all that is left of a
// forgotten id: when and by which event, never its text — or the mark of
// an erased record: the log holds an event of the id whose key was
// destroyed (when and which event; its content is unreadable).
type idEntry struct {
	Version  int    `msgpack:"v,omitempty"`
	Alias    string `msgpack:"to,omitempty"`
	Sentence string `msgpack:"se,omitempty"`
	Tomb     bool   `msgpack:"x,omitempty"`
	Erased   bool   `msgpack:"er,omitempty"`
	At       int64  `msgpack:"at,omitempty"`
	Event    string `msgpack:"ev,omitempty"`
}

// --- storage of one record version and everything derived from it

type kv struct{ k, v []byte }

// contrib is what a record adds to the user's counters.
type contrib struct{ docs, len, active int }

// derive returns every entry stored for the record version (head: whether
// it is its id's current version) and its contribution to the counters.
func (x *tx) derive(r *Record, head bool) ([]kv, contrib) {
	out := []kv{{x.k.rec(r.ID, r.Version), encode(r)}}
	var c contrib
	if !head {
		return out, c
	}
	out = append(out, kv{x.k.id(r.ID), encode(&idEntry{Version: r.Version})})
	if r.Sentence != "" {
		out = append(out, kv{x.k.se(r.Sentence, r.ID), nil})
	}
	terms, dl := docTerms(r)
	for _, t := range terms {
		out = append(out, kv{x.k.ix(t.term, r.ID), encodePosting(postingOf(r, t.tf, dl))})
	}
	c.docs, c.len = 1, dl
	ver := putUvarint(nil, uint64(r.Version))
	holder := r.Status == StatusActive || r.Status == StatusNeedsConfirmation || r.Status == StatusCold
	if r.Slotted() && holder {
		out = append(out, kv{x.k.slot(r), ver})
	} else if r.Slotted() {
		out = append(out, kv{x.k.past(r), ver})
	}
	if r.Status == StatusActive {
		tier := 0 // constraints in force go cold last: they are what keeps the user safe
		if r.Kind == KindConstraint {
			tier = 1
		}
		out = append(out, kv{x.k.val(tier, x.e.valueOf(r), r.ID), ver})
		if x.e.TenantQuota(x.tenant) > 0 {
			out = append(out, kv{tenantKeysFor(x.tenant).val(tier, x.e.valueOf(r), x.user, r.ID), ver})
		}
		c.active = 1
	}
	if r.ValidUntil != 0 && holder {
		out = append(out, kv{x.k.exp(r.ValidUntil, r.ID), ver})
	}
	if r.Status == StatusNeedsConfirmation {
		out = append(out, kv{x.k.cf(r.ID), ver})
	}
	return out, c
}

// save replaces the stored state of one record version, old (nil: none),
// by nu (nil: delete it), writing only the entries that change. Every
// change of a record goes through save, so the derived entries and the
// counters never disagree with the records.
func (x *tx) save(old *Record, oldHead bool, nu *Record, nuHead bool) error {
	x.saves++
	if x.snap != nil {
		x.snap.saved(old, oldHead, nu, nuHead)
	}
	var okv, nkv []kv
	var oc, nc contrib
	if old != nil {
		okv, oc = x.derive(old, oldHead)
	}
	if nu != nil {
		nkv, nc = x.derive(nu, nuHead)
	}
	had := make(map[string][]byte, len(okv))
	for _, e := range okv {
		had[string(e.k)] = e.v
	}
	keep := make(map[string]bool, len(nkv))
	for _, e := range nkv {
		keep[string(e.k)] = true
	}
	for _, e := range okv {
		if !keep[string(e.k)] {
			if err := x.w.Delete(e.k); err != nil {
				return err
			}
		}
	}
	for _, e := range nkv {
		if v, ok := had[string(e.k)]; !ok || !bytes.Equal(v, e.v) {
			if err := x.w.Set(e.k, e.v); err != nil {
				return err
			}
		}
	}
	if nu != nil && nuHead && nu.ValidUntil != 0 && (x.meta.Expiry == 0 || nu.ValidUntil < x.meta.Expiry) &&
		(nu.Status == StatusActive || nu.Status == StatusNeedsConfirmation || nu.Status == StatusCold) {
		x.meta.Expiry = nu.ValidUntil
	}
	x.meta.Docs += nc.docs - oc.docs
	x.meta.Len += nc.len - oc.len
	x.meta.Active += nc.active - oc.active
	x.tenantDelta += nc.active - oc.active
	return nil
}

// --- reads

func (x *tx) versions(id string) ([]*Record, error) { return versions(x.w, x.k, id) }

// head returns the current version of record id, or nil.
func (x *tx) head(id string) (*Record, error) {
	e, err := x.idEntry(id)
	if err != nil || e == nil || e.Version == 0 {
		return nil, err
	}
	return x.load(id, e.Version)
}

func (x *tx) idEntry(id string) (*idEntry, error) {
	b, ok, err := x.w.Get(x.k.id(id))
	if err != nil || !ok {
		return nil, err
	}
	var e idEntry
	if err := decodeInto(b, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

func (x *tx) load(id string, v int) (*Record, error) { return load(x.w, x.k, id, v) }

func (x *tx) loadRef(r string) (*Record, error) {
	i := strings.LastIndexByte(r, '@')
	if i < 0 {
		return nil, nil
	}
	v, err := strconv.Atoi(r[i+1:])
	if err != nil {
		return nil, nil
	}
	return x.load(r[:i], v)
}

// versions returns every stored version of id, oldest first.
func versions(r projector.Reader, k keys, id string) ([]*Record, error) {
	var out []*Record
	err := r.Scan(k.recs(id), func(_, value []byte) error {
		rec, err := decodeRecord(value)
		if err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}

func load(r projector.Reader, k keys, id string, v int) (*Record, error) {
	b, ok, err := r.Get(k.rec(id, v))
	if err != nil || !ok {
		return nil, err
	}
	return decodeRecord(b)
}

func clone(r *Record) *Record {
	c := *r
	c.Supersedes = slices.Clone(r.Supersedes)
	return &c
}

func withStatus(r *Record, s Status) *Record {
	c := clone(r)
	c.Status = s
	return c
}

func formatTenantEntry(k, rest string, value []byte) string {
	switch {
	case rest == nsMeta:
		var m tenantMeta
		if msgpack.Unmarshal(value, &m) == nil {
			return fmt.Sprintf("%s = tenant active=%d", k, m.Active)
		}
	case strings.HasPrefix(rest, nsVal):
		f := strings.SplitN(strings.TrimPrefix(rest, nsVal), "/", 3)
		if len(f) < 3 {
			break
		}
		if u, err := strconv.ParseUint(f[1], 16, 64); err == nil {
			v, _ := binary.Uvarint(value)
			return fmt.Sprintf("%s = v%d value=%.4f", k, v, unsortableFloat(u))
		}
	}
	return fmt.Sprintf("%s = %x", k, value)
}
