package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/toolstream/toolstream/internal/bus"
)

// The observer follows each stream on its own: a result may be read before
// the CallCompleted it answers. The latency is the same in either order, and
// a result whose completion never comes is not a latency.
func TestObserverLatencyInEitherOrder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		steps func(o *observer)
	}{
		{"completed, started, done", func(o *observer) {
			o.remember("k", "noop", t0)
			o.entry("k", "noop").started = t0.Add(time.Second)
			o.done("k", "noop", "succeeded", t0.Add(3*time.Second))
		}},
		{"done, completed", func(o *observer) {
			o.entry("k", "noop").started = t0.Add(time.Second)
			o.done("k", "noop", "succeeded", t0.Add(3*time.Second))
			o.remember("k", "noop", t0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Sources{Bus: &bus.Bus{}})
			if err != nil {
				t.Fatal(err)
			}
			o := &observer{m: m, pending: map[string]*pending{}}
			tc.steps(o)
			o.done("orphan", "noop", "succeeded", t0) // its completion was before the observer started
			if n := series(m.callSeconds); n != 1 {
				t.Fatalf("%d call latency series, want 1", n)
			}
			h := m.callSeconds.WithLabelValues("noop", "succeeded").(prometheus.Histogram)
			if got := histSum(t, h); got != 3 {
				t.Errorf("call latency sum %v, want 3", got)
			}
			if got := histSum(t, m.execSeconds.WithLabelValues("noop", "succeeded").(prometheus.Histogram)); got != 2 {
				t.Errorf("execution latency sum %v, want 2", got)
			}
			if len(o.pending) != 1 || o.pending["orphan"] == nil {
				t.Errorf("pending %v, want only the orphan", o.pending)
			}
		})
	}
}

func histSum(t *testing.T, h prometheus.Histogram) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 1)
	h.Collect(ch)
	var m dto.Metric
	if err := (<-ch).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleSum()
}

func series(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 16)
	c.Collect(ch)
	close(ch)
	return len(ch)
}
