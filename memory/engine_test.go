package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/cockroachdb/pebble/v2"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// The datadriven files in testdata/ are named for the behaviour they show.
// Commands:
//
//	reset [quota=N] [budget=N] [halflife=D] [review=D] [tenant_review=(T:D,…)] [cold=D]
//	      [tenant_quota=N] [tenant_quotas=(T:N,…)]
//	                                           a fresh Pebble store and engine
//	apply [tenant=T] [user=U]                  JSON lines of ops, each its own event and batch
//	                                           (tenant or user "-" means none):
//	  {"op":"observe|correct|forget|message","id":…,"at":RFC3339,"event":…,"tenant":…,"user":…,
//	   "kind":…,"subject":…,"attribute":…,"value":…,"polarity":…,"scope":…,"permission":…,
//	   "text":…,"ttl":"72h","valid_from":RFC3339,"valid_until":RFC3339,"confidence":…,"expected_version":…}
//	recall [tenant=T] [user=U] [k=N] [at=RFC3339] [as_of=RFC3339] [history] [scopes=(a,b)] [tokens=N]
//	                                          the query text is the input
//	list [tenant=T] [user=U] [inactive]
//	history id=ID [tenant=T] [user=U]
//	get id=ID [tenant=T] [user=U]
//	dump [prefix=P]                            every key, canonical text form
//	absent                                     each input line must occur in no key or value
//	extract [lang=en|zh]                       the input is a user message; one line per observation
//	                                           the RuleExtractor reads from it (testdata/extract/)
//	say id=M [at=RFC3339]                      the input is a user message, written as the service
//	                                           writes it (Engine.MessageEvents): a record per line
//	forgotten id=ID                            the ids a forgetting of ID tombstoned (Engine.Forgotten)
//	erase ids=(A,B) [until=N]                  destroy the keys of records A, B (SealScope) and
//	                                           rebuild the store from the events so far (the first
//	                                           N), as a runner does at an erasure tombstone
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if filepath.Base(filepath.Dir(path)) == "conformance" {
			return // a recorded history (TestConformance)
		}
		h := newHarness(t, Config{})
		datadriven.RunTest(t, path, h.run)
	})
}

type harness struct {
	t      *testing.T
	e      *Engine
	s      *pebbleStore
	count  int
	log    []*events.Event // every event applied, in order: what a rebuild replays
	erased map[string]bool // destroyed key scopes
}

func newHarness(t *testing.T, cfg Config) *harness {
	return &harness{t: t, e: NewEngine(cfg, nil), s: newPebbleStore(t)}
}

// op is one line of an apply command.
type op struct {
	Op              string  `json:"op"`
	ID              string  `json:"id"`
	Event           string  `json:"event"`
	At              string  `json:"at"`
	Tenant          string  `json:"tenant"`
	User            string  `json:"user"`
	Kind            string  `json:"kind"`
	Subject         string  `json:"subject"`
	Attribute       string  `json:"attribute"`
	Value           string  `json:"value"`
	Polarity        string  `json:"polarity"`
	Scope           string  `json:"scope"`
	Permission      string  `json:"permission"`
	Text            string  `json:"text"`
	TTL             string  `json:"ttl"`
	ValidFrom       string  `json:"valid_from"`
	ValidUntil      string  `json:"valid_until"`
	Confidence      float64 `json:"confidence"`
	ExpectedVersion int     `json:"expected_version"`
}

func parseTime(t testing.TB, s string) int64 {
	if s == "" {
		return 0
	}
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return tm.UnixNano()
}

// event builds the event of one op.
func (o op) event(t testing.TB, n int, tenant, user string) *events.Event {
	if o.Tenant != "" {
		tenant = o.Tenant
	}
	if o.User != "" {
		user = o.User
	}
	if tenant == "-" {
		tenant = ""
	}
	if user == "-" {
		user = ""
	}
	id := o.Event
	if id == "" {
		id = fmt.Sprintf("e%d", n)
	}
	obs := events.Observation{ID: o.ID, Kind: o.Kind, Subject: o.Subject, Attribute: o.Attribute, Value: o.Value,
		Polarity: o.Polarity, Scope: o.Scope, Permission: o.Permission, Text: o.Text, Confidence: o.Confidence,
		ValidFrom: parseTime(t, o.ValidFrom), ValidUntil: parseTime(t, o.ValidUntil)}
	if o.TTL != "" {
		d, err := time.ParseDuration(o.TTL)
		if err != nil {
			t.Fatalf("ttl %q: %v", o.TTL, err)
		}
		obs.TTL = int64(d)
	}
	ev := &events.Event{ID: id, Tenant: tenant, User: user, At: parseTime(t, o.At)}
	switch o.Op {
	case "observe":
		ev.Body = &events.MemoryObserved{Observation: obs}
	case "correct":
		ev.Body = &events.MemoryCorrected{Observation: obs, ExpectedVersion: o.ExpectedVersion}
	case "forget":
		ev.Body = &events.MemoryForgotten{ID: o.ID}
	case "message":
		ev.Body = &events.UserMessage{ID: o.ID, Text: o.Text}
	default:
		t.Fatalf("unknown op %q", o.Op)
	}
	ev.Kind = ev.Body.Kind()
	return ev
}

