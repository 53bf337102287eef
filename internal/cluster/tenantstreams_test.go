package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/clustertest"
)

// TestTenantSourcesSurviveLeaderChange: with per-tenant ingress streams
// (R3, like the shared ones) TS_MODEL's leader runs the source of acme's
// stream. The leader is stopped half way through acme's events: the new
// leader resumes the source where the stored copy ends, and TS_MODEL holds
// every event once, in the order acme published them.
func TestTenantSourcesSurviveLeaderChange(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster")
	}
	c := clustertest.Start(t, clustertest.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*phaseMax)
	defer cancel()
	b := c.Open(t, bus.Config{TenantStreams: true})
	if err := b.EnsureTenant(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	const n = 60
	publish := func(i int) {
		t.Helper()
		subj, _ := events.ModelSubject("acme", fmt.Sprintf("r%d", i%4), fmt.Sprintf("i%d", i))
		ev := &events.Event{ID: fmt.Sprintf("e%03d", i), Tenant: "acme", Response: fmt.Sprintf("r%d", i%4), At: int64(i + 1), Body: &events.TextDelta{Text: "x"}}
		for {
			// Each try has a bound of its own: a publish sent to a server as
			// it stops is answered by nobody, and a request waits for its
			// answer until its context ends (with the test's, it took every
			// try's time: 1 run in 12 failed at event 30, the first after
			// the leader stopped).
			tctx, tcancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := b.Publish(tctx, subj, ev) // again under the same message id after a failure
			tcancel()
			if err == nil {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("event %d: %v", i, err)
			}
			t.Logf("event %d: %v (again)", i, err)
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitModel := func(want uint64) {
		t.Helper()
		waitFor(ctx, t, fmt.Sprintf("TS_MODEL holding %d messages", want), func() bool {
			info, err := b.Stream(events.StreamModel).Info(ctx)
			return err == nil && info.State.Msgs >= want
		})
	}
	for i := range n / 2 {
		publish(i)
	}
	waitModel(n / 2)
	leader := c.StreamLeader(events.StreamModel)
	if leader < 0 {
		t.Fatalf("no leader for %s", events.StreamModel)
	}
	c.Stop(leader)
	if _, err := c.WaitStreamLeader(ctx, events.StreamModel, leader); err != nil {
		t.Fatal(err)
	}
	for i := n / 2; i < n; i++ {
		publish(i)
	}
	waitModel(n)
	if err := c.Restart(ctx, leader); err != nil {
		t.Fatal(err)
	}
	info, err := b.Stream(events.StreamModel).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != n {
		t.Fatalf("TS_MODEL holds %d messages, want %d", info.State.Msgs, n)
	}
	for seq := uint64(1); seq <= n; seq++ {
		m, err := b.Stream(events.StreamModel).GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		env, err := events.Envelope(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("e%03d", seq-1); env.ID != want {
			t.Fatalf("TS_MODEL seq %d holds %s, want %s", seq, env.ID, want)
		}
	}
}
