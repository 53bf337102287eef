package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/check/checktest"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// The labelled regression set: testdata/*.jsonl, read by checktest (whose
// doc states its format).

type (
	regCase   = checktest.Case
	regExpect = checktest.Expect
)

// loadCases loads the development half of the labelled set
// (testdata/*.jsonl): the cases the checker is tuned on.
func loadCases(t testing.TB) []regCase { return checktest.Load(t, "testdata") }

// findClaim returns the claim holding the expected text.
func findClaim(r Report, answer, text string) (events.ClaimVerdict, bool) {
	for _, c := range r.Claims {
		if strings.Contains(c.Text, text) {
			return c, true
		}
	}
	// The text straddles claims: take the claim holding its first rune.
	if i := strings.Index(answer, text); i >= 0 {
		pos := len([]rune(answer[:i]))
		for _, c := range r.Claims {
			if pos >= c.Start && pos < c.End {
				return c, true
			}
		}
	}
	return events.ClaimVerdict{}, false
}

// flagged reports whether a verdict tells the reader not to trust the
// claim: contradicted, unsupported, or resting on stale evidence.
func flagged(v events.Verdict) bool {
	return v == events.VerdictContradicted || v == events.VerdictUnsupported || v == events.VerdictStale
}

type regStats struct {
	claims, zh                   int
	expFlagged, truePos, predPos int
	expSupported, falseFlags     int
	pointerWant, pointerOK       int
	notCheckable, notCheckableOK int
	exact                        int
	// Per labelled verdict: claims, the checker's verdict the same, and
	// (for wrong claims) flagged at all.
	kinds map[events.Verdict]*[3]int
}

func isZH(s string) bool {
	for _, r := range s {
		if lang.IsCJK(r) {
			return true
		}
	}
	return false
}

// record counts one expected verdict against the claim found for it and
// says why it is a miss ("" when it is not).
func (st *regStats) record(e regExpect, got events.ClaimVerdict) (string, error) {
	st.claims++
	if isZH(e.Text) {
		st.zh++
	}
	want := events.Verdict(e.Verdict)
	if st.kinds == nil {
		st.kinds = map[events.Verdict]*[3]int{}
	}
	k := st.kinds[want]
	if k == nil {
		k = &[3]int{}
		st.kinds[want] = k
	}
	k[0]++
	if got.Verdict == want {
		st.exact++
		k[1]++
	}
	if flagged(got.Verdict) {
		k[2]++
	}
	if flagged(got.Verdict) && want != events.VerdictNotCheckable {
		st.predPos++
	}
	miss := ""
	switch want {
	case events.VerdictContradicted, events.VerdictUnsupported, events.VerdictStale:
		st.expFlagged++
		if flagged(got.Verdict) {
			st.truePos++
		} else {
			miss = "missed"
		}
	case events.VerdictSupported:
		st.expSupported++
		if flagged(got.Verdict) {
			st.falseFlags++
			miss = "false flag"
		}
		if e.Pointer != "" {
			st.pointerWant++
			if got.Verdict == events.VerdictSupported && hasPointer(got.Evidence, e.CallID, e.Pointer) {
				st.pointerOK++
			} else if miss == "" {
				miss = "pointer"
			}
		}
	case events.VerdictNotCheckable:
		st.notCheckable++
		if got.Verdict == events.VerdictNotCheckable {
			st.notCheckableOK++
		} else {
			miss = "checkable"
		}
	default:
		return "", fmt.Errorf("bad expected verdict %q", e.Verdict)
	}
	return miss, nil
}

func (st *regStats) summary() string {
	falseFlag := ratio(st.falseFlags, st.expSupported)
	return fmt.Sprintf("claims %3d recall %.3f precision %.3f false-flag %.3f (supported kept %.3f) pointer %.3f not_checkable %.3f exact %.3f",
		st.claims, ratio(st.truePos, st.expFlagged), ratio(st.truePos, st.predPos), falseFlag, 1-falseFlag,
		ratio(st.pointerOK, st.pointerWant), ratio(st.notCheckableOK, st.notCheckable), ratio(st.exact, st.claims))
}

