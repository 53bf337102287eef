package verifier

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The labelled set is the checker's (verifier/check/testdata/*.jsonl, whose
// format check_test.go documents); the projection's tests run its cases
// through the log and compare with Check. Only what they need is read.

type labelledEvidence struct {
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Version int             `json:"version"`
	Result  json.RawMessage `json:"result"`
	Failed  *struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	} `json:"failed"`
	At       string `json:"at"`
	FreshFor string `json:"fresh_for"`
}

type labelledCase struct {
	Name     string             `json:"name"`
	Now      string             `json:"now"`
	Evidence []labelledEvidence `json:"evidence"`
	Answer   string             `json:"answer"`
}

func (rc *labelledCase) evidence() []Evidence {
	out := make([]Evidence, len(rc.Evidence))
	for i, e := range rc.Evidence {
		out[i] = Evidence{CallID: e.CallID, Name: e.Name, Version: e.Version, Result: e.Result}
		if e.Failed != nil {
			out[i].Failed = &Failure{Error: e.Failed.Error, Message: e.Failed.Message}
		}
		if e.At != "" {
			out[i].At, _ = time.Parse(time.RFC3339, e.At) // NB: checked by loadLabelled
		}
		if e.FreshFor != "" {
			out[i].FreshFor, _ = time.ParseDuration(e.FreshFor)
		}
	}
	return out
}

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
		for _, rc := range loadLabelled(t, filepath.Join("check", "testdata")) {
			now, _ := time.Parse(time.RFC3339, rc.Now)
			checked = append(checked, checkedCase{rc: rc, rep: c.Check(rc.Answer, rc.evidence(), now)})
		}
	})
	if len(checked) == 0 {
		t.Fatal("no labelled cases")
	}
	return checked
}

func loadLabelled(t testing.TB, dir string) []labelledCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled files in %s: %v", dir, err)
	}
	var out []labelledCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		line := 0
		for sc.Scan() {
			line++
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var rc labelledCase
			if err := json.Unmarshal(sc.Bytes(), &rc); err != nil {
				t.Fatalf("%s:%d: %v", f, line, err)
			}
			if _, err := time.Parse(time.RFC3339, rc.Now); err != nil {
				t.Fatalf("%s:%d: now: %v", f, line, err)
			}
			for _, e := range rc.Evidence {
				if _, err := time.Parse(time.RFC3339, e.At); e.At != "" && err != nil {
					t.Fatalf("%s:%d: at: %v", f, line, err)
				}
				if _, err := time.ParseDuration(e.FreshFor); e.FreshFor != "" && err != nil {
					t.Fatalf("%s:%d: fresh_for: %v", f, line, err)
				}
			}
			out = append(out, rc)
		}
	}
	return out
}