func strArg(d *datadriven.TestData, key, def string) string {
	if a, ok := d.Arg(key); ok && len(a.Vals) > 0 {
		return a.Vals[0]
	}
	return def
}

func intArg(t *testing.T, d *datadriven.TestData, key string, def int) int {
	s := strArg(d, key, "")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, s, err)
	}
	return n
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	tenant, user := strArg(d, "tenant", "acme"), strArg(d, "user", "u1")
	switch d.Cmd {
	case "reset":
		cfg := Config{QuotaPerUser: intArg(t, d, "quota", 0), RecallBudgetBytes: intArg(t, d, "budget", 0),
			QuotaPerTenant: intArg(t, d, "tenant_quota", 0)}
		if a, ok := d.Arg("tenant_quotas"); ok {
			cfg.TenantQuota = map[string]int{}
			for _, v := range a.Vals {
				tn, ns, _ := strings.Cut(v, ":")
				n, err := strconv.Atoi(ns)
				if err != nil {
					t.Fatal(err)
				}
				cfg.TenantQuota[tn] = n
			}
		}
		if s := strArg(d, "halflife", ""); s != "" {
			hl, err := time.ParseDuration(s)
			if err != nil {
				t.Fatal(err)
			}
			cfg.HalfLife = hl
		}
		if s := strArg(d, "review", ""); s != "" {
			r, err := time.ParseDuration(s)
			if err != nil {
				t.Fatal(err)
			}
			cfg.ReviewAfter = r
		}
		if s := strArg(d, "cold", ""); s != "" {
			c, err := time.ParseDuration(s)
			if err != nil {
				t.Fatal(err)
			}
			cfg.ColdAfter = c
		}
		if a, ok := d.Arg("tenant_review"); ok {
			cfg.TenantReviewAfter = map[string]time.Duration{}
			for _, v := range a.Vals {
				tn, ds, _ := strings.Cut(v, ":")
				r, err := time.ParseDuration(ds)
				if err != nil {
					t.Fatal(err)
				}
				cfg.TenantReviewAfter[tn] = r
			}
		}
		*h = *newHarness(t, cfg)
		return "ok"
	case "apply":
		var out strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var o op
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			h.count++
			ev := o.event(t, h.count, tenant, user)
			h.log = append(h.log, ev)
			if err := h.s.apply(h.e, ev); err != nil {
				fmt.Fprintf(&out, "%s %s %s: rejected: %v\n", ev.ID, o.Op, o.ID, err)
			} else {
				fmt.Fprintf(&out, "%s %s %s: ok\n", ev.ID, o.Op, o.ID)
			}
		}
		return out.String()
	case "recall":
		q := Query{Tenant: tenant, User: user, Text: strings.TrimSpace(d.Input), K: intArg(t, d, "k", 0),
			At: parseTime(t, strArg(d, "at", "")), AsOf: parseTime(t, strArg(d, "as_of", "")), History: d.HasArg("history"),
			BudgetTokens: intArg(t, d, "tokens", 0)}
		if a, ok := d.Arg("scopes"); ok {
			q.Scopes = a.Vals
		}
		res, err := h.e.Recall(h.s.reader(), q)
		if err != nil {
			return "error: " + err.Error()
		}
		return formatResult(res)
	case "list":
		recs, err := h.e.List(h.s.reader(), tenant, user, d.HasArg("inactive"))
		if err != nil {
			return "error: " + err.Error()
		}
		return formatRecords(recs)
	case "in_force":
		recs, err := h.e.InForce(h.s.reader(), tenant, user, parseTime(t, strArg(d, "as_of", "")))
		if err != nil {
			return "error: " + err.Error()
		}
		return formatRecords(recs)
	case "history":
		recs, err := h.e.History(h.s.reader(), tenant, user, strArg(d, "id", ""))
		if err != nil {
			return "error: " + err.Error()
		}
		return formatRecords(recs)
	case "get":
		r, err := h.e.Get(h.s.reader(), tenant, user, strArg(d, "id", ""))
		if err != nil {
			return "error: " + err.Error()
		}
		if len(r.MergedFrom) > 0 {
			return r.String() + "\nmerged from: " + strings.Join(r.MergedFrom, ", ")
		}
		return r.String()
	case "dump":
		return dumpReader(h.s.reader(), strArg(d, "prefix", ""))
	case "absent":
		var out strings.Builder
		for _, w := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			w = strings.TrimSpace(w)
			if w == "" {
				continue
			}
			if where, ok := rawContains(h.s.reader(), []byte(strings.ToLower(w))); ok {
				fmt.Fprintf(&out, "FOUND %q in %s\n", w, where)
			} else {
				fmt.Fprintf(&out, "absent %q\n", w)
			}
		}
		return out.String()
	case "extract":
		return extractCmd(t, d)
	case "say":
		evs, err := h.e.MessageEvents(tenant, user, strArg(d, "id", ""), d.Input, parseTime(t, strArg(d, "at", "")))
		if err != nil {
			return "error: " + err.Error()
		}
		var out strings.Builder
		for _, ev := range evs {
			h.log = append(h.log, ev)
			obs, _ := events.As[*events.MemoryObserved](ev)
			fmt.Fprintf(&out, "%s %s", obs.ID, obsString(obs.Observation))
			if obs.Sentence != "" {
				fmt.Fprintf(&out, " sentence=%s", obs.Sentence)
			}
			if err := h.s.apply(h.e, ev); err != nil {
				fmt.Fprintf(&out, ": rejected: %v\n", err)
			} else {
				fmt.Fprintf(&out, " %q: ok\n", obs.Text)
			}
		}
		return out.String()
	case "forgotten":
		ids, err := h.e.Forgotten(h.s.reader(), tenant, user, strArg(d, "id", ""))
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprint(ids)
	case "erase":
		if h.erased == nil {
			h.erased = map[string]bool{}
		}
		if a, ok := d.Arg("ids"); ok {
			for _, id := range a.Vals {
				h.erased[events.RecordScope(user, id)] = true
			}
		}
		return h.rebuild(t, intArg(t, d, "until", len(h.log)))
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return ""
}