func TestRegressionSet(t *testing.T) {
	var st regStats
	perFile := map[string]*regStats{}
	var files []string
	crossRow := 0
	for _, cc := range checkedSet(t) {
		rc, rep := cc.rc, cc.rep
		for _, cv := range crossRowSupport(rep, rc.Evidences()) {
			crossRow++
			if testing.Verbose() || os.Getenv("VERIFIER_DEBUG") != "" {
				t.Logf("%s [%s] supported citing another row than the one it names: %q %v", rc.File, rc.Name, cv.Text, cv.Evidence)
			}
		}
		fs := perFile[rc.File]
		if fs == nil {
			fs = &regStats{}
			perFile[rc.File] = fs
			files = append(files, rc.File)
		}
		for _, e := range rc.Expected {
			got, ok := findClaim(rep, rc.Answer, e.Text)
			if !ok {
				t.Errorf("%s: no claim holds %q", rc.Name, e.Text)
				continue
			}
			miss, err := st.record(e, got)
			if err != nil {
				t.Fatalf("%s: %v", rc.Name, err)
			}
			fs.record(e, got)
			if miss != "" && (testing.Verbose() || os.Getenv("VERIFIER_DEBUG") != "") {
				t.Logf("%s [%s] %s: %q want %s got %s %v (%s)", rc.File, rc.Name, miss, got.Text, e.Verdict, got.Verdict, got.Evidence, got.Reason)
			}
		}
	}
	for _, f := range files {
		t.Logf("%-16s %s", f, perFile[f].summary())
	}
	t.Logf("claims %d (Chinese %d), flagged %d, supported %d, not_checkable %d", st.claims, st.zh, st.expFlagged, st.expSupported, st.notCheckable)
	t.Logf("all: %s", st.summary())
	t.Logf("supported claims citing another row than the one they name: %d", crossRow)
	recall := ratio(st.truePos, st.expFlagged)
	falseFlag := ratio(st.falseFlags, st.expSupported)
	pointer := ratio(st.pointerOK, st.pointerWant)
	if st.claims < 300 {
		t.Errorf("regression set has %d claims, want at least 300", st.claims)
	}
	if recall < 0.95 {
		t.Errorf("recall %.3f < 0.95", recall)
	}
	if falseFlag > 0.05 {
		t.Errorf("false flags on supported claims %.3f > 0.05", falseFlag)
	}
	if pointer < 0.95 {
		t.Errorf("evidence pointer correct for %.3f of supported claims < 0.95", pointer)
	}
}

// hasPointer reports whether refs cite ptr (one of "a|b" when two fields
// say the same thing equally well).
func hasPointer(refs []events.EvidenceRef, callID, ptr string) bool {
	return slices.ContainsFunc(refs, func(r events.EvidenceRef) bool {
		return slices.Contains(strings.Split(ptr, "|"), r.Pointer) && (callID == "" || r.CallID == callID)
	})
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// TestDeterminism checks that identical input gives identical bytes.
func TestDeterminism(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	for _, cc := range checkedSet(t) {
		rc := cc.rc
		now, _ := time.Parse(time.RFC3339, rc.Now)
		a, _ := json.Marshal(cc.rep)
		b, _ := json.Marshal(c.Check(rc.Answer, rc.Evidences(), now))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: reports differ:\n%s\n%s", rc.Name, a, b)
		}
	}
}

// TestDebugCase prints the report of the case named by VERIFIER_CASE.
func TestDebugCase(t *testing.T) {
	name := os.Getenv("VERIFIER_CASE")
	if name == "" {
		t.Skip("set VERIFIER_CASE to a case name")
	}
	for _, rc := range loadCases(t) {
		if rc.Name != name {
			continue
		}
		now, _ := time.Parse(time.RFC3339, rc.Now)
		rep := NewChecker(CheckerConfig{}).Check(rc.Answer, rc.Evidences(), now)
		for _, c := range rep.Claims {
			t.Logf("%-14s %q %v %s", c.Verdict, c.Text, c.Evidence, c.Reason)
		}
	}
}

