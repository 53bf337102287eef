package stack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
)

// TestMemoryRun runs a file of memory operations through the real path
// (toolstream memory run): writes published sealed and projected, each
// recall answered after everything before it is applied; a write no
// subject can carry is skipped and the run goes on; a line that is not JSON
// ends the run naming its line.
func TestMemoryRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := strings.Join([]string{
		`# the spicy story`,
		`{"op":"message","tenant":"acme","user":"ann","id":"m1","time":"2026-10-01T12:00:00Z","text":"I love spicy food"}`,
		``,
		`{"op":"recall","tenant":"acme","user":"ann","query":"recommend a spicy dish","time":"2026-10-02T12:00:00Z"}`,
		`{"op":"message","tenant":"bad tenant","user":"ann","id":"x","text":"lost to no one"}`,
		`{"op":"message","tenant":"acme","user":"ann","id":"m2","time":"2026-11-01T12:00:00Z","text":"I can't eat spicy food these days"}`,
		`{"op":"recall","tenant":"acme","user":"ann","query":"recommend a spicy dish","time":"2026-11-02T12:00:00Z"}`,
	}, "\n")
	var out bytes.Buffer
	if err := stack.MemoryRun(ctx, stack.MemoryRunConfig{Bus: bustest.Start(t), Dir: t.TempDir()}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var answers []memory.RecallOut
	dec := json.NewDecoder(&out)
	for dec.More() {
		var a memory.RecallOut
		if err := dec.Decode(&a); err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
	}
	if len(answers) != 2 {
		t.Fatalf("%d answers, want one per recall: %+v", len(answers), answers)
	}
	if r := answers[0].Results; len(r) != 1 || r[0].Kind != string(memory.KindPreference) {
		t.Errorf("first recall: %+v, want the preference only", answers[0])
	}
	if r := answers[1].Results; len(r) == 0 || r[0].Kind != string(memory.KindConstraint) {
		t.Errorf("second recall: %+v, want the constraint first", answers[1])
	}

	err := stack.MemoryRun(ctx, stack.MemoryRunConfig{Bus: bustest.Start(t), Dir: t.TempDir()}, strings.NewReader("# x\n{not json\n"), &out)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a line that is not JSON: %v, want an error naming line 2", err)
	}
}