// rebuild replays the first n events of the log into a fresh store, as a
// runner does at an erasure tombstone: an event sealed under a destroyed
// key does not open, and only its envelope reaches the projection.
func (h *harness) rebuild(t *testing.T, n int) string {
	s := newPebbleStore(t)
	var out strings.Builder
	for _, ev := range h.log[:n] {
		if scope := SealScope(ev); scope != "" && h.erased[scope] {
			env := *ev
			env.Kind, env.Body, env.Sealed = ev.Body.Kind(), nil, scope+"#k1"
			b := s.db.NewIndexedBatch()
			ok, err := h.e.ApplyErased(rw{r: b, b: b}, &env)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(pebble.NoSync); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s erased (marked: %v)\n", ev.ID, ok)
			continue
		}
		_ = s.apply(h.e, ev) // a rejection is the same as it was
	}
	h.s = s
	return out.String()
}

// brief is a record's short form for test output.
func brief(r Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Ref(), r.Kind)
	if r.Slotted() {
		fmt.Fprintf(&b, " %s/%s", r.Subject, r.Attribute)
		if r.Value != "" {
			fmt.Fprintf(&b, "=%s", r.Value)
		}
		fmt.Fprintf(&b, " %s", r.Polarity)
	}
	fmt.Fprintf(&b, " %s", r.Status)
	if r.Permission != "" {
		fmt.Fprintf(&b, " perm=%s", r.Permission)
	}
	if len(r.Supersedes) > 0 {
		fmt.Fprintf(&b, " supersedes=%s", strings.Join(r.Supersedes, ","))
	}
	if r.SupersededBy != "" {
		fmt.Fprintf(&b, " by=%s", r.SupersededBy)
	}
	if r.UseCount > 1 {
		fmt.Fprintf(&b, " use=%d", r.UseCount)
	}
	fmt.Fprintf(&b, " %q", r.Text)
	return b.String()
}

func formatRecords(recs []Record) string {
	if len(recs) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(brief(r))
		b.WriteByte('\n')
	}
	return b.String()
}

func formatResult(res Result) string {
	var b strings.Builder
	b.WriteString("records:\n")
	for _, h := range res.Records {
		fmt.Fprintf(&b, "  %s\n", brief(h.Record))
	}
	if len(res.Conflicts) > 0 {
		b.WriteString("conflicts:\n")
		for _, h := range res.Conflicts {
			fmt.Fprintf(&b, "  %s\n", brief(h.Record))
		}
	}
	return b.String()
}

// --- randomized histories: determinism, replay, consistency, isolation

var (
	genFoods  = []string{"spicy food", "sushi", "peanuts", "coffee", "tea", "garlic", "seafood", "pizza", "辣", "花生"}
	genCities = []string{"Paris", "Berlin", "Rome", "Oslo", "Lisbon"}
	genWords  = strings.Fields(`garden trip lake mountain concert museum birthday sister brother dog cat
		budget meeting project deadline novel movie guitar piano marathon bicycle weekend holiday
		hospital doctor school exam recipe market beach river castle train flight hotel 2023 2024 42`)
)

