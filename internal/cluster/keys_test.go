package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/clustertest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestKeysSurviveLeaderChange: the data keys are replicated like the log
// (R3 here). The bucket's leader is killed: every sealed text still opens
// through a fresh store on another server (nothing from a cache), a key
// made while the old leader is down is there when it returns, and an
// erasure made after the change holds on every server: stopped in turn,
// none brings the erased key back.
func TestKeysSurviveLeaderChange(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster")
	}
	c := clustertest.Start(t, clustertest.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*phaseMax)
	defer cancel()
	b := c.Open(t, bus.Config{})
	open := func(url string) *keys.Store {
		t.Helper()
		kb, err := bus.Open(ctx, bus.Config{NATSURL: url, Options: c.UserOptions(t, auth.Identity{Role: auth.RoleAdmin})})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { kb.Close() })
		s, err := keys.Open(ctx, keys.Config{JS: kb.JS, CacheTTL: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, err := keys.Open(ctx, keys.Config{JS: b.JS, Replicas: 3, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	users := []string{"ann", "bob", "cy"}
	sealed := map[string][]byte{}
	seal := func(s *keys.Store, user string) {
		t.Helper()
		v, err := events.SealBytes(s, "acme", events.UserScope(user), "note", []byte("secret of "+user))
		if err != nil {
			t.Fatalf("sealing %s's text: %v", user, err)
		}
		sealed[user] = v
	}
	for _, u := range users[:2] {
		seal(first, u)
	}
	stream := "KV_" + keys.Bucket
	leader := c.StreamLeader(stream)
	if leader < 0 {
		t.Fatalf("no leader for %s", stream)
	}
	c.Stop(leader)
	if _, err := c.WaitStreamLeader(ctx, stream, leader); err != nil {
		t.Fatal(err)
	}
	other := (leader + 1) % c.Size()
	s := open(c.URL(other))
	seal(s, "cy") // a key made while the old leader is down
	check := func(s *keys.Store, erased string) {
		t.Helper()
		for _, u := range users {
			got, err := events.OpenBytes(s, "acme", "note", sealed[u])
			switch {
			case u == erased && err == nil:
				t.Errorf("%s's text opens after the erasure: %q", u, got)
			case u != erased && err != nil:
				t.Errorf("%s's text: %v", u, err)
			case u != erased && !bytes.Equal(got, []byte("secret of "+u)):
				t.Errorf("%s's text opens as %q", u, got)
			}
		}
	}
	check(s, "")
	if err := c.Restart(ctx, leader); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Erase(ctx, "acme", "ann"); err != nil || n == 0 {
		t.Fatalf("erasing ann: %d keys, %v", n, err)
	}
	// Each server in turn is the only one missing: the others must agree
	// that ann's key is gone and the rest are there.
	for i := range c.Size() {
		c.Stop(i)
		if _, err := c.WaitStreamLeader(ctx, stream, i); err != nil {
			t.Fatal(err)
		}
		check(open(c.URL((i+1)%c.Size())), "ann")
		if err := c.Restart(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := events.OpenBytes(open(c.URL(0)), "acme", "note", sealed["ann"]); !errors.Is(err, events.ErrErased) {
		t.Errorf("ann's text after the erasure: %v, want %v", err, events.ErrErased)
	}
}
