package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/runs"
)

// TestBusyRunsServiceIsAskedAgain: acme's producer sends, all at once,
// more messages into a run than the runs service's lane holds
// (runs.LaneMax); what is past the lane is refused 503 and the client asks
// again after a wait, so every message is applied. A 400 (an unknown
// history format) is asked once and never again.
func TestBusyRunsServiceIsAskedAgain(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, client.WithRequestTimeout(time.Minute))
	messages := bustest.CountRequests(t, b.Conn, runs.ServiceSubject("message", "acme"))
	histories := bustest.CountRequests(t, b.Conn, runs.ServiceSubject("history", "acme"))

	const burst = 2 * runs.LaneMax
	errs := make([]error, burst)
	var wg sync.WaitGroup
	for i := range burst {
		wg.Go(func() {
			_, errs[i] = c.Say(ctx, "acme", "run1", "u1", fmt.Sprintf("m%d", i), "hello", "openai-chat")
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("message %d of the burst: %v", i, err)
		}
	}
	if _, err := c.History(ctx, "acme", "run1", runs.HistoryOptions{Format: "telepathy"}); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("an unknown format: %v", err)
	}
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d messages in %d requests; one refused history in %d", burst, messages.Load(), histories.Load())
	if messages.Load() <= burst {
		t.Errorf("%d messages in %d requests: none was refused busy and asked again", burst, messages.Load())
	}
	if histories.Load() != 1 {
		t.Errorf("a 400 asked %d times, want once", histories.Load())
	}
}