// genEvents returns a random but reproducible history of memory events of a
// few users of two tenants: statements that supersede, reinforce, arrive
// late or at the same time, episodes, TTLs, permissions, corrections (some
// stale) and forgets. Every text carries a unique marker word "zqNq".
func genEvents(seed uint64, n int) []*events.Event {
	r := rand.New(rand.NewPCG(seed, 7))
	owners := [][2]string{{"acme", "u1"}, {"acme", "u2"}, {"beta", "u1"}}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	var ids [][]string = make([][]string, len(owners))
	var out []*events.Event
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	for i := 0; i < n; i++ {
		o := r.IntN(len(owners))
		ev := &events.Event{ID: fmt.Sprintf("ev%d", i), Tenant: owners[o][0], User: owners[o][1],
			At: base + int64(r.IntN(60))*int64(time.Hour)*12}
		marker := fmt.Sprintf("zq%dq", i)
		id := fmt.Sprintf("r%d", i)
		switch k := r.IntN(100); {
		case k < 45:
			var text string
			switch r.IntN(7) {
			case 0:
				text = "I love " + pick(genFoods)
			case 1:
				text = "I hate " + pick(genFoods)
			case 2:
				text = "I can't eat " + pick(genFoods) + " these days"
			case 3:
				text = "I can eat " + pick(genFoods) + " again"
			case 4:
				text = "I am allergic to " + pick(genFoods)
			case 5:
				text = "I live in " + pick(genCities)
			default:
				text = "I love " + pick(genFoods) + ". I live in " + pick(genCities)
			}
			if strings.ContainsAny(text, "辣花") {
				text = "我不能吃" + pick([]string{"辣", "花生"}) + "。" + marker
			} else {
				text += ". Note " + marker
			}
			ev.Body = &events.UserMessage{ID: id, Text: text}
			ids[o] = append(ids[o], id)
		case k < 62:
			text := fmt.Sprintf("We talked about the %s and the %s %s", pick(genWords), pick(genWords), marker)
			obs := events.Observation{ID: id, Kind: "episode", Text: text}
			if r.IntN(5) == 0 {
				obs.Permission = "hr"
			}
			ev.Body = &events.MemoryObserved{Observation: obs}
			ids[o] = append(ids[o], id)
		case k < 72:
			obs := events.Observation{ID: id, Kind: pick([]string{"preference", "constraint", "fact"}),
				Subject: "food", Attribute: pick([]string{"spicy", "sushi", "garlic"}),
				Polarity: pick([]string{"positive", "negative"}), Text: "about food " + marker,
				TTL: int64(r.IntN(4)) * int64(24*time.Hour), Confidence: float64(r.IntN(10)) / 10}
			ev.Body = &events.MemoryObserved{Observation: obs}
			ids[o] = append(ids[o], id)
		case k < 84 && len(ids[o]) > 0:
			target := pick(ids[o])
			ev.Body = &events.MemoryCorrected{ExpectedVersion: 1 + r.IntN(2),
				Observation: events.Observation{ID: target, Text: "I live in " + pick(genCities) + " " + marker}}
		case k < 92 && len(ids[o]) > 0:
			ev.Body = &events.MemoryForgotten{ID: pick(ids[o])}
		case len(ids[o]) > 0:
			// the same id again: a repeat, or another content (refused)
			ev.Body = &events.MemoryObserved{Observation: events.Observation{ID: pick(ids[o]), Kind: "episode", Text: "again " + marker}}
		default:
			ev.Body = &events.UserMessage{ID: id, Text: "Hello " + marker}
			ids[o] = append(ids[o], id)
		}
		ev.Kind = ev.Body.Kind()
		out = append(out, ev)
	}
	return out
}

type applier interface {
	apply(e *Engine, ev *events.Event) error
}

// applyAll applies evs and returns the outcome of each.
func applyAll(t testing.TB, e *Engine, s applier, evs []*events.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		err := s.apply(e, ev)
		if err != nil && !errors.Is(err, events.ErrBadInput) {
			t.Fatalf("apply %s: %v", ev.ID, err)
		}
		fmt.Fprintf(&b, "%s: %v\n", ev.ID, err)
	}
	return b.String()
}

func TestDeterminismAcrossStores(t *testing.T) {
	evs := genEvents(1, 600)
	e := NewEngine(Config{QuotaPerUser: 40}, nil)
	a, b, c := newPebbleStore(t), newPebbleStore(t), newMapStore()
	outA := applyAll(t, e, a, evs)
	outB := applyAll(t, e, b, evs)
	outC := applyAll(t, e, c, evs)
	if outA != outB || outA != outC {
		t.Fatal("outcomes differ between stores")
	}
	dA, dB, dC := dumpReader(a.reader(), ""), dumpReader(b.reader(), ""), dumpReader(c, "")
	if dA != dB || dA != dC {
		t.Fatalf("dumps differ:\n%s", firstDiff(dA, dC))
	}
	if rawDump(a.reader()) != rawDump(c) {
		t.Fatal("stored bytes differ between Pebble and the map store")
	}
}

