package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestServeMetrics serves the demo log's projections the way serve does
// with --metrics and reads /healthz and /metrics over HTTP.
func TestServeMetrics(t *testing.T) {
	d := startDemoLog(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // serveMetrics listens itself

	cmd := &cobra.Command{Use: "serve", RunE: func(*cobra.Command, []string) error { return nil }}
	var flag string
	metricsFlag(cmd, &flag)
	cmd.SetArgs([]string{"--metrics", addr})
	if err := cmd.Execute(); err != nil || flag != addr {
		t.Fatalf("--metrics: %q, %v", flag, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	defer func() { cancel(); wg.Wait() }()
	serveMetrics(ctx, &wg, errc, flag, d.b, d.n.Runners(), nil, nil)
	serveMetrics(ctx, &wg, errc, "", d.b, d.n.Runners(), nil, nil) // off: nothing happens

	fetch := func(path string) (int, string, error) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body, err := fetch("/healthz")
		if err == nil && code == http.StatusOK {
			if _, m, err := fetch("/metrics"); err == nil && strings.Contains(m, "toolstream_metrics_observer_running 1") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz: %d %q %v", code, body, err)
		}
		select {
		case err := <-errc:
			t.Fatal(err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	_, body, err := fetch("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range projectionNames() {
		for _, series := range []string{"toolstream_projection_lag_messages", "toolstream_projection_checkpoint", "toolstream_projection_outbox_backlog", "toolstream_projection_rejected_total"} {
			if !strings.Contains(body, series+`{projection="`+name+`"}`) {
				t.Errorf("/metrics lacks %s of %s", series, name)
			}
		}
	}
	for _, s := range []string{"toolstream_assembler_open_calls 0", "toolstream_bus_connected 1", "toolstream_metrics_observer_running 1"} {
		if !strings.Contains(body, s) {
			t.Errorf("/metrics lacks %q", s)
		}
	}

	// A second server on the same address: the error reaches errc.
	serveMetrics(ctx, &wg, errc, addr, d.b, d.n.Runners(), nil, nil)
	select {
	case err := <-errc:
		if !strings.Contains(err.Error(), "--metrics") {
			t.Errorf("error: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a busy address was not reported")
	}
}
