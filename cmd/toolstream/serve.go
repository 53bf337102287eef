package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/telemetry"
)

func serveCmd(g *globals) *cobra.Command {
	var components, tools, metricsAddr string
	var tick time.Duration
	var tracing telemetry.Config
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
			// A --tools file that is not there was said once the server,
			// its streams and consumers were up ("watch: stat tools.yaml:
			// no such file or directory"): now before anything starts.
			if tools != "" {
				if err := toolsFileThere(tools); err != nil {
					return err
				}
			}
			if d.quota, err = d.quotaFlags.quotas(); err != nil {
				return err
			}
			d.embed.sentencesSet = cmd.Flags().Changed("embed-sentences")
			embedder, matcher, err := d.embed.embedder()
			if err != nil {
				return err
			}
			if d.policies, err = d.verify.policies(); err != nil {
				return err
			}
			judge, err := d.verify.judge()
			if err != nil {
				return err
			}
			if d.memory, err = d.memFlags.config(); err != nil {
				return err
			}
			return serve(cmd.Context(), d, stack.Config{Components: splitList(components), Tick: tick, ToolsFile: tools,
				MetricsAddr: metricsAddr, Embedder: embedder, Matcher: matcher, HitBatch: d.memFlags.hitBatch, Judge: judge,
				Tracing: tracing})
		},
	}
	cmd.Flags().StringVar(&components, "components", "all", "comma-separated components to run: all, clock, executor, keys (the keys service: the one writer of the data keys; always on the embedded server), or projection names ("+fmt.Sprint(projectionNames())+"); executors may run as separate processes")
	cmd.Flags().DurationVar(&tick, "tick", time.Second, "interval of clock ticks written to the log (deadlines use event time)")
	cmd.Flags().StringVar(&tools, "tools", "", "tool registry file (YAML or JSON); changes take effect without a restart and are recorded in the log")
	cmd.Flags().DurationVar(&d.idleTimeout, "idle-timeout", 2*time.Minute, "event-time deadline after which a silent response's open calls are incomplete")
	cmd.Flags().IntVar(&d.argsMax, "args-max", 1<<20, "largest call arguments in bytes; larger calls are rejected too_large")
	cmd.Flags().StringSliceVar(&d.lenient, "lenient-tenants", nil, "tenants whose almost-JSON call arguments (single quotes, trailing commas, unquoted keys, Python literals, a code fence) are repaired, said so and validated, instead of rejected invalid_json")
	addQuotaFlags(cmd, &d.quotaFlags, false)
	metricsFlag(cmd, &metricsAddr)
	tracingFlags(cmd, &tracing)
	consoleFlag(cmd, &d.console)
	gatewayFlag(cmd, &d.gateway)
	embedFlag(cmd, &d.embed)
	verifyPolicyFlag(cmd, &d.verify, false)
	memoryFlag(cmd, &d.memFlags, false)
	memoryHitBatchFlag(cmd, &d.memFlags)
	return cmd
}

// listenFree checks that the embedded server's client address is free, so
// that a second serve on it fails at once instead of when the server gives
// up starting.
func listenFree(addr string) error {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "-1" || port == "0" {
		return nil // the server says what is wrong with it
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: the address is in use (another serve? give --listen HOST:PORT, or 127.0.0.1:-1 for any free port): %w", addr, err)
	}
	return l.Close()
}

// serve opens the log the flags name and runs the stack over it (package
// stack) until ctx ends.
func serve(ctx context.Context, d *deps, cfg stack.Config) error {
	g, log := d.g, d.log
	if _, err := stack.Components(cfg.Components); err != nil {
		return fmt.Errorf("--components: %w", err)
	}
	_, statErr := os.Stat(g.data)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	release, err := lockData(g.data, "serve")
	if err != nil {
		return err
	}
	defer release()
	if g.natsURL == "" {
		if err := listenFree(g.listenAddr()); err != nil {
			if fresh {
				// A --data made for nothing (it holds only its lock) is
				// not left behind. The lock file goes while it is held (a
				// process that opened it meanwhile finds it held and
				// stops; one that opens it after makes a new one, and the
				// directory, not empty, stays).
				os.Remove(filepath.Join(g.data, lockFile))
				release()
				os.Remove(g.data)
			}
			return err
		}
	}
	key, err := g.registryKeys(log, d, cfg.ToolsFile != "")
	if err != nil {
		return err
	}
	b, err := g.openEmbedded(ctx, log, g.data, g.listenAddr(), asAdmin)
	if err != nil {
		return err
	}
	defer b.Close()
	d.bus = b
	cfg.Bus, cfg.ViewsDir, cfg.Logger, cfg.Projections, cfg.SigningKey = b, filepath.Join(g.data, "views"), log, d.projections(), key
	// No sandboxed tool sees --data (the operator's seed, the signing and
	// console keys, the log and the views) nor the credentials and keys
	// serve was given elsewhere (docs/security.md).
	cfg.Executor.Hidden = append(cfg.Executor.Hidden, g.data)
	for _, f := range []string{g.creds, g.tlsKey, g.registryKeyFile} {
		if f != "" {
			cfg.Executor.Hidden = append(cfg.Executor.Hidden, f)
		}
	}
	cfg.Console = stack.Console{Addr: d.console, KeyFile: filepath.Join(g.authDir(), consoleKeyFile), URLFile: filepath.Join(g.data, consoleURLFile),
		TLSCert: g.tlsCert, TLSKey: g.tlsKey, AllowPlaintext: g.plaintext}
	// The console's address in --data is this serve's to write, or
	// nobody's: the one a serve --console before it left had
	// console-token print a sign-in link to nothing once serve ran again
	// without --console (review rev16).
	if err := os.Remove(cfg.Console.URLFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--data: %w", err)
	}
	defer os.Remove(cfg.Console.URLFile)
	cfg.Gateway = stack.Gateway{Addr: d.gateway.addr, ConfigFile: d.gateway.config, Driver: os.Getenv("TOOLSTREAM_GATEWAY_DRIVER")}
	cfg.MCP = stack.MCP{Addr: d.gateway.mcp}
	if b.Embedded() {
		// serve on one machine is the admin: it makes every processor's
		// durable consumer before they start (on a cluster, setup does),
		// and the ingress stream of every tenant a producer credential was
		// issued for from --data (tenantstream.go).
		if err := stack.CreateConsumers(ctx, b, log); err != nil {
			return err
		}
		if err := g.ensureRecordedTenants(ctx, b); err != nil {
			return err
		}
	}
	s, err := stack.Start(ctx, cfg)
	if err != nil {
		return err
	}
	if b.Embedded() {
		// Commands given this --data find the server here (its --listen
		// may have been a free port), once everything answers.
		remove, err := writeServerRecord(g.data, b.ClientURL())
		if err != nil {
			s.Stop()
			return err
		}
		defer remove()
	}
	if u := s.ConsoleURL(); u != "" {
		log.Info("console", "url", u, "sign_in", "toolstream console-token --data "+g.data)
	}
	return s.Wait()
}
