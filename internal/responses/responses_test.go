package responses_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/projector"
)

func publish(t *testing.T, b *bus.Bus, tenant, resp string, n int, body events.Body) uint64 {
	t.Helper()
	subj, err := events.ModelSubject(tenant, resp, "")
	if err != nil {
		t.Fatal(err)
	}
	ack, err := b.Publish(context.Background(), subj, &events.Event{
		ID: fmt.Sprintf("%s/%s/%d", tenant, resp, n), Tenant: tenant, Response: resp, At: int64(n), Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

func run(t *testing.T, b *bus.Bus, dir string, until uint64) *projector.Runner {
	t.Helper()
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: dir}, responses.Projection{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; r.Close() })
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	if err := r.WaitFor(wctx, until); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTenantsNeverMeet(t *testing.T) {
	b := bustest.Start(t)
	publish(t, b, "acme", "r1", 1, &events.ResponseStarted{Provider: "anthropic"})
	publish(t, b, "acme", "shared", 2, &events.ResponseStarted{})
	publish(t, b, "acme2", "shared", 3, &events.ResponseStarted{})
	last := publish(t, b, "acme2", "shared", 4, &events.ResponseFailed{Code: "overloaded"})
	r := run(t, b, t.TempDir(), last)
	v := r.View()
	defer v.Close()

	acme, err := responses.List(v, "acme")
	if err != nil {
		t.Fatal(err)
	}
	acme2, err := responses.List(v, "acme2")
	if err != nil {
		t.Fatal(err)
	}
	if len(acme) != 2 || len(acme2) != 1 {
		t.Fatalf("acme %d responses, acme2 %d; want 2 and 1", len(acme), len(acme2))
	}
	for _, x := range acme {
		if x.Tenant != "acme" || x.Status != "open" {
			t.Fatalf("acme sees %+v", x)
		}
	}
	if acme2[0].Status != "failed" || acme2[0].Reason != "overloaded" {
		t.Fatalf("acme2 shared = %+v", acme2[0])
	}
	// Every stored key starts with its tenant.
	err = v.Scan(nil, func(k, _ []byte) error {
		if !(string(k[:5]) == "acme\x00" || string(k[:6]) == "acme2\x00") {
			return fmt.Errorf("key %q does not start with a tenant", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "a.b", "*"} {
		if _, err := responses.List(v, q); !errors.Is(err, projector.ErrNoTenant) {
			t.Fatalf("List(%q) = %v, want ErrNoTenant", q, err)
		}
		if _, err := responses.Get(v, q, "shared"); !errors.Is(err, projector.ErrNoTenant) {
			t.Fatalf("Get(%q) = %v, want ErrNoTenant", q, err)
		}
	}
	if _, err := responses.Get(v, "acme2", "r1"); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("acme2 can see acme's r1: %v", err)
	}
}
