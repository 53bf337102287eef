package registry_test

import (
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/registry"
)

// A contract's fresh_for says how long a result of the tool holds: parsed
// as a duration within [1s, FreshForMax], absent meaning for ever, and a
// registry without it keeps its canonical bytes.
func TestFreshFor(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want time.Duration
		bad  bool
	}{
		{`tools: [{name: fx.rate, fresh_for: 10m}]`, 10 * time.Minute, false},
		{`tools: [{name: fx.rate, fresh_for: 1h30m}]`, 90 * time.Minute, false},
		{`tools: [{name: fx.rate}]`, 0, false},
		{`tools: [{name: fx.rate, fresh_for: 500ms}]`, 0, true},
		{`tools: [{name: fx.rate, fresh_for: soon}]`, 0, true},
		{`tools: [{name: fx.rate, fresh_for: 10}]`, 0, true},
	} {
		r, err := registry.Parse([]byte(tt.src))
		if tt.bad {
			if !errors.Is(err, registry.ErrInvalidRegistry) {
				t.Errorf("%s: err %v, want ErrInvalidRegistry", tt.src, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		tool, _ := r.Lookup("fx.rate")
		if tool.FreshFor != tt.want {
			t.Errorf("%s: FreshFor %v, want %v", tt.src, tool.FreshFor, tt.want)
		}
	}
	with, _ := registry.Parse([]byte(`tools: [{name: fx.rate, fresh_for: 10m}]`))
	without, _ := registry.Parse([]byte(`tools: [{name: fx.rate}]`))
	if with.Digest() == without.Digest() {
		t.Error("fresh_for is not part of the registry's digest")
	}
}
