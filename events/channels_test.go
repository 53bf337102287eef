package events_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// Every channel's address is what its builder makes, and every kind of
// the catalogue is published on some channel: the AsyncAPI document,
// written from Channels, then names every subject and event there is.
func TestChannelsMatchTheBuildersAndCoverTheCatalogue(t *testing.T) {
	seen := map[events.Kind]string{}
	names := map[string]bool{}
	for _, c := range events.Channels() {
		if names[c.Name] {
			t.Errorf("channel %s named twice", c.Name)
		}
		names[c.Name] = true
		ids := []string{"p0", "p1"}[:len(c.Params)]
		want := strings.Replace(c.Address, "{tenant}", "acme", 1)
		for i, p := range c.Params {
			want = strings.Replace(want, "{"+p.Name+"}", ids[i], 1)
		}
		got, err := c.Build("acme", ids...)
		if err != nil || got != want {
			t.Errorf("channel %s: builder makes %q, %v; the address says %q", c.Name, got, err, want)
		}
		if strings.Contains(want, "{") {
			t.Errorf("channel %s: address %q has parameters Params does not name", c.Name, c.Address)
		}
		if s, err := events.StreamOf(got); err != nil || s != c.Stream {
			t.Errorf("channel %s: stream %s, the subject is in %s (%v)", c.Name, c.Stream, s, err)
		}
		for _, k := range c.Kinds {
			if other, ok := seen[k]; ok {
				t.Errorf("kind %s on channels %s and %s", k, other, c.Name)
			}
			seen[k] = c.Name
			if _, ok := events.NewBody(k); !ok {
				t.Errorf("channel %s: kind %s is not in the catalogue", c.Name, k)
			}
		}
	}
	for _, k := range events.Kinds() {
		if _, ok := seen[k]; !ok {
			t.Errorf("kind %s is on no channel: add it to events.Channels", k)
		}
	}
}
