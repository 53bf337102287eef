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
	ln := &lane{} // both windows on one lane, as a lane's windows follow one another
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
	e.publishAll(ctx, ln, first)
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
	e.publishAll(ctx, ln, second)
	for i, d := range second {
		if d.err != nil || !d.acked || d.ack.Sequence != uint64(100+i) {
			t.Fatalf("second window, decision %d: acked %v with sequence %d, %v; want sequence %d", i, d.acked, d.ack.Sequence, d.err, 100+i)
		}
	}
}

// A window passes the lead on once its publishes are sent, so the next
// window goes while the log answers the one before (windowLanes). Here
// the log's stand-in (a responder on the outcomes' subject, the bucket's
// looks answered "none") holds the first decision's acknowledgement until
// the second decision's outcome is published; the second decision is
// asked while the first window waits. Both must be acknowledged. With a
// window handing the lead on only once answered, the second waits behind
// the first, which times out (tried: the first decision fails with
// nats.ErrTimeout).
func TestAWindowGoesWhileTheOneBeforeWaitsForItsAnswers(t *testing.T) {
	b := bustest.Start(t)
	e := &Executor{store: store{nc: b.Conn, timeout: 2 * time.Second, direct: "look."}}
	looks, err := b.Conn.Subscribe("look.>", func(m *nats.Msg) {
		m.RespondMsg(&nats.Msg{Header: nats.Header{"Status": []string{"404"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer looks.Unsubscribe()
	firstSeen := make(chan struct{})
	var mu sync.Mutex
	var first *nats.Msg
	outs, err := b.Conn.Subscribe("pipe.>", func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		switch m.Subject {
		case "pipe.first": // held until the second is published
			first = m
			close(firstSeen)
		case "pipe.second":
			first.Respond([]byte(`{"stream":"PIPE","seq":1}`))
			m.Respond([]byte(`{"stream":"PIPE","seq":2}`))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer outs.Unsubscribe()
	ctx := context.Background()
	decide := func(name string) error {
		out := &outcome{Subject: "pipe." + name, ID: "id-" + name, Data: []byte(name)}
		found, dup, _, err := e.decideInLog(ctx, "acme", "key-"+name, out, 1, "tool", nil)
		if err == nil && (found || dup) {
			err = fmt.Errorf("found %v, duplicate %v", found, dup)
		}
		return err
	}
	errs := make(chan error, 1)
	go func() { errs <- decide("first") }()
	select {
	case <-firstSeen:
	case <-time.After(10 * time.Second):
		t.Fatal("the first outcome was never published")
	}
	if err := decide("second"); err != nil {
		t.Errorf("second decision: %v", err)
	}
	if err := <-errs; err != nil {
		t.Errorf("first decision: %v", err)
	}
}
