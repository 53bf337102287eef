package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/bench"
)

func benchCmd(g *globals) *cobra.Command {
	var quick, asJSON, tenantStreams bool
	var runs int
	var scale float64
	var only []string
	cmd := &cobra.Command{
		Use:   "bench [--quick] [--runs N] [--only WORDS] [--json]",
		Short: "Run the benchmarks in one process and print ratios against raw JetStream measured in the same run",
		Long: `bench runs Toolstream's benchmarks in this process, each on a fresh embedded server in a
temporary directory, and prints one table: every measurement next to the simplest way of doing
the same work in the same run (a raw JetStream consumer, a full scan, one JSON decode), and their
ratio, with the machine described. Ratios travel between machines; absolute numbers do not.

Every row states what both sides do (messages stored, acknowledgements waited for, bytes parsed,
fsync policy, GOGC) under the table, and which way is better; both sides of a row run under the
same GOGC. With --runs N every row printed comes from one run, the median run (the run whose
ratios rank nearest the middle over all rows), and each row's ratios in all runs are listed.

  whole path toolstream assemble, and the live path (every component on, timed to the last
             component's output), each against a plain JetStream program that merges a call's
             deltas at the edge too (like with like) and against storing every chunk undecoded
  backbone   no-op projection events/s vs a raw durable pull consumer (AckAll per batch)
  assembler  argument deltas/s vs Toolstream's own no-op projection; completion latency p50 vs a
             raw publish → consume round trip
  executor   no-op tool calls/s vs the no-op projection on the same stored call events, one
             server, each side timed from its start to its last output stored
  verifier   warm check, cold check (toolstream verify) and index building vs one JSON decode
  erasure    the assembler and memory paths with personal data sealed vs the same events in
             the clear (each half on a fresh server, median of alternating pairs)
  memory     recall p50/p99 over 100,000 records vs a full scan
  fairness   a tenant's call completion p50 (assembler and executor) while another tenant floods
             at twice its default quota vs the same without the flood (target ≤ 3×)
  replay     events/s rebuilding the assembler view vs direct-get batch reads of the same events
  gateway    a streamed Chat request through the gateway, sent to the end, p50 and p99 at 100
             and 1,000 requests/s (open loop) vs the same requests straight to the upstream
  gateway streaming
             answers of 256 Chat chunks read by 1 and 64 clients in a closed loop, streamed and
             whole, through the gateway vs straight from the same upstream: events/s (target ≥ 0.5)
             and first byte p50/p99 (p99 target ≤ 1.2× direct + 2 ms); whole answers' events/s
             also like with like, vs a plain proxy that stores each answer (one message, its
             ack waited for) before the client gets it
  run round  the time a run's round adds (upstream's answer → its next request) in gateway run
             mode with an upstream answering at once and a no-op tool, p50 and p99, vs the same
             loop in one process with no log; and round 50 vs round 1

--quick uses small sizes (a minute or two on 2 cores: 2m03s measured on a 2-core machine at load
average 13); --runs N reports the median run of N and takes N times as long. A ratio that misses
its target is marked MISSED, and the missed rows are listed under the table.
Progress goes to stderr, the table (or --json) to stdout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			quiet := *g // the embedded servers' start-up lines would break up the progress
			if quiet.logLevel == "info" {
				quiet.logLevel = "warn"
			}
			log, err := quiet.logger()
			if err != nil {
				return err
			}
			if runs < 1 {
				return badInput("--runs %d: want at least 1", runs)
			}
			sizes := bench.DefaultSizes()
			if quick {
				sizes = bench.QuickSizes()
			}
			if scale > 0 && scale != 1 {
				sizes = sizes.Scale(scale)
			}
			var progress io.Writer = g.stderr
			rep, err := bench.Run(cmd.Context(), bench.Config{Sizes: sizes, Runs: runs, Progress: progress, Logger: log, Only: only, TenantStreams: tenantStreams})
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(g.stdout)
			}
			if err := rep.WriteTable(g.stdout); err != nil {
				return err
			}
			again := "toolstream bench"
			if quick {
				again += " --quick"
			}
			if len(only) > 0 {
				again += " --only " + strings.Join(only, ",")
			}
			if tenantStreams {
				again += " --tenant-streams"
			}
			fmt.Fprintf(g.stdout, "\nreproduce: %s --runs %d\nsizes: %s\n", again, runs, describeSizes(sizes))
			return nil
		},
	}
	cmd.Flags().BoolVar(&quick, "quick", false, "small sizes: a minute or two on 2 cores")
	cmd.Flags().IntVar(&runs, "runs", 1, "run the suite N times and report the median run (every row from that one run)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only the measurements whose name holds one of these words (backbone, assembler, latency, executor, verifier, sealing, memory, fairness, replay, gateway, streaming, round)")
	cmd.Flags().BoolVar(&tenantStreams, "tenant-streams", false, "run the live servers with per-tenant ingress streams (docs/security.md): compare with a run without")
	cmd.Flags().Float64Var(&scale, "scale", 1, "multiply every size by this factor (tests)")
	cmd.Flags().MarkHidden("scale")
	return cmd
}

func describeSizes(s bench.Sizes) string {
	return fmt.Sprintf("%d backbone events, %d calls × %d deltas, %d latency samples, %d executor calls, %d verifier rounds, %d memory records, %d recall samples, %d s of gateway load per rate, %d runs of %d rounds",
		s.BackboneEvents, s.AssemblerCalls, s.DeltasPerCall, s.LatencySamples, s.ExecutorCalls, s.VerifierRounds, s.MemoryRecords, s.MemorySamples, s.GatewaySeconds, s.RoundRuns, s.RoundRounds)
}