// TestRedeliveryIsNoop applies every event twice: the state is as if once.
func TestRedeliveryIsNoop(t *testing.T) {
	evs := genEvents(3, 400)
	e := NewEngine(Config{QuotaPerUser: 30}, nil)
	once, twice := newMapStore(), newMapStore()
	applyAll(t, e, once, evs)
	for _, ev := range evs {
		applyAll(t, e, twice, []*events.Event{ev, ev})
	}
	if a, b := dumpReader(once, ""), dumpReader(twice, ""); a != b {
		t.Fatalf("redelivery changed the state:\n%s", firstDiff(a, b))
	}
}

// TestWritesStayInTheirTenant checks invariant 7 on every write: each key an
// event writes starts with its own tenant and user; with a tenant quota,
// with its own tenant (the tenant's keys, and a record of another user of
// the tenant that its quota turns cold).
func TestWritesStayInTheirTenant(t *testing.T) {
	t.Run("user", func(t *testing.T) { writesStayIn(t, Config{QuotaPerUser: 20}, true) })
	t.Run("tenant quota", func(t *testing.T) { writesStayIn(t, Config{QuotaPerUser: 20, QuotaPerTenant: 25}, false) })
}

func writesStayIn(t *testing.T, cfg Config, ownUser bool) {
	e := NewEngine(cfg, nil)
	s := newMapStore()
	for _, ev := range genEvents(4, 500) {
		tx := &mapTx{base: s, w: map[string][]byte{}, del: map[string]bool{}}
		rec := &recorder{Writer: tx}
		err := e.Apply(rec, ev)
		prefix := keysFor(ev.Tenant, ev.User).prefix
		if !ownUser {
			prefix = ev.Tenant + "/"
		}
		for _, k := range rec.keys {
			if !strings.HasPrefix(k, prefix) {
				t.Fatalf("%s of %s/%s wrote %q", ev.ID, ev.Tenant, ev.User, k)
			}
		}
		if err != nil {
			if len(rec.keys) > 0 {
				t.Fatalf("%s was refused (%v) but wrote %q", ev.ID, err, rec.keys)
			}
			continue
		}
		s.commit(tx)
	}
}

// TestStateIsConsistent rebuilds every derived entry and counter from the
// records of a random history and compares them with what is stored: no
// orphan posting, slot, quota, expiry or conflict entry, none missing.
func TestStateIsConsistent(t *testing.T) {
	for _, quota := range []int{-1, 10} {
		e := NewEngine(Config{QuotaPerUser: quota}, nil)
		s := newMapStore()
		applyAll(t, e, s, genEvents(5, 700))
		checkConsistent(t, e, s)
	}
}

