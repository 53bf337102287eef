package assembler_test

import (
	"context"
	"fmt"
	"github.com/toolstream/toolstream/internal/logread"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// harness runs the assembler projection on a real embedded server and a
// real Pebble view, and reads what it emitted back from the log.
type harness struct {
	t       testing.TB
	b       *bus.Bus
	dir     string
	cfg     assembler.Config
	r       *projector.Runner
	a       *assembler.Assembler // the runner's projection
	stop    func()
	n       int
	cursors map[string]uint64 // by stream: the last sequence already shown
}

func newHarness(t testing.TB, cfg assembler.Config) *harness {
	h := &harness{t: t, b: bustest.Start(t), dir: filepath.Join(t.TempDir(), "view"), cfg: cfg, cursors: map[string]uint64{}}
	h.start()
	t.Cleanup(func() { h.stop() })
	return h
}

func (h *harness) start() {
	h.a = assembler.New(h.cfg)
	h.run(h.a)
}

// run starts a runner of p (h.a, or a projection around it) on the view.
func (h *harness) run(p projector.Projection) {
	r, err := projector.New(projector.Config{JS: h.b.JS, Keys: h.b.Keys, Dir: h.dir}, p)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	h.r = r
	h.stop = func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("runner: %v", err)
		}
		r.Close()
		h.stop = func() {}
	}
}

