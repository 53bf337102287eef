package auth_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAttackProducerSubscriptionFlood: a tenant's producer credential, the
// least trusted there is, holds at most auth.ProducerSubsMax subscriptions
// on a connection. Before, one nats.go connection with acme's producer
// creds took a million subscriptions to ts.call.acme.tN (its own tenant's
// subjects, so each one allowed): serve grew from 470 MB to 1.2 GB, went on
// removing them for minutes after the client left, and its Ctrl-C waited
// for that. Now the server refuses each subscription past the limit
// (maximum subscriptions exceeded), keeps the connection, and the ones
// within it still receive.
func TestAttackProducerSubscriptionFlood(t *testing.T) {
	b := bustest.Start(t)
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrMaxSubscriptionsExceeded) {
			refused.Add(1)
		}
	}))...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	first, err := nc.SubscribeSync("ts.call.acme.t0")
	if err != nil {
		t.Fatal(err)
	}
	const extra = 20
	for i := 1; i < auth.ProducerSubsMax+extra; i++ {
		if _, err := nc.Subscribe(fmt.Sprintf("ts.call.acme.t%d", i), func(*nats.Msg) {}); err != nil {
			t.Fatalf("subscribe %d: %v", i, err)
		}
	}
	if err := nc.FlushTimeout(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); refused.Load() < extra && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if got := refused.Load(); got != extra {
		t.Fatalf("%d subscriptions past %d refused, want %d", got, auth.ProducerSubsMax, extra)
	}
	if !nc.IsConnected() {
		t.Fatal("the producer's connection was closed; only the subscriptions past the limit are refused")
	}
	if err := b.Conn.Publish("ts.call.acme.t0", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := first.NextMsg(10 * time.Second); err != nil {
		t.Fatalf("a subscription within the limit: %v", err)
	}
}