func checkConsistent(t *testing.T, e *Engine, s *mapStore) {
	t.Helper()
	owners := map[string]bool{}
	for k := range s.m {
		parts := strings.SplitN(k, "/", 3)
		owners[parts[0]+"/"+parts[1]] = true
	}
	tenantWant := map[string]map[string]string{} // what each tenant's keys must be
	tenantActive := map[string]int{}
	for o := range owners {
		tenant, user, _ := strings.Cut(o, "/")
		if tenantWant[tenant] == nil {
			tenantWant[tenant] = map[string]string{}
		}
		if user == tenantComponent {
			continue
		}
		x := &tx{e: e, k: keysFor(tenant, unesc(user)), tenant: tenant, user: unesc(user)}
		tk := tenantKeysFor(tenant)
		want := map[string]string{}
		var m meta
		var prev *Record
		var c contrib
		flush := func(head *Record) {
			kvs, hc := x.derive(head, true)
			for _, kv := range kvs {
				if strings.HasPrefix(string(kv.k), tk.prefix) {
					tenantWant[tenant][string(kv.k)] = string(kv.v)
					continue
				}
				want[string(kv.k)] = string(kv.v)
			}
			tenantActive[tenant] += hc.active
			c.docs, c.len, c.active = c.docs+hc.docs, c.len+hc.len, c.active+hc.active
		}
		_ = s.Scan(x.k.recAll(), func(_, v []byte) error {
			r, err := decodeRecord(v)
			if err != nil {
				t.Fatal(err)
			}
			if prev != nil {
				if prev.ID == r.ID {
					kvs, _ := x.derive(prev, false)
					want[string(kvs[0].k)] = string(kvs[0].v)
				} else {
					flush(prev)
				}
			}
			prev = r
			return nil
		})
		if prev != nil {
			flush(prev)
		}
		got := map[string]string{}
		_ = s.Scan([]byte(x.k.prefix), func(k, v []byte) error {
			ks := string(k)
			switch rest := strings.TrimPrefix(ks, x.k.prefix); {
			case rest == nsMeta:
				if err := decodeInto(v, &m); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(rest, nsID):
				var ie idEntry
				if err := decodeInto(v, &ie); err != nil {
					t.Fatal(err)
				}
				id := x.k.lastComponent(k)
				switch {
				case ie.Tomb || ie.Erased:
					if vs, _ := versions(s, x.k, id); len(vs) > 0 {
						t.Errorf("%s: tombstoned or erased id still has records", ks)
					}
				case ie.Alias != "":
					if vs, _ := versions(s, x.k, ie.Alias); len(vs) == 0 {
						t.Errorf("%s: merged into a missing record %q", ks, ie.Alias)
					}
					if _, ok, _ := s.Get(x.k.alias(ie.Alias, id)); !ok {
						t.Errorf("%s: merged into %q, which does not know it", ks, ie.Alias)
					}
					if _, ok, _ := s.Get(x.k.se(ie.Sentence, id)); ie.Sentence != "" && !ok {
						t.Errorf("%s: its sentence %q does not know it", ks, ie.Sentence)
					}
				default:
					got[ks] = string(v)
				}
			case strings.HasPrefix(rest, nsSe):
				label, id, _ := strings.Cut(strings.TrimPrefix(rest, nsSe), "/")
				var ie idEntry
				if b, ok, _ := s.Get(x.k.id(unesc(id))); ok && decodeInto(b, &ie) == nil && ie.Alias != "" {
					if ie.Sentence != unesc(label) {
						t.Errorf("%s: a merged observation of another sentence (%q)", ks, ie.Sentence)
					}
				} else {
					got[ks] = string(v) // a record's: derived from it
				}
			case strings.HasPrefix(rest, nsAlias):
				to, id, _ := strings.Cut(strings.TrimPrefix(rest, nsAlias), "/")
				var ie idEntry
				if b, ok, _ := s.Get(x.k.id(unesc(id))); !ok || decodeInto(b, &ie) != nil || ie.Alias != unesc(to) {
					t.Errorf("%s: alias without its id entry", ks)
				}
			default:
				got[ks] = string(v)
			}
			return nil
		})
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: missing or wrong\n got %q\nwant %q", k, got[k], v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: orphan entry %s", k, FormatEntry([]byte(k), []byte(got[k])))
			}
		}
		if m.Docs != c.docs || m.Len != c.len || m.Active != c.active {
			t.Errorf("%s: counters %+v, records say %+v", o, m, c)
		}
		if q := e.cfg.QuotaPerUser; q >= 0 && m.Active > q {
			t.Errorf("%s: %d active records over the quota %d", o, m.Active, q)
		}
	}
	for tenant, want := range tenantWant {
		tk := tenantKeysFor(tenant)
		got := map[string]string{}
		var tm tenantMeta
		_ = s.Scan([]byte(tk.prefix), func(k, v []byte) error {
			if string(k) == string(tk.meta()) {
				if err := decodeInto(v, &tm); err != nil {
					t.Fatal(err)
				}
				return nil
			}
			got[string(k)] = string(v)
			return nil
		})
		q := e.TenantQuota(tenant)
		if q == 0 {
			if len(got) > 0 || tm.Active != 0 {
				t.Errorf("tenant %s has no quota but %d tenant entries, active=%d", tenant, len(got), tm.Active)
			}
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: missing or wrong", k)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: orphan entry %s", k, FormatEntry([]byte(k), []byte(got[k])))
			}
		}
		if tm.Active != tenantActive[tenant] {
			t.Errorf("tenant %s: counter active=%d, records say %d", tenant, tm.Active, tenantActive[tenant])
		}
		if tm.Active > q {
			t.Errorf("tenant %s: %d active records over its quota %d", tenant, tm.Active, q)
		}
	}
}

// TestForgetLeavesNoTraceRandom forgets records of a random history one by
// one and checks that no byte of their text is left anywhere.
func TestForgetLeavesNoTraceRandom(t *testing.T) { forgetEveryThirdRecord(t, 6) }