func ExampleChecker_Check() {
	evs := []evidence.Evidence{{
		CallID: "call_1",
		Name:   "get_inventory",
		Result: json.RawMessage(`{"items":[{"name":"A","stock":12,"in_stock":true},{"name":"B","stock":30,"in_stock":true}]}`),
	}}
	answer := "商品 A 可用库存 12 件。Item A has 30 in stock. It will arrive tomorrow. Anything else?"
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	r := NewChecker(CheckerConfig{}).Check(answer, evs, now)
	for _, c := range r.Claims {
		fmt.Printf("%-13s %q", c.Verdict, c.Text)
		for _, e := range c.Evidence {
			fmt.Printf(" %s=%s", e.Pointer, e.Value)
		}
		fmt.Println()
	}
	fmt.Printf("faithfulness %.2f\n", r.Faithfulness)
	// Output:
	// supported     "商品 A 可用库存 12 件。" /items/0/stock=12 /items/0/name="A"
	// contradicted  "Item A has 30 in stock." /items/0/stock=12
	// unsupported   "It will arrive tomorrow."
	// not_checkable "Anything else?"
	// faithfulness 0.33
}

// FuzzCheck checks that no answer makes Check panic or break its own
// invariants (offsets, determinism).
func FuzzCheck(f *testing.F) {
	ev := []evidence.Evidence{{CallID: "c", Name: "get_stock", Result: json.RawMessage(`{"items":[{"name":"A","stock":12,"price":5,"eta":"2024-05-04"},{"name":"B","stock":0}],"status":"shipped"}`)}}
	for _, s := range []string{"A has 12. B is out of stock.", "商品 A 库存 12 件，明天送到。", "All items cost under $10.", "23rn.0k日2b0", "$10-$", "A 比 B 多 12 件"} {
		f.Add(s)
	}
	c := NewChecker(CheckerConfig{})
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		r := c.Check(s, ev, now)
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(c.Check(s, ev, now))
		if !bytes.Equal(a, b) {
			t.Fatalf("not deterministic for %q", s)
		}
		if r.Faithfulness < 0 || r.Faithfulness > 1 {
			t.Fatalf("faithfulness %v", r.Faithfulness)
		}
	})
}

// TestCheckArbitraryInput runs Check on random mixtures of claim fragments
// and noise against every case's evidence: it must neither panic nor hang
// (a scanner that fails to advance would hang), and it must stay
// deterministic.
func TestCheckArbitraryInput(t *testing.T) {
	cases := loadCases(t)
	alpha := []rune("aA. ,，。和但是and but1234567890-*\n：:;；!?e.g(（)）between 商品 all 都 only 只 not 不 $¥%kg 天 明天 tomorrow Friday 周五 more than 比 cheaper 最 库存 price stock 5月3日 2024-05-03 ~ rn.0k 多 约")
	rng := rand.New(rand.NewPCG(1, 2))
	c := NewChecker(CheckerConfig{})
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		rc := cases[rng.IntN(len(cases))]
		r := make([]rune, rng.IntN(80))
		for k := range r {
			if rng.IntN(4) == 0 {
				r[k] = rune(rng.IntN(0x3100))
			} else {
				r[k] = alpha[rng.IntN(len(alpha))]
			}
		}
		ans := string(r)
		if ar := []rune(rc.Answer); rng.IntN(2) == 0 {
			a := rng.IntN(len(ar))
			ans = string(ar[a:a+rng.IntN(len(ar)-a)]) + ans
		}
		rep := c.Check(ans, rc.Evidences(), now)
		checkOffsets(t, ans, claimsOf(rep))
	}
}

func claimsOf(r Report) []Claim {
	out := make([]Claim, len(r.Claims))
	for i, c := range r.Claims {
		out[i] = Claim{Text: c.Text, Start: c.Start, End: c.End}
	}
	return out
}

// A clause that continues two subjects named before it and compares
// without naming either ("…, and the price is higher than before") says
// nothing about them; it made Check index past the subjects' mentions
// and panic.
func TestComparisonWithInheritedSubjects(t *testing.T) {
	ev := []evidence.Evidence{{CallID: "c", Name: "get_stock", Result: json.RawMessage(`{"items":[{"name":"Alpha","stock":12,"price":5},{"name":"Bravo","stock":3,"price":9}]}`)}}
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	r := NewChecker(CheckerConfig{}).Check("Alpha and Bravo cost $5 and $9, and the price is higher than before.", ev, now)
	if len(r.Claims) != 2 {
		t.Fatalf("claims %+v", r.Claims)
	}
	if c := r.Claims[1]; strings.HasPrefix(c.Reason, "comparison") {
		t.Errorf("%q: %s (%s): the clause compares neither subject", c.Text, c.Verdict, c.Reason)
	}
}
