package assembler_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/logtest"
	"github.com/toolstream/toolstream/projector"
)

// floodCall is one response with one call of tenant, deltas argument
// deltas long, its events timed from at on, step apart.
func floodCall(tenant, resp string, deltas int, at *int64, step time.Duration) []*events.Event {
	next := func(ev *events.Event) *events.Event {
		ev.Tenant, ev.Response, ev.At = tenant, resp, *at
		*at += int64(step)
		return ev
	}
	evs := []*events.Event{next(&events.Event{Item: "i", Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "search"}}),
		next(&events.Event{Item: "i", Body: &events.ArgumentsDelta{Delta: `{"q":"`}})}
	for range deltas {
		evs = append(evs, next(&events.Event{Item: "i", Body: &events.ArgumentsDelta{Delta: "flood"}}))
	}
	return append(evs, next(&events.Event{Item: "i", Body: &events.ArgumentsDelta{Delta: `"}`}}),
		next(&events.Event{Item: "i", Body: &events.ArgumentsDone{}}),
		next(&events.Event{Body: &events.ResponseCompleted{}}))
}

// publishAll publishes evs asynchronously in order and returns the last
// sequence.
func (h *harness) publishAll(evs []*events.Event) uint64 {
	h.t.Helper()
	var last jetstream.PubAckFuture
	for _, ev := range evs {
		h.n++
		ev.ID = fmt.Sprintf("test:%d", h.n)
		subj, err := events.ModelSubject(ev.Tenant, ev.Response, ev.Item)
		if err != nil {
			h.t.Fatal(err)
		}
		data, err := events.Encode(ev)
		if err != nil {
			h.t.Fatal(err)
		}
		for {
			last, err = h.b.JS.PublishAsync(subj, data)
			if err == nil {
				break
			}
			<-h.b.JS.PublishAsyncComplete()
		}
	}
	select {
	case ack := <-last.Ok():
		return ack.Sequence
	case err := <-last.Err():
		h.t.Fatal(err)
	case <-time.After(30 * time.Second):
		h.t.Fatal("publish not acknowledged")
	}
	return 0
}

// outcomes sorts emitted call and response outcomes by tenant and response.
type outcomes struct {
	calls map[string][]*events.Event // tenant/response/item
	resps map[string][]*events.Event // tenant/response
}

func collect(evs []*events.Event) outcomes {
	o := outcomes{calls: map[string][]*events.Event{}, resps: map[string][]*events.Event{}}
	for _, ev := range evs {
		switch ev.Body.(type) {
		case *events.ResponseOutcome:
			k := ev.Tenant + "/" + ev.Response
			o.resps[k] = append(o.resps[k], ev)
		default:
			k := ev.Tenant + "/" + ev.Response + "/" + ev.Item
			o.calls[k] = append(o.calls[k], ev)
		}
	}
	return o
}

func reasonOf(ev *events.Event) events.Reason {
	switch b := ev.Body.(type) {
	case *events.CallRejected:
		return b.Reason
	case *events.CallIncomplete:
		return b.Reason
	case *events.ResponseOutcome:
		return b.Reason
	}
	return ""
}