func forgetEveryThirdRecord(t *testing.T, seed uint64) {
	e := NewEngine(Config{QuotaPerUser: 25}, nil)
	s := newMapStore()
	evs := genEvents(seed, 500)
	applyAll(t, e, s, evs)
	marker := regexp.MustCompile(`zq[0-9]+q`)
	at := evs[len(evs)-1].At
	for i, o := range [][2]string{{"acme", "u1"}, {"acme", "u2"}, {"beta", "u1"}} {
		recs, err := e.List(s, o[0], o[1], true)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range recs {
			if j%3 != 0 {
				continue
			}
			if _, err := e.Get(s, o[0], o[1], r.ID); err != nil {
				continue // forgotten with a sibling already
			}
			// what it (and its siblings) said, in every version
			var marks []string
			group := r.ID
			if r.Origin != "" {
				group = r.Origin
			}
			all, _ := e.List(s, o[0], o[1], true)
			for _, x := range all {
				if x.ID == r.ID || x.Origin == group {
					hist, _ := e.History(s, o[0], o[1], x.ID)
					for _, h := range hist {
						marks = append(marks, marker.FindAllString(h.Text, -1)...)
					}
				}
			}
			ev := &events.Event{ID: fmt.Sprintf("forget-%d-%d", i, j), Tenant: o[0], User: o[1], At: at,
				Body: &events.MemoryForgotten{ID: r.ID}}
			if err := s.apply(e, ev); err != nil {
				t.Fatal(err)
			}
			for _, m := range marks {
				if where, ok := rawContains(s, []byte(m)); ok {
					t.Fatalf("forgot %s but %q is still in %s", r.ID, m, where)
				}
			}
			res, err := e.Recall(s, Query{Tenant: o[0], User: o[1], Text: r.Text, K: KMax, History: true, Scopes: []string{"hr"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Records {
				if h.Record.ID == r.ID {
					t.Fatalf("forgot %s but recall returns it", r.ID)
				}
			}
		}
	}
	checkConsistent(t, e, s)
}

func TestBadInputWritesNothing(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newMapStore()
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	good := []*events.Event{
		{ID: "e1", Tenant: "acme", User: "u1", At: at, Body: &events.MemoryObserved{Observation: events.Observation{ID: "p", Text: "I live in Paris"}}},
		{ID: "e2", Tenant: "acme", User: "u1", At: at, Body: &events.MemoryForgotten{ID: "gone"}},
	}
	applyAll(t, e, s, good)
	obs := func(o events.Observation) events.Body { return &events.MemoryObserved{Observation: o} }
	bad := []struct {
		ev   *events.Event
		want error
	}{
		{&events.Event{ID: "b1", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t"})}, events.ErrInvalidTenant},
		{&events.Event{ID: "b2", Tenant: "acme", At: at, Body: obs(events.Observation{ID: "x", Text: "t"})}, ErrInvalid},
		{&events.Event{Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t"})}, ErrInvalid},
		{&events.Event{ID: "b4", Tenant: "acme", User: "u1", At: -1, Body: obs(events.Observation{ID: "x", Text: "t"})}, ErrInvalid},
		{&events.Event{ID: "b5", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{Text: "t"})}, ErrInvalid},
		{&events.Event{ID: "b6", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x"})}, ErrInvalid},
		{&events.Event{ID: "b7", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t", Kind: "wish"})}, ErrInvalid},
		{&events.Event{ID: "b8", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t", Polarity: "maybe"})}, ErrInvalid},
		{&events.Event{ID: "b9", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t", Confidence: 2})}, ErrInvalid},
		{&events.Event{ID: "b10", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t", TTL: -1})}, ErrInvalid},
		{&events.Event{ID: "b10s", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "x", Text: "t",
			Speaker: strings.Repeat("S", speakerBytesMax+1)})}, ErrInvalid},
		{&events.Event{ID: "b11", Tenant: "acme", User: "u1", At: at, Body: obs(events.Observation{ID: "p", Text: "I live in Rome"})}, ErrDuplicateID},
		{&events.Event{ID: "b12", Tenant: "acme", User: "u1", At: at, Body: &events.MemoryCorrected{ExpectedVersion: 2,
			Observation: events.Observation{ID: "p", Text: "I live in Rome"}}}, ErrVersionConflict},
		{&events.Event{ID: "b13", Tenant: "acme", User: "u1", At: at, Body: &events.MemoryCorrected{ExpectedVersion: 1,
			Observation: events.Observation{ID: "nope", Text: "I live in Rome"}}}, ErrNotFound},
		{&events.Event{ID: "b14", Tenant: "acme", User: "u1", At: at, Body: &events.MemoryCorrected{ExpectedVersion: 1,
			Observation: events.Observation{ID: "gone", Text: "I live in Rome"}}}, ErrForgotten},
		{&events.Event{ID: "b15", Tenant: "acme", User: "u1", At: at, Body: &events.UserMessage{ID: "m"}}, ErrInvalid},
		{&events.Event{ID: "b16", Tenant: "acme", User: "u1", At: at, Body: &events.MemoryForgotten{}}, ErrInvalid},
		{&events.Event{ID: "b17", Tenant: "acme", User: "u1", At: at, Body: &events.TextDelta{}}, ErrInvalid},
		{nil, ErrInvalid},
	}
	for _, c := range bad {
		tx := &mapTx{base: s, w: map[string][]byte{}, del: map[string]bool{}}
		rec := &recorder{Writer: tx}
		err := e.Apply(rec, c.ev)
		if !errors.Is(err, c.want) || !errors.Is(err, events.ErrBadInput) {
			t.Errorf("%v: got %v, want %v wrapping events.ErrBadInput", c.ev, err, c.want)
		}
		if len(rec.keys) > 0 {
			t.Errorf("%v: refused but wrote %q", c.ev, rec.keys)
		}
	}
}

// TestStaleCorrectionLosesNoUpdate: two writers read version 1; the first
// correction wins, the second gets ErrVersionConflict, re-reads and wins.
func TestStaleCorrectionLosesNoUpdate(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	ev := func(id string, body events.Body) *events.Event {
		at += int64(time.Hour)
		return &events.Event{ID: id, Tenant: "acme", User: "u1", At: at, Body: body}
	}
	if err := s.apply(e, ev("e1", &events.MemoryObserved{Observation: events.Observation{ID: "h", Text: "I live in Paris"}})); err != nil {
		t.Fatal(err)
	}
	r1, _ := e.Get(s.reader(), "acme", "u1", "h")
	r2, _ := e.Get(s.reader(), "acme", "u1", "h")
	correct := func(id string, read Record, text string) error {
		return s.apply(e, ev(id, &events.MemoryCorrected{ExpectedVersion: read.Version,
			Observation: events.Observation{ID: "h", Text: text}}))
	}
	if err := correct("e2", r1, "I live in Lyon"); err != nil {
		t.Fatal(err)
	}
	if err := correct("e3", r2, "I live in Nice"); !errors.Is(err, ErrVersionConflict) {
		t.Fatalf("stale correction: %v", err)
	}
	again, _ := e.Get(s.reader(), "acme", "u1", "h")
	if err := correct("e4", again, "I live in Nice"); err != nil {
		t.Fatal(err)
	}
	hist, _ := e.History(s.reader(), "acme", "u1", "h")
	var got []string
	for _, h := range hist {
		got = append(got, h.Value+":"+string(h.Status))
	}
	if strings.Join(got, " ") != "Paris:superseded Lyon:superseded Nice:active" {
		t.Fatalf("history %v", got)
	}
}

func rawDump(r projector.Reader) string {
	var b strings.Builder
	_ = r.Scan(nil, func(k, v []byte) error {
		fmt.Fprintf(&b, "%q=%x\n", k, v)
		return nil
	})
	return b.String()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

func ExampleEngine() {
	e := NewEngine(Config{}, nil)
	store := newMapStore() // the projector supplies a Pebble-backed Writer
	day := func(d int) int64 { return time.Date(2024, 5, d, 12, 0, 0, 0, time.UTC).UnixNano() }
	for _, ev := range []*events.Event{
		{ID: "e1", Tenant: "acme", User: "ana", At: day(1), Body: &events.UserMessage{ID: "m1", Text: "I love spicy food"}},
		{ID: "e2", Tenant: "acme", User: "ana", At: day(9), Body: &events.UserMessage{ID: "m2", Text: "I can't eat spicy food these days"}},
		{ID: "e3", Tenant: "acme", User: "ana", At: day(20), Body: &events.UserMessage{ID: "m3", Text: "I can eat spicy food again"}},
	} {
		if err := store.apply(e, ev); err != nil {
			fmt.Println(err)
		}
	}
	// on the 10th the constraint is in force and ranks over the preference
	res, _ := e.Recall(store, Query{Tenant: "acme", User: "ana", Text: "recommend a dish", AsOf: day(10)})
	for _, h := range res.Records {
		fmt.Println(h.Record.ID, h.Record.Kind, h.Record.Subject+"/"+h.Record.Attribute, h.Record.Polarity)
	}
	// now it is lifted, with the link, and the preference is current
	res, _ = e.Recall(store, Query{Tenant: "acme", User: "ana", Text: "recommend a dish"})
	for _, h := range res.Records {
		fmt.Println(h.Record.ID, h.Record.Kind, h.Record.Subject+"/"+h.Record.Attribute, h.Record.Polarity, h.Record.Status)
	}
	lifted, _ := e.Get(store, "acme", "ana", "m2")
	fmt.Println(lifted.ID, lifted.Status, "by", lifted.SupersededBy)
	_, err := e.Recall(store, Query{User: "ana", Text: "spicy"})
	fmt.Println(errors.Is(err, ErrNoTenant))
	// Output:
	// m2 constraint food/spicy negative
	// m1 preference food/spicy positive
	// m3 constraint food/spicy positive active
	// m1 preference food/spicy positive active
	// m2 superseded by m3@1
	// true
}
