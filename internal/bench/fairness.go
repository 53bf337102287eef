package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// The tenants of the fairness measurement: one floods, the other calls a
// tool now and then.
const (
	FloodTenant = "flood"
	QuietTenant = "quiet"
)

// FairnessResult holds the quiet tenant's completion latencies without a
// flood and during one, and what the flooding tenant sent meanwhile.
type FairnessResult struct {
	Quiet, Flood []time.Duration
	// Flooded is how many model events the flooding tenant published while
	// the samples of Flood were taken, in Elapsed (all rounds).
	Flooded int
	Elapsed time.Duration
	// FloodUsage is what the assembler took and refused of the flooding
	// tenant (zero without quotas).
	FloodUsage assembler.Usage
	// Late counts the samples of Flood that took sampleMax or more: they
	// count as sampleMax (a machine too busy to read the flood as fast as
	// it comes falls behind it for as long as it lasts).
	Late int
}

// sampleMax bounds one sample: a call not completed by then counts as
// sampleMax.
const sampleMax = 10 * time.Second

// FairnessConfig is what Fairness runs.
type FairnessConfig struct {
	// Quotas are the assembler's; nil: none.
	Quotas  *assembler.Quotas
	Samples int
	// Spacing is the pause between two samples, so that the samples of the
	// flood span a while of it; default 100 ms.
	Spacing time.Duration
	// FloodRate is the flooding tenant's model events per second; 0: as
	// fast as one client can publish.
	FloodRate int
	// Warmup is how long each flood runs before its samples; default
	// floodWarmup.
	Warmup time.Duration
}

// floodWarmup is how long the flood runs before its samples begin: past
// the burst the default quota allows (at twice the rate, the tenant's
// allowance runs out after 2 s), so the samples see a flood that lasts,
// not its first seconds.
const floodWarmup = 2500 * time.Millisecond

// fairnessRounds is how many times the flood starts and stops.
const fairnessRounds = 4

// floodRound floods for floodWarmup, takes n samples while the flood goes
// on, stops it, and waits until the assembler has read all of it.
func floodRound(ctx context.Context, b *bus.Bus, r *projector.Runner, cfg FairnessConfig, round int, res *FairnessResult, sample func() error, n int) error {
	fctx, fstop := context.WithCancel(ctx)
	defer fstop()
	var flooded atomic.Int64
	ferr := make(chan error, 1)
	go func() { ferr <- flood(fctx, b.JS, cfg.FloodRate, round, &flooded) }()
	select {
	case <-time.After(cfg.Warmup):
	case err := <-ferr:
		return err
	}
	start, from := time.Now(), flooded.Load()
	var err error
	for range n {
		if err = sample(); err != nil {
			break
		}
	}
	res.Elapsed += time.Since(start)
	res.Flooded += int(flooded.Load() - from)
	fstop()
	if ferr := <-ferr; ferr != nil && !errors.Is(ferr, context.Canceled) && err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	<-b.JS.PublishAsyncComplete()
	last, err := b.LastSeq(ctx, events.StreamModel)
	if err != nil {
		return err
	}
	return r.WaitFor(ctx, last)
}

