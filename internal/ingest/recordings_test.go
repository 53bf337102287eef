package ingest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/ingest"
)

const streamsDir = "../../testdata/streams"

type manifestEntry struct {
	File          string `json:"file"`
	Provider      string `json:"provider"`
	ExpectedCalls []struct {
		CallID    *string         `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"expected_calls"`
	ExpectedOutcome string `json:"expected_outcome"`
}

func loadManifest(t testing.TB) []manifestEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(streamsDir, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m []manifestEntry
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) == 0 {
		t.Fatal("empty manifest")
	}
	return m
}

// recordingFormats returns the formats to replay a recording with: always
// FormatAuto (detection), and the manifest's format when it names one.
func recordingFormats(provider string) []ingest.Format {
	fs := []ingest.Format{ingest.FormatAuto}
	if f, err := ingest.ParseFormat(provider); err == nil && f != ingest.FormatAuto {
		fs = append(fs, f)
	}
	return fs
}

// TestRecordings replays every recorded stream and compares the calls an
// assembler would fold from the output, and the outcome, with MANIFEST.json.
func TestRecordings(t *testing.T) {
	for _, e := range loadManifest(t) {
		lines := readLines(t, filepath.Join(streamsDir, e.File))
		for _, format := range recordingFormats(e.Provider) {
			for _, tagged := range []bool{false, true} {
				name := e.File + "/" + string(format)
				if tagged {
					name += "/tagged"
				}
				t.Run(name, func(t *testing.T) {
					n := ingest.New(ingest.Config{Format: format, Stream: "s1", TaggedText: tagged})
					f := newFold()
					f.add(feedAll(t, n, lines)...)
					checkFold(t, e, f)
				})
			}
		}
	}
}

func checkFold(t *testing.T, e manifestEntry, f *fold) {
	t.Helper()
	// A recording may hold several responses (turns); each must end, and
	// end as the manifest says.
	if len(f.Outcomes) == 0 {
		t.Fatalf("no outcome:\n%s", f)
	}
	for _, o := range f.Outcomes {
		if _, got, _ := strings.Cut(o, " "); got != e.ExpectedOutcome {
			t.Errorf("outcome %q, want %q", o, e.ExpectedOutcome)
		}
	}
	var done []*call
	for _, c := range f.Calls {
		switch {
		case c.Done:
			done = append(done, c)
		case e.ExpectedOutcome == "complete":
			t.Errorf("call %s/%s left %s in a complete stream", c.Response, c.Item, c.status())
		}
	}
	if len(done) != len(e.ExpectedCalls) {
		t.Fatalf("%d complete calls, want %d:\n%s", len(done), len(e.ExpectedCalls), f)
	}
	items := map[string]bool{}
	for i, want := range e.ExpectedCalls {
		got := done[i]
		wantID := ""
		if want.CallID != nil {
			wantID = *want.CallID
		}
		if got.CallID != wantID || got.Name != want.Name {
			t.Errorf("call %d: %s %q, want %s %q", i, got.CallID, got.Name, wantID, want.Name)
		}
		var ga, wa any
		if err := json.Unmarshal([]byte(got.args()), &ga); err != nil {
			t.Errorf("call %d: arguments %q: %v", i, got.args(), err)
		}
		if err := json.Unmarshal(want.Arguments, &wa); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ga, wa) {
			t.Errorf("call %d: arguments %s, want %s", i, got.args(), want.Arguments)
		}
		if items[got.Item] {
			t.Errorf("call %d: item %s shared by two calls", i, got.Item)
		}
		items[got.Item] = true
	}
}
