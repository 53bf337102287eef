package metrics_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/metrics"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never happened; last: %s", what, state)
		}
		<-tick.C
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// value finds one sample of the Prometheus text: name with its labels as
// exposed (sorted by label name), e.g. `x{a="1",b=""}`.
func value(body, series string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}

func publish(t *testing.T, b *bus.Bus, tenant, resp, item string, body events.Body) {
	t.Helper()
	subj, err := events.ModelSubject(tenant, resp, item)
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("%s/%s/%s/%s", tenant, resp, item, body.Kind())
	if _, err := b.Publish(context.Background(), subj, &events.Event{ID: id, Tenant: tenant, Response: resp, Item: item, CallID: "call-" + item, Body: body}); err != nil {
		t.Fatal(err)
	}
}

// TestMetricsAndHealth runs the assembler and an executor on a real
// embedded server and reads /metrics and /healthz over HTTP while calls
// open, complete, get rejected and run.
func TestMetricsAndHealth(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg, err := bench.NoopRegistry()
	if err != nil {
		t.Fatal(err)
	}
	key, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: key, Source: "test"}, reg); err != nil {
		t.Fatal(err)
	}
	asm := assembler.New(assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](key.Trust())})
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir()}, asm)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, Registry: func() *registry.Registry { return reg },
		Tools: map[string]executor.Tool{"noop": executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"ok":true}`), nil
		})}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := metrics.New(metrics.Sources{Bus: b, Runners: map[string]*projector.Runner{assembler.Name: r}, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	// Not running yet: unhealthy, and the body says why.
	code, body := get(t, srv.URL+"/healthz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "FAIL projection assembler running") || !strings.Contains(body, "ok   bus connected") {
		t.Fatalf("healthz before the runner runs: %d %q", code, body)
	}
	observed := make(chan error, 1)
	go func() { observed <- m.Run(ctx) }()
	ran := make(chan error, 1)
	go func() { ran <- r.Run(ctx) }()
	exRan := make(chan error, 1)
	go func() { exRan <- ex.Run(ctx) }()
	defer func() { cancel(); <-ran; <-exRan; <-observed }()
	eventually(t, "healthy", func() (bool, string) {
		code, body := get(t, srv.URL+"/healthz")
		return code == http.StatusOK, body
	})
	eventually(t, "the observer runs", func() (bool, string) {
		_, body := get(t, srv.URL+"/metrics")
		v, _ := value(body, "toolstream_metrics_observer_running")
		return v == 1, body
	})

	// Three calls open: two of a granted tool, one of an unknown tool.
	for _, item := range []string{"a", "b", "c"} {
		name := "noop"
		if item == "c" {
			name = "nope"
		}
		publish(t, b, "t0", "r1", item, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: name})
		publish(t, b, "t0", "r1", item, &events.ArgumentsDelta{Delta: `{}`})
	}
	eventually(t, "three open calls", func() (bool, string) {
		_, body := get(t, srv.URL+"/metrics")
		calls, _ := value(body, "toolstream_assembler_open_calls")
		resps, _ := value(body, "toolstream_assembler_open_responses")
		return calls == 3 && resps == 1, fmt.Sprintf("calls %v responses %v", calls, resps)
	})
	// They complete: two run, one is rejected; a garbage message is rejected
	// by the projection.
	for _, item := range []string{"a", "b", "c"} {
		publish(t, b, "t0", "r1", item, &events.ArgumentsDone{})
	}
	publish(t, b, "t0", "r1", "", &events.ResponseCompleted{})
	if _, err := b.JS.Publish(ctx, "ts.model.t0.r1.x", []byte("not an event")); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"toolstream_assembler_open_calls":                                                      0,
		`toolstream_call_outcomes_total{outcome="completed",reason="",tool="noop"}`:            2,
		`toolstream_call_outcomes_total{outcome="rejected",reason="unknown_tool",tool="nope"}`: 1,
		`toolstream_response_outcomes_total{reason="",status="completed"}`:                     1,
		`toolstream_execution_results_total{error="",outcome="succeeded",tool="noop"}`:         2,
		`toolstream_call_duration_seconds_count{outcome="succeeded",tool="noop"}`:              2,
		`toolstream_projection_rejected_total{projection="assembler"}`:                         1,
		`toolstream_projection_lag_messages{projection="assembler"}`:                           0,
		`toolstream_projection_outbox_backlog{projection="assembler"}`:                         0,
		`toolstream_projection_running{projection="assembler"}`:                                1,
		`toolstream_executor_events_total{kind="succeeded"}`:                                   2,
		"toolstream_bus_connected":                                                             1,
	}
	eventually(t, "outcomes, latencies, rejections, no lag", func() (bool, string) {
		_, body := get(t, srv.URL+"/metrics")
		for series, v := range want {
			if got, ok := value(body, series); !ok || got != v {
				return false, fmt.Sprintf("%s = %v (present %v), want %v", series, got, ok, v)
			}
		}
		return true, ""
	})
	_, body = get(t, srv.URL+"/metrics")
	for _, s := range []string{`toolstream_stream_last_sequence{stream="TS_MODEL"}`, `toolstream_projection_checkpoint{projection="assembler"}`,
		`toolstream_projection_applied_total{projection="assembler"}`, `toolstream_projection_relayed_total{projection="assembler"}`} {
		if v, ok := value(body, s); !ok || v == 0 {
			t.Errorf("%s = %v, %v", s, v, ok)
		}
	}
	// Lost connection: unhealthy.
	b.Conn.Close()
	code, body = get(t, srv.URL+"/healthz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "FAIL bus connected") {
		t.Errorf("healthz without a connection: %d %q", code, body)
	}
}

func TestServe(t *testing.T) {
	b := bustest.Start(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- metrics.ServeListener(ctx, ln, metrics.Sources{Bus: b}) }()
	eventually(t, "serving", func() (bool, string) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	// The address is taken: Serve says so at once.
	if err := metrics.Serve(context.Background(), addr, metrics.Sources{Bus: b}); err == nil {
		t.Error("Serve on a busy address returned nil")
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after its context ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := metrics.New(metrics.Sources{}); err == nil {
		t.Error("New without a bus")
	}
}
