package verifier

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// The labelled set is the checker's (verifier/check/testdata/*.jsonl, read
// by checktest, whose doc states its format); the projection's tests run
// its cases through the log and compare with Check.

type labelledCase = checktest.Case

// checkedCase is a labelled case with Check's report on it.
type checkedCase struct {
	rc  labelledCase
	rep Report
}

var (
	checkedOnce sync.Once
	checked     []checkedCase
)

// checkedSet loads the labelled set, in the order of its files and lines,
// and checks every case once per test binary.
func checkedSet(t testing.TB) []checkedCase {
	t.Helper()
	checkedOnce.Do(func() {
		c := NewChecker(CheckerConfig{})
		for _, rc := range checktest.Load(t, filepath.Join("check", "testdata")) {
			now, _ := time.Parse(time.RFC3339, rc.Now)
			checked = append(checked, checkedCase{rc: rc, rep: c.Check(rc.Answer, rc.Evidences(), now)})
		}
	})
	if len(checked) == 0 {
		t.Fatal("no labelled cases")
	}
	return checked
}
