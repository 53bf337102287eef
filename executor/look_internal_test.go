package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// lookFixture is a record bucket on a real server holding, among the keys
// k0…k(n-1): a record at every third, a deleted record at the next, and
// nothing at the one after; want says which hold a record.
type lookFixture struct {
	s     *store
	nc    *nats.Conn
	api   string // the bucket's direct get subject
	keys  []string
	want  map[string]bool
	multi *nats.Subscription // sees the batched looks asked (multi_last)
	one   *nats.Subscription // sees the single looks asked
}

func newLookFixture(t *testing.T, n int) *lookFixture {
	t.Helper()
	ctx := context.Background()
	b := bustest.Start(t)
	const bucket = "looks"
	kv, err := b.JS.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucket, History: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := &lookFixture{nc: b.Conn, api: "$JS.API.DIRECT.GET.KV_" + bucket, want: map[string]bool{}}
	f.s = &store{kv: kv, retry: fastRetry, bound: 10 * time.Second, nc: b.Conn,
		direct: directGetPrefix(b.JS, bucket), timeout: 5 * time.Second}
	if f.s.direct == "" {
		t.Fatal("the bucket allows no direct gets")
	}
	for i := range n {
		key := fmt.Sprintf("acme/run/step/k%d", i)
		f.keys = append(f.keys, key)
		switch i % 3 {
		case 0:
			// A record with an outcome in it, so answers are not all small.
			rec := &record{Key: key, State: stateDone, Outcome: &outcome{Data: []byte(strings.Repeat("x", 2000))}}
			if _, err := f.s.put(ctx, "acme", rec, 0); err != nil {
				t.Fatal(err)
			}
			f.want[key] = true
		case 1:
			if _, err := f.s.put(ctx, "acme", &record{Key: key, State: stateSkipped}, 0); err != nil {
				t.Fatal(err)
			}
			if err := kv.Delete(ctx, recordKey("acme", key)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The looks the bucket is asked, kept as they go by.
	if f.one, err = b.Conn.SubscribeSync(f.api + ".>"); err != nil {
		t.Fatal(err)
	}
	if f.multi, err = b.Conn.SubscribeSync(f.api); err != nil {
		t.Fatal(err)
	}
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	return f
}

// asked returns how many batched and single looks the bucket was asked so
// far: after a flush, the server has relayed every request sent before it.
func (f *lookFixture) asked(t *testing.T) (multi, one int) {
	t.Helper()
	if err := f.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	multi, _, err := f.multi.Pending()
	if err != nil {
		t.Fatal(err)
	}
	one, _, err = f.one.Pending()
	if err != nil {
		t.Fatal(err)
	}
	return multi, one
}

// queued puts a look for each key in the queue as jobs that asked while a
// batch was on its way would have, then sends them as the next leader
// does, and returns them answered.
func (f *lookFixture) queued(keys []string) []*look {
	l := &f.s.looks
	var qs []*look
	for _, k := range keys {
		qs = append(qs, &look{turn: newTurn(), subj: recordKey("acme", k)})
	}
	l.join(qs...)
	for {
		f.s.sendLooks(context.Background())
		l.turns.mu.Lock()
		if !l.busy {
			l.turns.mu.Unlock()
			return qs
		}
		next := l.queue[0] // handed the lead: it sends the next batch
		l.turns.mu.Unlock()
		<-next.done
		if !next.lead {
			panic("the next look was answered, not handed the lead")
		}
		next.lead = false
	}
}

func (f *lookFixture) check(t *testing.T, keys []string, qs []*look) {
	t.Helper()
	for i, q := range qs {
		if q.err != nil || q.found != f.want[keys[i]] {
			t.Errorf("look for %s: found %v, %v; want found %v", keys[i], q.found, q.err, f.want[keys[i]])
		}
	}
}

// Looks asked while another is on its way go as one request, answered for
// each key exactly as single looks are: a record, a deleted record (none),
// nothing; twice the same key, once asked.
func TestLooksTogether(t *testing.T) {
	f := newLookFixture(t, 90)
	keys := append(append([]string{}, f.keys...), f.keys[0], f.keys[1])
	qs := f.queued(keys)
	f.check(t, keys, qs)
	if m, o := f.asked(t); m != 1 || o != 0 {
		t.Fatalf("%d batched and %d single requests for one batch", m, o)
	}
	// The same, one by one (a batch of one is the single direct get).
	for i, k := range f.keys {
		found, err := f.s.exists(context.Background(), "acme", k)
		if err != nil || found != f.want[k] {
			t.Fatalf("exists(%s) = %v, %v; want %v (key %d)", k, found, err, f.want[k], i)
		}
	}
}

// More looks than a batch holds go in several batches, one after the
// other, each led by the first look it carries.
func TestLooksInSeveralBatches(t *testing.T) {
	f := newLookFixture(t, 30)
	var keys []string
	for len(keys) < 2*lookBatchMax+7 {
		keys = append(keys, f.keys...)
	}
	keys = keys[:2*lookBatchMax+7]
	qs := f.queued(keys)
	f.check(t, keys, qs)
	if m, _ := f.asked(t); m != 3 {
		t.Fatalf("%d batches for %d looks, want 3", m, len(keys))
	}
}

// Jobs looking all at once each get their own answer, whoever leads.
func TestLooksConcurrent(t *testing.T) {
	f := newLookFixture(t, 60)
	const jobs = 300
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for i := range jobs {
		key := f.keys[i%len(f.keys)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			found, err := f.s.exists(context.Background(), "acme", key)
			if err != nil || found != f.want[key] {
				errs <- fmt.Errorf("exists(%s) = %v, %v; want %v", key, found, err, f.want[key])
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f.s.looks.mu.Lock()
	defer f.s.looks.mu.Unlock()
	if f.s.looks.busy || len(f.s.looks.queue) != 0 {
		t.Fatalf("looks left behind: busy %v, %d queued", f.s.looks.busy, len(f.s.looks.queue))
	}
}

// An answer the server cuts short (past its byte bound) leaves the rest
// to single looks.
func TestLooksCutShort(t *testing.T) {
	f := newLookFixture(t, 30)
	f.s.looks.bytesMax = 1 // one record per answer
	qs := f.queued(f.keys)
	f.check(t, f.keys, qs)
	if m, o := f.asked(t); m != 1 || o != len(f.keys)-1 {
		t.Fatalf("%d batched and %d single requests; want 1 and %d", m, o, len(f.keys)-1)
	}
}

// A bucket that answers no direct gets (here: the store names one that
// does not exist, so nobody answers) is read instead, and no batch is
// tried again.
func TestLooksWithoutDirectGets(t *testing.T) {
	f := newLookFixture(t, 12)
	f.s.direct = "$JS.API.DIRECT.GET.KV_gone.$KV.gone."
	keys := f.keys
	l := &f.s.looks
	var qs []*look
	for _, k := range keys {
		qs = append(qs, &look{turn: newTurn(), subj: recordKey("acme", k)})
	}
	l.join(qs...)
	f.s.sendLooks(context.Background())
	for i, q := range qs {
		if !errors.Is(q.err, errNoDirect) {
			t.Fatalf("look for %s: %v, %v; want errNoDirect", keys[i], q.found, q.err)
		}
	}
	if !l.noMulti {
		t.Fatal("batches are still tried")
	}
	for _, k := range keys {
		found, err := f.s.exists(context.Background(), "acme", k)
		if err != nil || found != f.want[k] {
			t.Fatalf("exists(%s) = %v, %v; want %v", k, found, err, f.want[k])
		}
	}
}

// A window's looks (lookNow), built with the entry subjects a window
// builds and sent on the window's own subscription, are answered as the
// queued looks are, in one request, while a look of the looker's queue is
// answered on the queue's subscription (a window never waits for the
// queue, and the two never take each other's answers).
func TestAWindowsLooksGoTogetherOnTheirOwn(t *testing.T) {
	f := newLookFixture(t, 90)
	keys := append(append([]string{}, f.keys...), f.keys[0], f.keys[1])
	var ls lookSub
	for round := range 2 { // the second reuses the window's subscription
		qs := make([]*look, len(keys))
		for i, k := range keys {
			full, subj := entrySubjects(f.s.direct, "acme", k)
			qs[i] = &look{subj: subj, full: full}
		}
		f.s.lookNow(context.Background(), &ls, qs)
		f.check(t, keys, qs)
		for _, q := range qs {
			if q.next != nil {
				t.Fatal("a look still chained to another after its batch")
			}
		}
		if m, o := f.asked(t); m != round+1 || o != 0 {
			t.Fatalf("round %d: %d batched and %d single requests", round, m, o)
		}
	}
	if ls.sub == nil || ls.sub == f.s.looks.sub {
		t.Fatal("the window's looks were not answered on a subscription of its own")
	}
	qs := f.queued(keys[:5])
	f.check(t, keys[:5], qs)
}