// TestFloodIsRefusedAndTheOtherTenantCompletes: tenant flood sends model
// events a hundred times faster than its quota (event time), on a real
// server, with tenant quiet's call in the middle of it. The quiet call
// completes; the flood's excess is refused with typed outcomes, and every
// one of its events is counted, admitted or refused; replaying the log
// gives the live view.
func TestFloodIsRefusedAndTheOtherTenantCompletes(t *testing.T) {
	quotas := &assembler.Quotas{
		Default: assembler.Quota{EventRateMax: 1000, ByteRateMax: -1, OpenCallsMax: -1},
		Tenants: map[string]assembler.Quota{"flood": {EventRateMax: 500}},
		Burst:   100 * time.Millisecond,
	}
	h := newHarness(t, assembler.Config{Quotas: quotas})
	const responses, deltas = 300, 20
	var flood []*events.Event
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano() // before the log's time: admit takes the event's
	for i := range responses {
		flood = append(flood, floodCall("flood", fmt.Sprint("f", i), deltas, &at, 10*time.Microsecond)...)
	}
	quietAt := at - int64(len(flood)/2)*int64(10*time.Microsecond)
	quiet := floodCall("quiet", "q", 3, &quietAt, time.Microsecond)
	half := len(flood) / 2
	h.publishAll(flood[:half])
	h.publishAll(quiet)
	last := h.publishAll(flood[half:])
	h.settle(last)

	o := collect(h.emitted())
	q := o.calls["quiet/q/i"]
	if len(q) != 1 || q[0].Kind != events.KindCallCompleted {
		t.Fatalf("the quiet tenant's call: %s", render(q))
	}
	if r := o.resps["quiet/q"]; len(r) != 1 || r[0].Body.(*events.ResponseOutcome).Status != events.StatusCompleted {
		t.Fatalf("the quiet tenant's response: %s", render(r))
	}

	// Every flood response and every call it opened has exactly one
	// outcome; the refused say quota_exceeded.
	var completed, refusedResps, refusedCalls int
	for i := range responses {
		resp := fmt.Sprint("f", i)
		r := o.resps["flood/"+resp]
		if len(r) != 1 {
			t.Fatalf("response %s has %d outcomes: %s", resp, len(r), render(r))
		}
		c := o.calls["flood/"+resp+"/i"]
		if len(c) > 1 {
			t.Fatalf("call %s has %d outcomes: %s", resp, len(c), render(c))
		}
		switch out := r[0].Body.(*events.ResponseOutcome); {
		case out.Status == events.StatusCompleted:
			if len(c) != 1 || c[0].Kind != events.KindCallCompleted {
				t.Fatalf("completed response %s without its call: %s", resp, render(c))
			}
			completed++
		case out.Reason == events.ReasonQuotaExceeded:
			refusedResps++
			if len(c) == 1 {
				if reasonOf(c[0]) != events.ReasonQuotaExceeded && c[0].Kind != events.KindCallCompleted {
					t.Fatalf("call of refused response %s: %s", resp, render(c))
				}
				if c[0].Kind != events.KindCallCompleted {
					refusedCalls++
				}
			}
		default:
			t.Fatalf("response %s: %s", resp, render(r))
		}
	}
	if completed == 0 || refusedResps < responses*9/10 {
		t.Fatalf("%d responses completed, %d refused: want some and most", completed, refusedResps)
	}

	view := h.r.View()
	defer view.Close()
	u, open, err := assembler.AssemblerUsage(view, "flood")
	if err != nil {
		t.Fatal(err)
	}
	if int(u.Admitted+u.Refused) != len(flood) || u.Refused == 0 || int(u.Refusals) != refusedResps || open != 0 {
		t.Fatalf("flood usage %+v, %d open: want %d events counted, %d refusals", u, open, len(flood), refusedResps)
	}
	var bytes uint64
	for _, ev := range flood {
		data, _ := events.Encode(ev)
		bytes += uint64(len(data))
	}
	if u.AdmittedBytes+u.RefusedBytes != bytes {
		t.Fatalf("flood bytes: %d admitted + %d refused, %d published", u.AdmittedBytes, u.RefusedBytes, bytes)
	}
	qu, _, err := assembler.AssemblerUsage(view, "quiet")
	if err != nil || qu.Refused != 0 || int(qu.Admitted) != len(quiet) {
		t.Fatalf("quiet usage %+v, %v", qu, err)
	}
	// The quiet tenant's outcomes are those it gets without the flood.
	alone := newHarness(t, assembler.Config{Quotas: quotas})
	for _, ev := range quiet {
		ev.ID = ""
	}
	alone.settle(alone.publishAll(quiet))
	var during []*events.Event
	for _, k := range []string{"quiet/q/i", "quiet/q"} {
		during = append(during, append(o.calls[k], o.resps[k]...)...)
	}
	if got, want := render(during), render(alone.emitted()); got != want {
		t.Fatalf("the quiet tenant during the flood:\n%s\nalone:\n%s", got, want)
	}
	t.Logf("flood: %d of %d responses completed, %d refused (%d calls cut); %d events admitted, %d refused",
		completed, responses, refusedResps, refusedCalls, u.Admitted, u.Refused)

	live, err := view.Digest()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rebuilt, err := projector.Replay(ctx, projector.Config{JS: h.b.JS, Keys: h.b.Keys, Dir: filepath.Join(t.TempDir(), "replay")},
		assembler.New(assembler.Config{Quotas: quotas}), live.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt != live {
		t.Fatalf("replay of the flooded log %v, live %v", rebuilt, live)
	}
}

// TestOpenCallsPastTheQuotaAreRejected: a tenant with OpenCallsMax calls
// open gets CallRejected quota_exceeded for the next, whose later events
// change nothing; once one of its calls is decided it may open another;
// another tenant is not counted with it.
func TestOpenCallsPastTheQuotaAreRejected(t *testing.T) {
	h := newHarness(t, assembler.Config{Quotas: &assembler.Quotas{Default: assembler.Quota{EventRateMax: -1, ByteRateMax: -1, OpenCallsMax: 2}}})
	var seq uint64
	for _, line := range []string{
		"added r1 i1 name=t", "added r1 i2 name=t", "added r2 i1 name=t",
		"added r1 i1 name=t tenant=other", "added r1 i2 name=t tenant=other",
		"delta r2 i1 -- {}", "done r2 i1",
		"done r1 i1 -- {}", "added r3 i1 name=t", "done r3 i1 -- {}",
	} {
		seq = h.publish(parseLine(t, "acme", line))
	}
	h.settle(seq)
	got := render(h.emitted())
	want := `call.rejected r2/i1 name=t order=0 reason=quota_exceeded
call.completed r1/i1 name=t order=0 args={}
call.completed r3/i1 name=t order=0 args={}
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	view := h.r.View()
	defer view.Close()
	for tenant, want := range map[string]int{"acme": 1, "other": 2} {
		u, open, err := assembler.AssemblerUsage(view, tenant)
		if err != nil || open != want {
			t.Errorf("%s: %d open (%+v, %v), want %d", tenant, open, u, err, want)
		}
	}
	if u, _, _ := assembler.AssemblerUsage(view, "acme"); u.CallsRefused != 1 || u.Refused != 0 {
		t.Errorf("acme usage %+v", u)
	}
}

// TestRefusedMidwayGetsTypedOutcomes: a tenant over its rate in the middle
// of a call gets the call incomplete and the response incomplete, both
// quota_exceeded, at once; the rest of the response changes nothing;
// another tenant at the same moment is not charged for it; once the
// tenant's rate allows, its next response is taken.
func TestRefusedMidwayGetsTypedOutcomes(t *testing.T) {
	h := newHarness(t, assembler.Config{Quotas: &assembler.Quotas{
		Default: assembler.Quota{EventRateMax: 1, ByteRateMax: -1, OpenCallsMax: -1}, Burst: 2 * time.Second}})
	var seq uint64
	for _, line := range []string{
		"added r1 i1 name=t at=1", `delta r1 i1 at=1 -- {"a":`, "delta r1 i1 at=1 -- 1", "delta r1 i1 at=1 -- }",
		"done r1 i1 at=1", "completed r1 at=1",
		"added r1 i1 name=t tenant=other at=1", "done r1 i1 tenant=other at=1 -- {}", "completed r1 tenant=other at=1",
		"added r2 i1 name=t at=10", "done r2 i1 at=10 -- {}", "completed r2 at=10",
	} {
		seq = h.publish(parseLine(t, "acme", line))
	}
	h.settle(seq)
	got := render(h.emitted())
	want := `call.incomplete r1/i1 name=t order=0 reason=quota_exceeded partial="{\"a\":1"
call.completed r1/i1 name=t order=0 args={}
call.completed r2/i1 name=t order=0 args={}
call.response_outcome r1/ status=incomplete calls=1 reason=quota_exceeded
call.response_outcome r1/ status=completed calls=1
call.response_outcome r2/ status=completed calls=1
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	view := h.r.View()
	defer view.Close()
	u, open, err := assembler.AssemblerUsage(view, "acme")
	if err != nil || u.Admitted != 6 || u.Refused != 3 || u.Refusals != 1 || open != 0 {
		t.Fatalf("acme usage %+v, %d open, %v", u, open, err)
	}
	if u, _, err := assembler.AssemblerUsage(view, "other"); err != nil || u.Admitted != 3 || u.Refused != 0 {
		t.Fatalf("other usage %+v, %v", u, err)
	}
}

// TestForgedEventTimeBuysNoBurst: a producer that dates its events an hour
// apart is charged at the log's time of each, so it gets no more than its
// rate over the time it really took to publish them.
func TestForgedEventTimeBuysNoBurst(t *testing.T) {
	const n = 100
	h := newHarness(t, assembler.Config{Quotas: &assembler.Quotas{
		Default: assembler.Quota{EventRateMax: 1, ByteRateMax: -1, OpenCallsMax: -1}, Burst: time.Second}})
	start := time.Now()
	var evs []*events.Event
	for i := range n {
		evs = append(evs, &events.Event{Tenant: "acme", Response: fmt.Sprint("r", i), At: start.Add(time.Duration(i) * time.Hour).UnixNano(),
			Body: &events.ResponseStarted{}})
	}
	h.settle(h.publishAll(evs))
	elapsed := time.Since(start)
	view := h.r.View()
	defer view.Close()
	u, _, err := assembler.AssemblerUsage(view, "acme")
	if err != nil {
		t.Fatal(err)
	}
	// At one event a second with a second's burst: two at once, then one a
	// second of the log's time, which passed within elapsed.
	if most := 2 + uint64(elapsed/time.Second); u.Admitted > most || u.Admitted+u.Refused != n {
		t.Fatalf("usage %+v in %v: want at most %d admitted of %d", u, elapsed, most, n)
	}
}

func TestParseQuota(t *testing.T) {
	for _, c := range []struct {
		in   string
		want assembler.Quota
		err  bool
	}{
		{in: "events=5000,bytes=4MiB,open=1000", want: assembler.Quota{EventRateMax: 5000, ByteRateMax: 4 << 20, OpenCallsMax: 1000}},
		{in: "events=unlimited", want: assembler.Quota{EventRateMax: -1}},
		{in: " open=3 , bytes=100", want: assembler.Quota{ByteRateMax: 100, OpenCallsMax: 3}},
		{in: "bytes=2KiB", want: assembler.Quota{ByteRateMax: 2048}},
		{in: "", err: true},
		{in: "events", err: true},
		{in: "events=0", err: true},
		{in: "events=-5", err: true},
		{in: "events=5k", err: true},
		{in: "events=1KiB", err: true}, // a suffix is for bytes only
		{in: "events=1,events=2", err: true},
		{in: "calls=3", err: true},
		{in: "bytes=4GiB", err: true},
		{in: "events=99999999999", err: true},
	} {
		got, err := assembler.ParseQuota(c.in)
		if c.err {
			if !errors.Is(err, assembler.ErrInvalidQuota) {
				t.Errorf("ParseQuota(%q) = %+v, %v: want ErrInvalidQuota", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseQuota(%q) = %+v, %v: want %+v", c.in, got, err, c.want)
		}
		if d := (&assembler.Quotas{Default: got}).For("x"); d.String() != "" {
			back, err := assembler.ParseQuota(d.String())
			if err != nil || back != d {
				t.Errorf("ParseQuota(%q) = %+v, %v: want %+v", d.String(), back, err, d)
			}
		}
	}
	for _, bad := range []string{"events=1", ":events=1", "a.b:events=1", "a*:events=1", "acme:", "acme:open=0"} {
		if _, _, err := assembler.ParseTenantQuota(bad); !errors.Is(err, assembler.ErrInvalidQuota) {
			t.Errorf("ParseTenantQuota(%q): %v, want ErrInvalidQuota", bad, err)
		}
	}
	if tenant, q, err := assembler.ParseTenantQuota("acme:open=10"); err != nil || tenant != "acme" || q != (assembler.Quota{OpenCallsMax: 10}) {
		t.Errorf("ParseTenantQuota: %s %+v %v", tenant, q, err)
	}
	for _, bad := range []assembler.Quotas{{Tenants: map[string]assembler.Quota{"": {}}}, {Tenants: map[string]assembler.Quota{"a>": {}}}, {Burst: -time.Second}} {
		if err := bad.Validate(); !errors.Is(err, assembler.ErrInvalidQuota) {
			t.Errorf("Validate(%+v): %v, want ErrInvalidQuota", bad, err)
		}
	}
}

// TestQuotaEdgeLogsOnceABout: a tenant sending far over its rate is
// admitted and refused in turn, event by event, as its bucket refills; the
// log said "over its quota" and "within its quota again" for each (a
// replay of the flood flooded stderr). It says each once a bout: back
// within only after a burst's time with no refusal.
func TestQuotaEdgeLogsOnceABout(t *testing.T) {
	quotas := &assembler.Quotas{
		Default: assembler.Quota{EventRateMax: 500, ByteRateMax: -1, OpenCallsMax: -1},
		Burst:   100 * time.Millisecond,
	}
	var logged logtest.Buffer
	h := newHarness(t, assembler.Config{Quotas: quotas, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	var flood []*events.Event
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := range 100 {
		flood = append(flood, floodCall("flood", fmt.Sprint("f", i), 20, &at, 10*time.Microsecond)...)
	}
	// A pause of a second (event time), then a call within the rate.
	at += int64(time.Second)
	flood = append(flood, floodCall("flood", "after", 3, &at, 10*time.Millisecond)...)
	h.settle(h.publishAll(flood))
	over, back := strings.Count(logged.String(), "over its quota"), strings.Count(logged.String(), "within its quota again")
	if over != 1 || back != 1 {
		t.Fatalf("%d lines over the quota, %d back within it for one bout and its end; want 1 and 1", over, back)
	}
}
