package metrics_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/metrics"
)

// TestDashboardNames checks that every series the sample Grafana dashboard
// queries is one this package exports, and that every Toolstream metric is
// on the dashboard or knowingly left off (the gateway's too, as serve
// registers them with a gateway).
func TestDashboardNames(t *testing.T) {
	data, err := os.ReadFile("../../deploy/grafana/toolstream.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	m, err := metrics.New(metrics.Sources{Bus: bustest.Start(t), Collectors: gateway.Collectors()})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 100)
	m.Describe(ch)
	close(ch)
	exported := map[string]bool{}
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		if mm := fq.FindStringSubmatch(d.String()); mm != nil {
			exported[mm[1]] = true
		}
	}
	if len(exported) < 20 {
		t.Fatalf("only %d metrics described: %v", len(exported), exported)
	}
	used := map[string]bool{}
	name := regexp.MustCompile(`(?:toolstream|gen_ai_client)_[a-z_]+`) // and the GenAI conventions' client metrics
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				for _, suffix := range []string{"_bucket", "_count", "_sum"} {
					if base := strings.TrimSuffix(n, suffix); base != n && exported[base] {
						n = base
					}
				}
				used[n] = true
				if !exported[n] {
					t.Errorf("panel %q queries %s, which is not exported", p.Title, n)
				}
			}
		}
	}
	offDashboard := map[string]bool{ // counters for debugging, not for a wall screen
		"toolstream_projection_checkpoint": true, "toolstream_projection_relayed_total": true,
		"toolstream_observed_events_total": true, "toolstream_metrics_observer_running": true,
		"toolstream_executor_events_total": true, "toolstream_execution_attempts_total": true,
	}
	for n := range exported {
		if !used[n] && !offDashboard[n] {
			t.Errorf("%s is on no panel of the dashboard", n)
		}
	}
}
