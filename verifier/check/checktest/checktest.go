package checktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolstream/toolstream/verifier/evidence"
)

// Evidence is a tool result of a case.
type Evidence struct {
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Version int             `json:"version"`
	Result  json.RawMessage `json:"result"`
	// A call that failed or whose approval was denied: its typed error.
	Failed *struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	} `json:"failed"`
	At       string `json:"at"`        // RFC 3339; "" is the answer's time
	FreshFor string `json:"fresh_for"` // a Go duration; "" is for ever
}

// Expect is a labelled claim: the verdict of the claim holding Text and,
// for a supported one, the pointer and call a reviewer would cite.
type Expect struct {
	Text    string `json:"text"`
	Verdict string `json:"verdict"`
	Pointer string `json:"pointer"`
	CallID  string `json:"call_id"`
}

// Case is one line of the set.
type Case struct {
	Name     string     `json:"name"`
	Now      string     `json:"now"` // RFC 3339: the answer's time
	Evidence []Evidence `json:"evidence"`
	Answer   string     `json:"answer"`
	Expected []Expect   `json:"expected"`
	File     string     `json:"-"` // the base name of the file it is read from
}

// Evidences is the case's evidence as the checker takes it.
func (c *Case) Evidences() []evidence.Evidence {
	out := make([]evidence.Evidence, len(c.Evidence))
	for i, e := range c.Evidence {
		out[i] = evidence.Evidence{CallID: e.CallID, Name: e.Name, Version: e.Version, Result: e.Result}
		if e.Failed != nil {
			out[i].Failed = &evidence.Failure{Error: e.Failed.Error, Message: e.Failed.Message}
		}
		if e.At != "" {
			out[i].At, _ = time.Parse(time.RFC3339, e.At) // NB: checked by Load
		}
		if e.FreshFor != "" {
			out[i].FreshFor, _ = time.ParseDuration(e.FreshFor)
		}
	}
	return out
}

// Load reads the cases of dir/*.jsonl, in the order of the files' names
// and their lines (blank lines skipped). No file, or a line that is not a
// case, fails t with the file and line.
func Load(t testing.TB, dir string) []Case {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled files in %s: %v", dir, err)
	}
	var out []Case
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
			var c Case
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatalf("%s:%d: %v", f, line, err)
			}
			if _, err := time.Parse(time.RFC3339, c.Now); err != nil {
				t.Fatalf("%s:%d: now: %v", f, line, err)
			}
			for _, e := range c.Evidence {
				if _, err := time.Parse(time.RFC3339, e.At); e.At != "" && err != nil {
					t.Fatalf("%s:%d: at: %v", f, line, err)
				}
				if _, err := time.ParseDuration(e.FreshFor); e.FreshFor != "" && err != nil {
					t.Fatalf("%s:%d: fresh_for: %v", f, line, err)
				}
			}
			c.File = filepath.Base(f)
			out = append(out, c)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return out
}