// Fairness runs the assembler and an executor on b (a fresh server) and
// times the quiet tenant's calls, each a response of four model events
// published one by one, from the publish of its completion signal
// (ArgumentsDone) to its CallSucceeded at a core subscriber: in each of
// fairnessRounds rounds, Samples/fairnessRounds of them on an idle log,
// then as many while the flooding tenant publishes argument deltas at
// FloodRate, event time the wall clock's.
func Fairness(ctx context.Context, b *bus.Bus, dir string, cfg FairnessConfig) (FairnessResult, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	if cfg.Spacing <= 0 {
		cfg.Spacing = 100 * time.Millisecond
	}
	if cfg.Warmup <= 0 {
		cfg.Warmup = floodWarmup
	}
	var res FairnessResult
	reg, err := registry.Parse([]byte("tools:\n  - {name: weather, side_effect: none}\ngrants:\n  - {tenant: " + QuietTenant +
		", permissions: [weather]}\n  - {tenant: " + FloodTenant + ", permissions: [weather]}\n"))
	if err != nil {
		return res, err
	}
	noop := executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, ExecutorID: "bench-fairness",
		Registry: func() *registry.Registry { return reg }, Tools: map[string]executor.Tool{"weather": noop}})
	if err != nil {
		return res, err
	}
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(dir, "bench-fairness")}, assembler.New(assembler.Config{Quotas: cfg.Quotas}))
	if err != nil {
		return res, err
	}
	rctx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	var runErr, exErr error
	var running sync.WaitGroup
	running.Add(2)
	go func() { defer running.Done(); runErr = r.Run(rctx) }()
	go func() { defer running.Done(); exErr = ex.Run(rctx) }()
	go func() { running.Wait(); close(stopped) }()
	defer func() { stop(); <-stopped; r.Close() }()
	if err := waitConsumer(ctx, b, "ts-executor"); err != nil {
		return res, err
	}
	done := make(chan *nats.Msg, 64)
	sub, err := b.Conn.ChanSubscribe("ts.result."+QuietTenant+".>", done)
	if err != nil {
		return res, err
	}
	defer sub.Unsubscribe()
	why := func() error {
		return fmt.Errorf("bench: assembler or executor stopped: %w", errors.Join(runErr, exErr))
	}
	sample := func(i int) (time.Duration, error) {
		return quietCall(ctx, b, fmt.Sprint("q", i), done, stopped, why)
	}
	for i := range 3 { // warm up
		if _, err := sample(-1 - i); err != nil {
			return res, err
		}
	}
	pause := func() error {
		select {
		case <-time.After(cfg.Spacing):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// Rounds of samples without the flood, then during it, so that both
	// halves see the machine as it is at the time (other work on it).
	per := max(1, cfg.Samples/fairnessRounds)
	n := 0
	for round := range fairnessRounds {
		for range per {
			d, err := sample(n)
			n++
			if err == nil {
				err = pause()
			}
			if err != nil {
				return res, err
			}
			res.Quiet = append(res.Quiet, d)
		}
		if err := floodRound(ctx, b, r, cfg, round, &res, func() error {
			d, err := sample(n)
			n++
			if errors.Is(err, errLate) {
				d, err = sampleMax, nil
				res.Late++
			}
			if err == nil {
				err = pause()
			}
			res.Flood = append(res.Flood, d)
			return err
		}, per); err != nil {
			return res, err
		}
	}
	view := r.View()
	defer view.Close()
	if res.FloodUsage, _, err = assembler.AssemblerUsage(view, FloodTenant); err != nil {
		return res, err
	}
	return res, nil
}

// errLate is quietCall's error for a call not completed in sampleMax.
var errLate = errors.New("bench: the quiet tenant's call took too long")

// quietCall publishes one call of the quiet tenant, each event
// acknowledged before the next, and returns the time from the publish of
// its completion signal to its CallSucceeded (errLate past sampleMax).
func quietCall(ctx context.Context, b *bus.Bus, resp string, done <-chan *nats.Msg, stopped <-chan struct{}, why func() error) (time.Duration, error) {
	subj, err := events.ModelSubject(QuietTenant, resp, "i")
	if err != nil {
		return 0, err
	}
	rsubj, err := events.ModelSubject(QuietTenant, resp, "")
	if err != nil {
		return 0, err
	}
	bodies := []events.Body{&events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "weather"},
		&events.ArgumentsDelta{Delta: `{"city":"Paris"}`}, &events.ArgumentsDone{}, &events.ResponseCompleted{}}
	const signal = 2
	var start time.Time
	for i, body := range bodies {
		ev := &events.Event{ID: fmt.Sprint(resp, "/", i), Tenant: QuietTenant, Response: resp, Item: "i", CallID: "c", At: time.Now().UnixNano(), Body: body}
		s := subj
		if i == len(bodies)-1 {
			ev.Item, ev.CallID, s = "", "", rsubj
		}
		data, err := events.Encode(ev)
		if err != nil {
			return 0, err
		}
		if i == signal {
			start = time.Now()
		}
		if _, err := b.JS.Publish(ctx, s, data); err != nil {
			return 0, fmt.Errorf("bench: publish: %w", err)
		}
	}
	late := time.NewTimer(sampleMax)
	defer late.Stop()
	for {
		select {
		case <-late.C:
			return 0, errLate
		case m := <-done:
			ev, err := events.DecodeWith(m.Data, b.Keys)
			if err != nil {
				return 0, err
			}
			if ev.Response != resp {
				continue // a warm-up's or an earlier sample's late event
			}
			if f, ok := ev.Body.(*events.CallFailed); ok {
				return 0, fmt.Errorf("bench: the quiet tenant's call %s failed: %s: %s", resp, f.Error, f.Message)
			}
			return time.Since(start), nil
		case <-stopped:
			return 0, why()
		case <-ctx.Done():
			return 0, fmt.Errorf("bench: the quiet tenant's call %s: %w", resp, ctx.Err())
		}
	}
}

