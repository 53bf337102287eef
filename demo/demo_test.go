package demo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/demo"
)

// TestDemoStory runs the whole story through the real path; Run itself
// checks every step (calls, rejection, approval, flagged promise, memory,
// replay digests).
func TestDemoStory(t *testing.T) {
	var out bytes.Buffer
	steps, err := demo.Run(context.Background(), demo.Config{Out: &out})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	for _, want := range []string{"CallRejected orders.refund: schema_violation", "ApprovalRequested orders.refund", "unsupported", "digest equals live"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if len(steps) < 20 {
		t.Errorf("only %d steps", len(steps))
	}
}
