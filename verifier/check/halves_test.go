package check

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// The labelled set has two halves (testdata/README.md):
//
//   - development (testdata/*.jsonl): the checker is tuned on it; its
//     claims are listed one by one (TestReport, TestRegressionSet -v);
//   - sealed (testdata/sealed/*.jsonl): written before the checker ran on
//     it and never read while tuning. Only its figures are printed, never a
//     claim, so that a change cannot be fitted to it case by case.
//
// TestHalves gives the figures of both, with the calibration of each kind
// of label (how often the checker gives that verdict, and how often it
// flags the claim), in testdata/halves (regenerate with
// go test ./verifier/check -run TestHalves -rewrite): a change to the checker
// shows how it moves each half. Command:
//
//	figures half=dev|sealed
func TestHalves(t *testing.T) {
	datadriven.RunTest(t, filepath.Join("testdata", "halves"), func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "figures" {
			d.Fatalf(t, "unknown command %q", d.Cmd)
		}
		var half string
		d.ScanArgs(t, "half", &half)
		var st regStats
		switch half {
		case "dev":
			for _, cc := range checkedSet(t) {
				st.recordCase(t, cc, false)
			}
		case "sealed":
			c := NewChecker(CheckerConfig{})
			for _, rc := range checktest.Load(t, filepath.Join("testdata", "sealed")) {
				now, err := time.Parse(time.RFC3339, rc.Now)
				if err != nil {
					t.Fatalf("%s: now: %v", rc.Name, err)
				}
				st.recordCase(t, checkedCase{rc: rc, rep: c.Check(rc.Answer, rc.Evidences(), now)}, true)
			}
		default:
			d.Fatalf(t, "unknown half %q", half)
		}
		return st.figures()
	})
}

// recordCase records every label of a checked case. A label whose text no
// claim holds is an error in the label; for the sealed half it is named by
// its case only.
func (st *regStats) recordCase(t *testing.T, cc checkedCase, sealed bool) {
	t.Helper()
	for _, e := range cc.rc.Expected {
		got, ok := findClaim(cc.rep, cc.rc.Answer, e.Text)
		if !ok {
			if sealed {
				t.Errorf("sealed case %s: a label's text is in no claim", cc.rc.Name)
			} else {
				t.Errorf("%s: no claim holds %q", cc.rc.Name, e.Text)
			}
			continue
		}
		if _, err := st.record(e, got); err != nil {
			t.Fatalf("%s: %v", cc.rc.Name, err)
		}
	}
}

// figures prints the half's counts and rates, one per line.
func (st *regStats) figures() string {
	var b strings.Builder
	fmt.Fprintf(&b, "claims %d (Chinese %d): flagged %d, supported %d, not_checkable %d\n", st.claims, st.zh, st.expFlagged, st.expSupported, st.notCheckable)
	fmt.Fprintf(&b, "recall %.3f (%d/%d)\n", ratio(st.truePos, st.expFlagged), st.truePos, st.expFlagged)
	fmt.Fprintf(&b, "false flags %.3f (%d/%d)\n", ratio(st.falseFlags, st.expSupported), st.falseFlags, st.expSupported)
	fmt.Fprintf(&b, "pointer %.3f (%d/%d)\n", ratio(st.pointerOK, st.pointerWant), st.pointerOK, st.pointerWant)
	fmt.Fprintf(&b, "exact %.3f (%d/%d)\n", ratio(st.exact, st.claims), st.exact, st.claims)
	// Calibration: how far the checker's verdict agrees with each kind of
	// label (the same verdict; flagged at all).
	for _, k := range []events.Verdict{events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported, events.VerdictStale, events.VerdictNotCheckable} {
		if c := st.kinds[k]; c != nil {
			fmt.Fprintf(&b, "labelled %-13s %4d: same verdict %.3f, flagged %.3f\n", k, c[0], ratio(c[1], c[0]), ratio(c[2], c[0]))
		}
	}
	return b.String()
}
