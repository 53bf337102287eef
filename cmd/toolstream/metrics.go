package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/metrics"
	"github.com/toolstream/toolstream/projector"
)

// metricsFlag adds serve's --metrics ADDR flag, its value going to addr.
func metricsFlag(cmd *cobra.Command, addr *string) {
	cmd.Flags().StringVar(addr, "metrics", "", "serve Prometheus metrics on ADDR/metrics and a health check on ADDR/healthz (e.g. 127.0.0.1:9464)")
}

// serveMetrics serves the process's metrics and health on addr until ctx
// ends, in the background (counted by wg). Nothing happens when addr is
// empty. An error (the address is taken) is sent on errc unless ctx ended.
// ex may be nil (no executor in this process).
func serveMetrics(ctx context.Context, wg *sync.WaitGroup, errc chan<- error, addr string, b *bus.Bus, runners map[string]*projector.Runner, ex *executor.Executor, log *slog.Logger) {
	if addr == "" {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := metrics.Serve(ctx, addr, metrics.Sources{Bus: b, Runners: runners, Executor: ex, Logger: log})
		if err == nil {
			return
		}
		select {
		case errc <- fmt.Errorf("--metrics: %w", err):
		case <-ctx.Done():
		}
	}()
}
