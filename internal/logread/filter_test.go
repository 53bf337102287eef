package logread

import "testing"

func TestFilterMatch(t *testing.T) {
	f := NewFilter([]string{"ts.model.>", "ts.ctl._system.clock", "ts.*.acme.x"})
	for subj, want := range map[string]bool{
		"ts.model.acme.r.i":      true,
		"ts.model":               false,
		"ts.model.a":             true,
		"ts.modelx.a":            false,
		"ts.ctl._system.clock":   true,
		"ts.ctl._system.clockx":  false,
		"ts.ctl._system.clock.x": false,
		"ts.call.acme.x":         true,
		"ts.call.acme.x.y":       false,
		"ts.call.beta.x":         false,
		"ts.in.acme.f.s":         false,
		"":                       false,
	} {
		if got := f.Match(subj); got != want {
			t.Errorf("Match(%q) = %v, want %v", subj, got, want)
		}
	}
}
