package executor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// Every window uses the same reply subjects (inbox.<i>), so answers that
// come after their window gave up must never be taken for a later
// window's: a window that times out drops its subscription. Here a
// responder on the outcomes' subject holds the first window's answers past
// store.timeout (each decision fails with nats.ErrTimeout), sends them
// late, then answers the second window at once: each of the second
// window's decisions gets its own answer (sequence 100+i), not the first
// window's (i). With the subscription kept, the late answers, sent first,
// are taken for the second window's (tried).
func TestALateAnswerIsNotTakenForTheNextWindow(t *testing.T) {
	b := bustest.Start(t)
	e := &Executor{store: store{nc: b.Conn, timeout: 300 * time.Millisecond}}
	var mu sync.Mutex
	var held []*nats.Msg
	sub, err := b.Conn.Subscribe("late.>", func(m *nats.Msg) {
		window, i, _ := strings.Cut(string(m.Data), "-")
		if window == "1" {
			mu.Lock()
			held = append(held, m)
			mu.Unlock()
			return
		}
		n, _ := strconv.Atoi(i)
		m.Respond(fmt.Appendf(nil, `{"stream":"LATE","seq":%d}`, 100+n))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	put := func(window int) []*decision {
		ds := make([]*decision, 3)
		for i := range ds {
			ds[i] = &decision{msg: &nats.Msg{Subject: fmt.Sprintf("late.%d.%d", window, i), Data: fmt.Appendf(nil, "%d-%d", window, i)}}
		}
		return ds
	}
	ctx := context.Background()
	first := put(1)
	e.publishAll(ctx, first)
	for i, d := range first {
		if d.acked || !errors.Is(d.err, nats.ErrTimeout) {
			t.Fatalf("first window, decision %d: acked %v (%+v), %v; want a timeout", i, d.acked, d.ack, d.err)
		}
	}
	mu.Lock()
	for i, m := range held { // the late answers: sequences 0, 1, 2
		m.Respond(fmt.Appendf(nil, `{"stream":"LATE","seq":%d}`, i))
	}
	mu.Unlock()
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	second := put(2)
	e.publishAll(ctx, second)
	for i, d := range second {
		if d.err != nil || !d.acked || d.ack.Sequence != uint64(100+i) {
			t.Fatalf("second window, decision %d: acked %v with sequence %d, %v; want sequence %d", i, d.acked, d.ack.Sequence, d.err, 100+i)
		}
	}
}
