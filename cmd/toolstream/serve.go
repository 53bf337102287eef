package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/cluster"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/runs"
	"github.com/toolstream/toolstream/viewdump"
)

// DigestSubject answers a projection name with its live view digest.
const DigestSubject = "tsv.digest"

func serveCmd(g *globals) *cobra.Command {
	var components, tools, metricsAddr string
	var tick time.Duration
	d := &deps{g: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the backbone: embedded NATS JetStream (or --nats-url) and the projections",
		Long: `serve starts the event log and runs the projections over it until SIGINT or SIGTERM.
Without --nats-url it runs an embedded NATS server with JetStream on --listen (127.0.0.1:4222),
storing the log in --data/nats, so other processes and the standard nats CLI can connect.
Each projection keeps its view in --data/views/<name>. On a log whose model subjects are
partitioned (--partitions N) the assembler runs as N partition assemblers instead, each active
in exactly one of the processes running the assembler (a lease in the key-value bucket
ts_leases; a waiting process takes over when the holder dies), with views in
--data/views/assembler-p<P>. Shutdown stops consuming, lets every in-flight batch commit,
and closes the server cleanly: nothing acknowledged is lost.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			d.log = log
			if d.quota, err = d.quotaFlags.quotas(); err != nil {
				return err
			}
			if _, err := d.embed.embedder(); err != nil {
				return err
			}
			if d.policies, err = d.verify.policies(); err != nil {
				return err
			}
			return serve(cmd.Context(), d, splitList(components), tick, tools, metricsAddr)
		},
	}
	cmd.Flags().StringVar(&components, "components", "all", "comma-separated components to run: all, clock, executor, or projection names ("+fmt.Sprint(projectionNames())+"); executors may run as separate processes")
	cmd.Flags().DurationVar(&tick, "tick", time.Second, "interval of clock ticks written to the log (deadlines use event time)")
	cmd.Flags().StringVar(&tools, "tools", "", "tool registry file (YAML or JSON); changes take effect without a restart and are recorded in the log")
	cmd.Flags().DurationVar(&d.idleTimeout, "idle-timeout", 2*time.Minute, "event-time deadline after which a silent response's open calls are incomplete")
	cmd.Flags().IntVar(&d.argsMax, "args-max", 1<<20, "largest call arguments in bytes; larger calls are rejected too_large")
	cmd.Flags().StringSliceVar(&d.lenient, "lenient-tenants", nil, "tenants whose almost-JSON call arguments (single quotes, trailing commas, unquoted keys, Python literals, a code fence) are repaired, said so and validated, instead of rejected invalid_json")
	addQuotaFlags(cmd, &d.quotaFlags, false)
	metricsFlag(cmd, &metricsAddr)
	consoleFlag(cmd, &d.console)
	gatewayFlag(cmd, &d.gateway)
	embedFlag(cmd, &d.embed)
	verifyPolicyFlag(cmd, &d.verify, false)
	return cmd
}

func serve(ctx context.Context, d *deps, components []string, tick time.Duration, tools, metricsAddr string) error {
	g, log := d.g, d.log
	key, err := g.registryKeys(log, d, tools != "")
	if err != nil {
		return err
	}
	b, err := g.openEmbedded(ctx, log, g.data, g.listen)
	if err != nil {
		return err
	}
	defer b.Close()
	d.bus = b
	if tools != "" {
		if err := followTools(ctx, b, log, tools, key, d.trust); err != nil {
			return err
		}
	}
	want := map[string]bool{}
	for _, c := range components {
		if c == "all" {
			for _, n := range projectionNames() {
				want[n] = true
			}
			want["clock"], want["executor"] = true, true
			continue
		}
		if _, ok := projectionFactories[c]; !ok && c != "clock" && c != "executor" {
			return fmt.Errorf("--components: unknown component %q", c)
		}
		want[c] = true
	}
	runners := map[string]*projector.Runner{}
	var partitions *cluster.Exclusive // the partition assemblers this process may hold
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(want)+1)
	for _, name := range projectionNames() {
		if !want[name] {
			continue
		}
		if n := b.Partitions(); name == assembler.Name && n > 0 {
			// A partitioned log: the partitions' assemblers, each active in
			// exactly one process of the assembler service (a lease each).
			log.Info("assembler partitions", "partitions", n)
			x, err := cluster.NewAssemblerPartitions(b, filepath.Join(g.data, "views"), func() *assembler.Assembler { return newAssembler(d) }, log)
			if err != nil {
				return err
			}
			partitions = x
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := x.Run(ctx); err != nil {
					errc <- fmt.Errorf("assembler partitions: %w", err)
				}
			}()
			continue
		}
		p, err := newProjection(name, d)
		if err != nil {
			return err
		}
		r, err := projector.New(projector.Config{JS: b.JS, Dir: g.viewDir(name), Logger: log, Keys: b.Keys}, p)
		if err != nil {
			return err
		}
		defer r.Close()
		runners[name] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				errc <- fmt.Errorf("projection %s: %w", name, err)
			}
		}()
	}
	var ex *executor.Executor
	if want["executor"] {
		follower, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: d.trust, Logger: log})
		if err != nil {
			return err
		}
		defer follower.Stop()
		ex, err = executor.New(executor.Config{JS: b.JS, Keys: b.Keys, Registry: follower.Current, Logger: log, Replicas: b.Replicas()})
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ex.Run(ctx); err != nil {
				errc <- fmt.Errorf("executor: %w", err)
			}
		}()
	}
	if want["clock"] {
		wg.Add(1)
		go func() { defer wg.Done(); runClock(ctx, b, log, tick) }()
	}
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "toolstream", Version: "0.1.0", Description: "Toolstream views"})
	if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	defer svc.Stop()
	dumps, err := addViewEndpoints(svc, func(name string) (*projector.Runner, bool) {
		if r, ok := runners[name]; ok {
			return r, true
		}
		if partitions != nil {
			return partitions.Runner(name)
		}
		return nil, false
	})
	if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	defer dumps.Close()
	if metricsAddr, err = startConsole(ctx, &wg, errc, d, b, runners, ex, metricsAddr); err != nil {
		return err
	}
	serveMetrics(ctx, &wg, errc, metricsAddr, b, runners, ex, log)
	if r, ok := runners[memory.Name]; ok {
		ms := memoryService(b, r)
		if ms.Embedder, err = d.embed.embedder(); err != nil {
			return err
		}
		if err := ms.AddTo(svc); err != nil {
			return err
		}
		wg.Add(1)
		go func() { // recall hits: recorded every ten seconds, and at shutdown
			defer wg.Done()
			if err := ms.RunHits(ctx, 10*time.Second); err != nil {
				log.Warn("memory: recall hits not recorded", "err", err)
			}
		}()
	}
	if r, ok := runners[runs.Name]; ok {
		if err := addRunsService(ctx, b, r, svc); err != nil {
			return err
		}
	}
	if err := startGateway(ctx, &wg, errc, d.gateway, b, d.trust, log); err != nil {
		return err
	}
	log.Info("serving", "url", b.ClientURL(), "data", g.data, "projections", len(runners))
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	cancel()
	wg.Wait()
	log.Info("stopped")
	return err
}

// followTools records the tools file, signed by key, as the registry in
// force (an event in the log) and keeps following the file: each change is
// recorded too, and so is the file again whenever the registry in force in
// the log differs (a forged or replayed change, a change that aged out);
// every assembler and executor picks it up from the log without a restart.
func followTools(ctx context.Context, b *bus.Bus, log *slog.Logger, path string, key *registry.SigningKey, trust *registry.Trust) error {
	w, err := registry.NewWatcher(registry.WatcherConfig{Path: path, Logger: log, JS: b.JS, Key: key, Trust: trust})
	if err != nil {
		return err
	}
	if _, err := w.Record(ctx); err != nil {
		return err
	}
	go func() {
		if err := w.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("tools file watcher stopped", "err", err)
		}
	}()
	return nil
}

// runClock writes a Tick into the log every interval, so deadlines (idle
// calls, TTLs) are decided by event time and replay identically. Tick ids are
// the interval's start, so two servers' ticks deduplicate.
func runClock(ctx context.Context, b *bus.Bus, log *slog.Logger, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			at := now.Truncate(every).UnixNano()
			for _, subj := range events.ClockSubjects { // one tick in each stream that decides by time
				_, err := b.Publish(ctx, subj, &events.Event{ID: fmt.Sprintf("tick:%d", at), Tenant: events.SystemTenant, At: at, Body: &events.Tick{}})
				if err != nil && !errors.Is(err, context.Canceled) {
					log.Warn("tick not published", "subject", subj, "err", err)
				}
			}
		}
	}
}

// runnerLookup finds the runner of a projection this process runs now.
type runnerLookup func(name string) (*projector.Runner, bool)

// addViewEndpoints serves the digest and the paged dump of every running
// view (replay --verify and --diff ask them). Close the dumps when done.
// Every process that serves views receives every request (no queue group):
// processes run different projections, and a partition moves between them,
// so only the one running the projection (or holding the dump session)
// answers; the others stay silent.
func addViewEndpoints(svc micro.Service, runners runnerLookup) (*viewdump.Service, error) {
	err := svc.AddEndpoint("digest", micro.HandlerFunc(func(req micro.Request) {
		r, ok := runners(string(req.Data()))
		if !ok {
			return // another process's
		}
		dg, err := r.Digest()
		if err != nil {
			req.Error("500", err.Error(), nil)
			return
		}
		req.RespondJSON(dg)
	}), micro.WithEndpointSubject(DigestSubject), micro.WithEndpointQueueGroupDisabled())
	if err != nil {
		return nil, err
	}
	dumps := viewdump.NewService(viewdump.Lookup(runners), dumpPageRows)
	if err := svc.AddEndpoint("dump", dumps, micro.WithEndpointSubject(DumpSubject), micro.WithEndpointQueueGroupDisabled()); err != nil {
		dumps.Close()
		return nil, err
	}
	return dumps, nil
}

// liveDigest asks a running serve for a projection's digest.
func liveDigest(ctx context.Context, b *bus.Bus, name string) (projector.Digest, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := b.Conn.RequestWithContext(ctx, DigestSubject, []byte(name))
	// A serve starting adds its endpoints after its projections: ask again
	// for a moment before concluding that none runs.
	for until := time.Now().Add(2 * time.Second); errors.Is(err, nats.ErrNoResponders) && time.Now().Before(until); {
		select {
		case <-ctx.Done():
			return projector.Digest{}, err
		case <-time.After(100 * time.Millisecond):
		}
		msg, err = b.Conn.RequestWithContext(ctx, DigestSubject, []byte(name))
	}
	if err != nil {
		return projector.Digest{}, err
	}
	if code := msg.Header.Get(micro.ErrorCodeHeader); code != "" {
		return projector.Digest{}, fmt.Errorf("digest of %s: %s %s", name, code, msg.Header.Get(micro.ErrorHeader))
	}
	var d projector.Digest
	return d, json.Unmarshal(msg.Data, &d)
}