func (h *harness) publish(ev *events.Event) uint64 {
	h.n++
	if ev.ID == "" {
		ev.ID = fmt.Sprintf("test:%d", h.n)
	}
	var subj string
	var err error
	switch ev.Body.(type) {
	case *events.Tick:
		subj = events.ModelClockSubject
	case *events.RegistryChanged:
		subj, err = events.ControlSubject(events.SystemTenant, "registry")
	default:
		subj, err = events.ModelSubject(ev.Tenant, ev.Response, ev.Item)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	ack, err := h.b.Publish(context.Background(), subj, ev)
	if err != nil {
		h.t.Fatal(err)
	}
	return ack.Sequence
}

// settle waits until the view applied seq and relayed its outbox.
func (h *harness) settle(seq uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.r.WaitFor(ctx, seq); err != nil {
		h.t.Fatalf("waiting for seq %d: %v", seq, err)
	}
	if err := h.r.WaitRelayed(ctx); err != nil {
		h.t.Fatal(err)
	}
}

// emitted returns the call events, then the response outcomes, after the
// cursors, each in its stream's order. (They live in two streams, TS_CALLS
// and TS_OUT, and nothing orders one stream's events against the other's.)
func (h *harness) emitted() []*events.Event {
	var out []*events.Event
	for _, stream := range []string{events.StreamCalls, events.StreamOut} {
		err := h.b.Read(context.Background(), logread.Config{Stream: stream, From: h.cursors[stream] + 1, Subjects: []string{"ts.call.>", "ts.resp.>"}},
			func(batch []*logread.Msg) error {
				for _, m := range batch {
					h.cursors[stream] = m.Seq
					ev, err := events.DecodeWith(m.Data, h.b.Keys)
					if err != nil {
						return err
					}
					out = append(out, ev)
				}
				return nil
			})
		if err != nil {
			h.t.Fatal(err)
		}
	}
	return out
}

// render prints events in a canonical, sorted-field text form.
func render(evs []*events.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "%s %s/%s", ev.Kind, ev.Response, ev.Item)
		if ev.CallID != "" {
			fmt.Fprintf(&b, " call=%s", ev.CallID)
		}
		switch x := ev.Body.(type) {
		case *events.CallCompleted:
			fmt.Fprintf(&b, " name=%s order=%d args=%s", x.Name, x.Order, x.Arguments)
			if len(x.Coerced) > 0 {
				fmt.Fprintf(&b, " coerced=%s", strings.Join(x.Coerced, ","))
			}
			if len(x.DependsOn) > 0 {
				fmt.Fprintf(&b, " depends=%s", strings.Join(x.DependsOn, ","))
			}
			if len(x.Repaired) > 0 {
				fmt.Fprintf(&b, " repaired=%s", strings.Join(x.Repaired, ","))
			}
			if len(x.After) > 0 {
				fmt.Fprintf(&b, " after=%s", strings.Join(x.After, ","))
			}
		case *events.CallRejected:
			fmt.Fprintf(&b, " name=%s order=%d reason=%s", x.Name, x.Order, x.Reason)
			if x.Reason == events.ReasonInvalidDependency || x.Reason == events.ReasonInvalidJSON {
				fmt.Fprintf(&b, " detail=%q", x.Detail)
			}
		case *events.CallIncomplete:
			fmt.Fprintf(&b, " name=%s order=%d reason=%s partial=%q", x.Name, x.Order, x.Reason, x.Partial)
		case *events.InputRejected:
			fmt.Fprintf(&b, " seq=%d reason=%s", x.Seq, x.Reason)
		case *events.ResponseOutcome:
			fmt.Fprintf(&b, " status=%s calls=%d", x.Status, x.Calls)
			if x.Reason != "" {
				fmt.Fprintf(&b, " reason=%s", x.Reason)
			}
			if x.ErrorCode != "" {
				fmt.Fprintf(&b, " error=%s", x.ErrorCode)
			}
			if x.Text != "" {
				fmt.Fprintf(&b, " text=%q", x.Text)
			}
			if x.Usage != (events.Usage{}) {
				fmt.Fprintf(&b, " usage=%d/%d", x.Usage.Input, x.Usage.Output)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// parseLine reads one canonical event in the test syntax:
//
//	<verb> <response> [<item>] [key=value…] [-- raw text]
//
// verbs: start, added, delta, done, itemdone, aborted, text, completed,
// incomplete, failed, tick. The text after " -- " is the delta or the
// authoritative arguments.
func parseLine(t testing.TB, tenant, line string) *events.Event {
	raw := ""
	if i := strings.Index(line, " -- "); i >= 0 {
		line, raw = line[:i], line[i+4:]
	} else if strings.HasSuffix(line, " --") {
		line, raw = strings.TrimSuffix(line, " --"), ""
	}
	f := strings.Fields(line)
	kv := map[string]string{}
	var pos []string
	for _, x := range f[1:] {
		if k, v, ok := strings.Cut(x, "="); ok {
			kv[k] = v
		} else {
			pos = append(pos, x)
		}
	}
	ev := &events.Event{Tenant: tenant, CallID: kv["call"]}
	if t := kv["tenant"]; t != "" {
		ev.Tenant = t
	}
	if len(pos) > 0 {
		ev.Response = pos[0]
	}
	if len(pos) > 1 {
		ev.Item = pos[1]
	}
	at, _ := strconv.ParseInt(kv["at"], 10, 64)
	ev.At = at * int64(time.Second)
	_, hasArgs := kv["args"]
	switch f[0] {
	case "start":
		ev.Body = &events.ResponseStarted{}
	case "added":
		ix, _ := strconv.Atoi(kv["index"])
		typ := events.ItemFunctionCall
		if v := kv["type"]; v != "" {
			typ = events.ItemType(v)
		}
		ev.Body = &events.OutputItemAdded{Type: typ, Index: ix, Name: kv["name"], Arguments: raw, HasArguments: hasArgs}
	case "delta":
		ev.Body = &events.ArgumentsDelta{Delta: raw}
	case "done":
		ev.Body = &events.ArgumentsDone{Arguments: raw, HasArguments: hasArgs}
	case "itemdone":
		ev.Body = &events.OutputItemDone{Name: kv["name"], Arguments: raw, HasArguments: hasArgs, Status: kv["status"]}
	case "aborted":
		ev.Body = &events.ItemAborted{Reason: events.Reason(kv["reason"])}
	case "text":
		ev.Body = &events.TextDelta{Text: raw}
	case "completed":
		ev.Body = &events.ResponseCompleted{StopReason: kv["stop"]}
	case "incomplete":
		ev.Body = &events.ResponseIncomplete{Reason: events.Reason(kv["reason"])}
	case "failed":
		ev.Body = &events.ResponseFailed{Code: kv["code"], Message: kv["message"]}
	case "tick":
		ev.Tenant, ev.Response = events.SystemTenant, ""
		ev.Body = &events.Tick{}
	default:
		t.Fatalf("unknown verb in %q", line)
	}
	return ev
}

func sortedKeys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// republishRegistry publishes the n-th (from 1) registry change of the log
// again, byte for byte: a replay by anyone who may publish on the subject.
func (h *harness) republishRegistry(n int) {
	ctx := context.Background()
	c, err := h.b.JS.OrderedConsumer(ctx, events.StreamModel, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"ts.ctl._system.registry"}})
	if err != nil {
		h.t.Fatal(err)
	}
	for range n - 1 {
		if _, err := c.Next(jetstream.FetchMaxWait(5 * time.Second)); err != nil {
			h.t.Fatal(err)
		}
	}
	m, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.b.JS.Publish(ctx, m.Subject(), m.Data()); err != nil {
		h.t.Fatal(err)
	}
}

// typedReason finds an events.Reason (a snake_case word) in a rejection.
var typedReason = regexp.MustCompile(`registry_[a-z_]+`)

// rejections lists the view's rejected messages: subject and the typed
// reason (the whole reason when it has none).
func (h *harness) rejections() string {
	rjs, err := h.r.Rejections()
	if err != nil {
		h.t.Fatal(err)
	}
	var b strings.Builder
	for _, rj := range rjs {
		reason := typedReason.FindString(rj.Reason)
		if reason == "" {
			reason = rj.Reason
		}
		fmt.Fprintf(&b, "%s %s\n", rj.Subject, reason)
	}
	if b.Len() == 0 {
		return "none\n"
	}
	return b.String()
}

// replay rebuilds the view from sequence 1 into a new directory and
// compares its digest with the live view's.
func (h *harness) replay() string {
	live, err := h.r.Digest()
	if err != nil {
		h.t.Fatal(err)
	}
	rebuilt, err := projector.Replay(context.Background(), projector.Config{JS: h.b.JS, Keys: h.b.Keys,
		Dir: filepath.Join(h.t.TempDir(), "replay")}, assembler.New(h.cfg), live.Seq)
	if err != nil {
		h.t.Fatal(err)
	}
	if live != rebuilt {
		return fmt.Sprintf("DIFFERENT live %v replay %v\n", live, rebuilt)
	}
	return "replay equals live\n"
}
