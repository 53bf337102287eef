package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/stack"
)

// TestProviderStreamAssembles: the whole path's fixture is a stream the
// one-shot assembles into what it says — every call completed with its
// arguments, every response completed — so the bench times real work.
func TestProviderStreamAssembles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	in := bench.ProviderStream("p", 3, 2, 11)
	if n := bytes.Count(in, []byte("\n")); n != 3*(2+2*(11+5)+10+1) {
		t.Fatalf("%d raw events", n)
	}
	lines, err := stack.Assemble(ctx, stack.AssembleConfig{Bus: b, Dir: filepath.Join(t.TempDir(), "views"),
		Stream: client.Stream{Tenant: "acme", Format: "openai-responses", ID: "s"}}, bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	calls, responses := 0, 0
	for _, l := range lines {
		switch {
		case l.Type == "call" && l.Outcome == "completed":
			var args struct{ Location string }
			if err := json.Unmarshal(l.Arguments, &args); err != nil || args.Location != "San Francisco, CA and Boston, MA in Celsius, todaySan Francisco" {
				t.Errorf("call %s: arguments %s (%v)", l.Item, l.Arguments, err)
			}
			calls++
		case l.Type == "response" && l.Status == "completed":
			responses++
		default:
			t.Errorf("outcome %+v", l)
		}
	}
	if calls != 6 || responses != 3 {
		t.Fatalf("%d calls and %d responses completed, want 6 and 3: %+v", calls, responses, lines)
	}
}
