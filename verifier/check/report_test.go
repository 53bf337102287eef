package check

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/events"
)

// TestReport is the golden report over the labelled set: for each file of
// testdata/*.jsonl, testdata/report/<file> holds every claim of every case
// with its verdict, reason and evidence, so that a change to the checker
// shows each claim it flips in the diff. Command:
//
//	report file=<name>.jsonl
//
// Each case starts with "# <case>"; each claim is one line:
//
//	<label> <verdict>[?] "<claim>" | <reason> | <call>:<pointer>=<value> …
//
// label compares the verdict with the hand-written label of the claim: ok,
// missed (a wrong claim not flagged), false-flag, pointer (supported
// without the expected pointer), checkable (labelled not_checkable), or -
// when no label names the claim; "?" marks a claim left undecided for a
// judge. Regenerate with: go test ./verifier/check -run TestReport -rewrite
func TestReport(t *testing.T) {
	set := checkedSet(t)
	datadriven.Walk(t, filepath.Join("testdata", "report"), func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "report" {
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			var file string
			d.ScanArgs(t, "file", &file)
			var b strings.Builder
			n := 0
			for _, cc := range set {
				if cc.rc.File != file {
					continue
				}
				n++
				writeReport(&b, cc)
			}
			if n == 0 {
				d.Fatalf(t, "no cases in %s", file)
			}
			return b.String()
		})
	})
}

// checkedCase is a labelled case with the checker's report on it.
type checkedCase struct {
	rc  regCase
	rep Report
}

var (
	checkedOnce sync.Once
	checked     []checkedCase
	checkedErr  error
)

// checkedSet checks every case of the labelled set once per test binary:
// TestRegressionSet and TestReport read the same reports.
func checkedSet(t testing.TB) []checkedCase {
	t.Helper()
	checkedOnce.Do(func() {
		c := NewChecker(CheckerConfig{})
		for _, rc := range loadCases(t) {
			now, err := time.Parse(time.RFC3339, rc.Now)
			if err != nil {
				checkedErr = fmt.Errorf("%s: now: %v", rc.Name, err)
				return
			}
			checked = append(checked, checkedCase{rc: rc, rep: c.Check(rc.Answer, rc.Evidences(), now)})
		}
	})
	if checkedErr != nil {
		t.Fatal(checkedErr)
	}
	return checked
}

func writeReport(b *strings.Builder, cc checkedCase) {
	fmt.Fprintf(b, "# %s\n", cc.rc.Name)
	labels := make([][]string, len(cc.rep.Claims))
	for _, e := range cc.rc.Expected {
		got, ok := findClaim(cc.rep, cc.rc.Answer, e.Text)
		if !ok {
			continue
		}
		i := slices.IndexFunc(cc.rep.Claims, func(c events.ClaimVerdict) bool { return c.Start == got.Start })
		miss, err := (&regStats{}).record(e, got)
		if err != nil {
			miss = err.Error()
		}
		if miss == "" {
			miss = "ok"
		}
		labels[i] = append(labels[i], strings.ReplaceAll(miss, " ", "-"))
	}
	for i, c := range cc.rep.Claims {
		label := "-"
		if len(labels[i]) > 0 {
			label = strings.Join(labels[i], ",")
		}
		v := string(c.Verdict)
		if slices.Contains(cc.rep.Undecided, i) {
			v += "?"
		}
		fmt.Fprintf(b, "%-10s %-14s %q | %s |", label, v, c.Text, c.Reason)
		for _, r := range c.Evidence {
			fmt.Fprintf(b, " %s:%s=%s", r.CallID, r.Pointer, shorten(r.Value, 32))
		}
		b.WriteByte('\n')
	}
}

// shorten cuts s to n runes, marking the cut.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
