package memory

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// The default quota holds: a user who writes more than
// QuotaPerUserDefault records keeps that many active, the oldest of equal
// value gone cold, and another user of the tenant keeps all of theirs.
func TestDefaultQuotaHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("writes over 5,000 records")
	}
	e := NewEngine(Config{}, nil)
	if got := e.Config().QuotaPerUser; got != QuotaPerUserDefault {
		t.Fatalf("default quota %d, want %d", got, QuotaPerUserDefault)
	}
	s := newMapStore()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const over = 25
	for i := range QuotaPerUserDefault + over {
		for _, user := range []string{"flood", "quiet"} {
			if user == "quiet" && i >= 10 {
				continue
			}
			ev := &events.Event{ID: fmt.Sprintf("%s-%d", user, i), Tenant: "acme", User: user, At: at.Add(time.Duration(i) * time.Second).UnixNano(),
				Body: &events.MemoryObserved{Observation: events.Observation{ID: fmt.Sprintf("e%d", i), Kind: string(KindEpisode),
					Text: fmt.Sprintf("note number %d of the day", i)}}}
			ev.Kind = ev.Body.Kind()
			if err := s.apply(e, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func(user string) (active int, oldest string) {
		all, err := e.List(s, "acme", user, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			if r.Status == StatusActive {
				active++
			} else if r.ID == "e0" {
				oldest = string(r.Status)
			}
		}
		return active, oldest
	}
	if n, oldest := count("flood"); n != QuotaPerUserDefault || oldest != string(StatusCold) {
		t.Errorf("flood: %d active records (want %d), the oldest %q (want cold)", n, QuotaPerUserDefault, oldest)
	}
	if n, _ := count("quiet"); n != 10 {
		t.Errorf("quiet: %d active records, want all 10", n)
	}
}
