package demo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/demo"
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
	for _, want := range []string{"CallRejected orders.refund: schema_violation", "ApprovalRequested orders.refund", "明天一定送到", "digest equals live"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	flagged := false
	for _, s := range steps {
		if s.Stage == "verify" && strings.Contains(s.What, "明天一定送到") && !strings.HasPrefix(s.What, "supported") {
			flagged = true
		}
	}
	if !flagged {
		t.Error("the delivery promise was not flagged")
	}
	if len(steps) < 20 {
		t.Errorf("only %d steps", len(steps))
	}
}