// floodResponseDeltas is how many argument deltas each of the flooding
// tenant's responses carries.
const floodResponseDeltas = 10_000

// flood publishes the flooding tenant's model events, rate a second (0: as
// fast as one client can, asynchronously, as many in flight as the client
// allows): responses of one call whose arguments never end,
// floodResponseDeltas small deltas each, event time the wall clock's,
// until ctx ends.
func flood(ctx context.Context, js jetstream.JetStream, rate, round int, n *atomic.Int64) error {
	const tick = 10 * time.Millisecond
	start := time.Now()
	pace := func(sent int64) {
		if rate <= 0 {
			return
		}
		due := start.Add(time.Duration(sent) * time.Second / time.Duration(rate))
		if d := time.Until(due); d > tick {
			select {
			case <-time.After(d):
			case <-ctx.Done():
			}
		}
	}
	for r := 0; ctx.Err() == nil; r++ {
		resp := fmt.Sprint("f", round, "-", r)
		subj, err := events.ModelSubject(FloodTenant, resp, "i")
		if err != nil {
			return err
		}
		for i := 0; i < 1+floodResponseDeltas && ctx.Err() == nil; i++ {
			var body events.Body = &events.ArgumentsDelta{Delta: "aaaaaaaa"}
			if i == 0 {
				body = &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "weather"}
			}
			data, err := events.Encode(&events.Event{ID: fmt.Sprint(resp, "/", i), Tenant: FloodTenant, Response: resp, Item: "i", At: time.Now().UnixNano(), Body: body})
			if err != nil {
				return err
			}
			if _, err := publishAsync(ctx, js, subj, data); err != nil {
				return err
			}
			pace(n.Add(1))
		}
	}
	return ctx.Err()
}

// fairnessFloodRate is the flood of the fairness row: twice the default
// quota, so half of it is refused. Not as fast as one client can publish:
// a flood faster than the log is read puts every later event, any
// tenant's, behind a backlog that grows, whatever a projection then does
// with the flood's events (docs/design.md, "Fair to every tenant").
const fairnessFloodRate = 2 * assembler.EventRateDefault

// fairness is the fairness row: the quiet tenant's completion p50 during
// a flood ÷ without one, on a fresh server, the assembler with serve's
// default quotas.
func (r *runner) fairness() error {
	return r.withBus("fairness", func(b *bus.Bus, dir string) error {
		samples := max(5, r.cfg.Sizes.LatencySamples/10)
		cfg := FairnessConfig{Quotas: assembler.DefaultQuotas(), Samples: samples, FloodRate: fairnessFloodRate}
		if samples < 10 {
			cfg.Warmup = floodWarmup / 5 // a tiny suite (tests): the row is there, its number means little
		}
		res, err := Fairness(r.ctx, b, dir, cfg)
		if err != nil {
			return err
		}
		u := res.FloodUsage
		refused := 0.0
		if n := u.Admitted + u.Refused; n > 0 {
			refused = 100 * float64(u.Refused) / float64(n)
		}
		r.add(Row{Section: "fairness", Measured: "another tenant's completion p50 during a flood", Value: micros(Percentile(res.Flood, 50)),
			Baseline: "the same, no flood", BaseValue: micros(Percentile(res.Quiet, 50)), Unit: "µs", Better: "lower", Target: "≤ 3×",
			Note: fmt.Sprintf("completion signal → CallSucceeded through the assembler and an executor, %d samples each (%d during the flood took %v or more, counted as that); the flood: %.0f model events/s, %.0f%% refused by the default quotas; p99 %.0f µs during, %.0f µs without",
				samples, res.Late, sampleMax, rate(res.Flooded, res.Elapsed), refused, micros(Percentile(res.Flood, 99)), micros(Percentile(res.Quiet, 99))),
			Work: Work{Does: "one tenant's call completed through the assembler and an executor while another tenant floods model events", Stored: fmt.Sprintf("the samples' events and outcomes, and %d flood events", res.Flooded),
				Acks: "each publish's ack", Parsed: "every stored event by the assembler"},
			BaseWork: Work{Does: "the same tenant's calls on the same server with no flood", Stored: "the samples' events and outcomes",
				Acks: "each publish's ack", Parsed: "every stored event by the assembler"}})
		return nil
	})
}
