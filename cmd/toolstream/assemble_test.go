package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/ingest"
)

type manifestEntry struct {
	File          string `json:"file"`
	Provider      string `json:"provider"`
	ExpectedCalls []struct {
		CallID    *string        `json:"call_id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"expected_calls"`
	ExpectedOutcome string `json:"expected_outcome"`
}

func readManifest(t *testing.T) []manifestEntry {
	t.Helper()
	b, err := os.ReadFile("../../testdata/streams/MANIFEST.json")
	if err != nil {
		t.Fatal(err)
	}
	var m []manifestEntry
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAssembleRecordings runs every recording through the real path
// (embedded server, ingest and assembler projections) with the provider
// named and auto-detected, and checks the manifest's calls and outcome.
func TestAssembleRecordings(t *testing.T) {
	for _, m := range readManifest(t) {
		for _, provider := range []string{m.Provider, "auto"} {
			t.Run(m.File+"/"+provider, func(t *testing.T) {
				f, err := os.Open(filepath.Join("../../testdata/streams", m.File))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				g := &globals{logLevel: "error", logFormat: "text", stderr: os.Stderr, stdout: os.Stdout}
				o := assembleOptions{tenant: "t", idle: time.Minute}
				o.provider, o.tagged = ingest.Provider(provider, false)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				lines, err := assembleOnce(ctx, g, o, m.File, f)
				if err != nil {
					t.Fatal(err)
				}
				checkManifest(t, m, lines)
			})
		}
	}
}

func checkManifest(t *testing.T, m manifestEntry, lines []assembler.Line) {
	t.Helper()
	var calls []assembler.Line
	outcome := "complete"
	for _, l := range lines {
		switch {
		case l.Type == "call" && l.Outcome == "completed":
			calls = append(calls, l)
		case l.Type == "call":
			t.Errorf("unexpected %s call %s: %s", l.Outcome, *l.Name, l.Reason)
		case l.Status == "failed":
			outcome = "error"
		case l.Status == "incomplete" && l.Reason == "truncated" && outcome != "error":
			outcome = "truncated"
		case l.Status == "incomplete":
			t.Errorf("response %s incomplete: %s", l.Response, l.Reason)
		}
	}
	if outcome != m.ExpectedOutcome {
		t.Errorf("outcome %s, want %s", outcome, m.ExpectedOutcome)
	}
	if len(calls) != len(m.ExpectedCalls) {
		t.Fatalf("%d completed calls, want %d: %+v", len(calls), len(m.ExpectedCalls), calls)
	}
	for i, want := range m.ExpectedCalls {
		got := calls[i]
		if *got.Name != want.Name {
			t.Errorf("call %d name %q, want %q", i, *got.Name, want.Name)
		}
		if (want.CallID == nil) != (got.CallID == nil) || (want.CallID != nil && *want.CallID != *got.CallID) {
			t.Errorf("call %d call_id %v, want %v", i, got.CallID, want.CallID)
		}
		var args map[string]any
		if err := json.NewDecoder(bytes.NewReader(got.Arguments)).Decode(&args); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(args, want.Arguments) {
			t.Errorf("call %d arguments %s, want %v", i, got.Arguments, want.Arguments)
		}
	}
}

// TestAssembleSSE frames every recording as raw SSE (event names, comments,
// CRLF, [DONE]) and checks the same calls come out.
func TestAssembleSSE(t *testing.T) {
	for _, m := range readManifest(t) {
		t.Run(m.File, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("../../testdata/streams", m.File))
			if err != nil {
				t.Fatal(err)
			}
			var sse bytes.Buffer
			sse.WriteString(": recorded stream\r\n\r\n")
			for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
				var probe struct {
					Type string `json:"type"`
				}
				json.Unmarshal(line, &probe)
				if probe.Type != "" {
					sse.WriteString("event: " + probe.Type + "\r\n")
				}
				sse.WriteString("data: ")
				sse.Write(line)
				sse.WriteString("\r\n\r\n")
			}
			sse.WriteString("data: [DONE]\r\n\r\n")
			g := &globals{logLevel: "error", logFormat: "text", stderr: os.Stderr, stdout: os.Stdout}
			o := assembleOptions{tenant: "t", idle: time.Minute}
			o.provider, o.tagged = ingest.Provider("auto", false)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			lines, err := assembleOnce(ctx, g, o, m.File, &sse)
			if err != nil {
				t.Fatal(err)
			}
			checkManifest(t, m, lines)
		})
	}
}

// TestOneShotIsQuiet: a one-shot command prints its result on stdout and
// nothing on stderr (its own server's INFO lines were noise there) unless
// --log-level asks for them.
func TestOneShotIsQuiet(t *testing.T) {
	stream := "../../testdata/streams/anthropic-weather.jsonl"
	for _, tc := range []struct {
		args       []string
		want       string // on stdout
		wantStderr bool
	}{
		{[]string{"assemble", stream}, `"type":"call"`, false},
		{[]string{"--log-level", "info", "assemble", stream}, `"type":"call"`, true},
		{[]string{"demo"}, "rebuilt from seq 1", false},
	} {
		var out, errOut bytes.Buffer
		root := newRoot(&out, &errOut)
		root.SetArgs(append([]string{"--data", t.TempDir()}, tc.args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errOut.String())
		}
		if !bytes.Contains(out.Bytes(), []byte(tc.want)) {
			t.Errorf("%v: stdout %q, want %q", tc.args, out.String(), tc.want)
		}
		if got := errOut.Len() > 0; got != tc.wantStderr {
			t.Errorf("%v: stderr %q, want output: %v", tc.args, errOut.String(), tc.wantStderr)
		}
	}
}
