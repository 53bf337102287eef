package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/metrics"
)

// TestAStalledSourceIsReported: TS_IN and TS_MODEL copy each tenant's
// TS_ING_<t> by stream sourcing, which the server retries with a backoff
// of up to two minutes when it fails, telling no one. /healthz lists every
// source with its lag and last contact, and fails one that has not heard
// from its origin within SourceStallMax while it has an error or messages
// to copy; toolstream_stream_source_stalled says the same. Here acme's
// ingress stream is deleted under its sources: both are reported stalled
// (waited for, with a hang detector), while before they were ok.
func TestAStalledSourceIsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := bustest.StartTenants(t, "acme")
	m, err := metrics.New(metrics.Sources{Bus: b, SourceStallMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := events.IngestSubject("acme", "openai-chat", "s-1")
	if _, err := b.JS.Publish(ctx, subj, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	source := bus.TenantStream("acme")
	lines := func() []string {
		var out []string
		for _, l := range m.Health().Checks {
			if strings.Contains(l, "source "+source+" ->") {
				out = append(out, l)
			}
		}
		return out
	}
	for {
		ls := lines()
		if len(ls) == 2 && strings.HasPrefix(ls[0], "ok") && strings.HasPrefix(ls[1], "ok") && m.Health().OK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the sources were never reported ok: %q", m.Health().Checks)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := b.JS.DeleteStream(ctx, source); err != nil {
		t.Fatal(err)
	}
	for {
		ls := lines()
		if len(ls) == 2 && strings.HasPrefix(ls[0], "FAIL") && strings.HasPrefix(ls[1], "FAIL") && !m.Health().OK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("a stalled source was never reported: %q", m.Health().Checks)
		}
		time.Sleep(200 * time.Millisecond)
	}
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	stalled := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "toolstream_stream_source_stalled" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			stalled[labels["source"]+" -> "+labels["stream"]] = mt.GetGauge().GetValue()
		}
	}
	for _, stream := range []string{events.StreamIn, events.StreamModel} {
		if got := stalled[source+" -> "+stream]; got != 1 {
			t.Errorf("toolstream_stream_source_stalled of %s -> %s: %v, want 1 (all: %v)", source, stream, got, stalled)
		}
	}
}
