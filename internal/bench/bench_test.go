package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bench"
)

// TestRunTiny runs the whole suite with tiny sizes on real embedded servers
// and checks that every row is there with numbers in it. It asserts no
// timing. Its deadline guards against a hang, not a slow machine: two runs
// of every row, the gateway streaming pairs' seconds each way included,
// took 125 s at load average 22.
func TestRunTiny(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var progress bytes.Buffer
	rep, err := bench.Run(ctx, bench.Config{Sizes: bench.QuickSizes().Scale(0.02), Runs: 2, Dir: t.TempDir(), Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != len(bench.RowNames) {
		t.Fatalf("%d rows, want %d: %+v", len(rep.Rows), len(bench.RowNames), rep.Rows)
	}
	for i, want := range bench.RowNames {
		r := rep.Rows[i]
		if r.Section != want[0] || r.Measured != want[1] {
			t.Errorf("row %d is %s/%s, want %s/%s", i, r.Section, r.Measured, want[0], want[1])
		}
		if !(r.Value > 0) || !(r.BaseValue > 0) || !(r.Ratio > 0) {
			t.Errorf("row %s/%s has no numbers: %+v", r.Section, r.Measured, r)
		}
		// Every row states both sides' work and its direction,
		// both sides under one GOGC, every row from the one reported run.
		if r.Better != "higher" && r.Better != "lower" {
			t.Errorf("row %s/%s: better is %q", r.Section, r.Measured, r.Better)
		}
		if !r.Work.Complete() || !r.BaseWork.Complete() {
			t.Errorf("row %s/%s does not state both sides' work: %+v / %+v", r.Section, r.Measured, r.Work, r.BaseWork)
		}
		if r.Work.GOGC != r.BaseWork.GOGC {
			t.Errorf("row %s/%s: GOGC %d against %d", r.Section, r.Measured, r.Work.GOGC, r.BaseWork.GOGC)
		}
		if r.Run != rep.Run || rep.Run < 1 || rep.Run > 2 || len(r.AllRatios) != 2 || r.AllRatios[r.Run-1] != r.Ratio {
			t.Errorf("row %s/%s: run %d of report run %d, all ratios %v, ratio %v", r.Section, r.Measured, r.Run, rep.Run, r.AllRatios, r.Ratio)
		}
		if strings.Contains(r.Measured+r.Baseline, "claims/s") || strings.Contains(r.Baseline, "raw ordered consumer") {
			t.Errorf("row %s/%s: a dropped figure or a mislabelled baseline: %s", r.Section, r.Measured, r.Baseline)
		}
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"median of 2 runs", "measured: ", "baseline: ", "is better", "GOGC=", rep.Machine.GOOS + "/" + rep.Machine.GOARCH, rep.Machine.GoVersion}, names()...) {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back bench.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Rows) != len(rep.Rows) {
		t.Fatalf("JSON does not round-trip: %v", err)
	}
	if !strings.Contains(progress.String(), "run 2/2") {
		t.Errorf("no progress lines: %q", progress.String())
	}
}

func names() []string {
	var out []string
	for _, n := range bench.RowNames {
		out = append(out, n[1])
	}
	return out
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {99, 99}, {100, 100}, {1, 1}, {0, 1}} {
		if got := bench.Percentile(ds, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if bench.Percentile(nil, 50) != 0 {
		t.Error("empty percentile")
	}
}

// TestRowMeets: a row's ratio against its target, both directions; a row
// without a target or a ratio is not judged. The table marks a missed
// target (it marked none).
func TestRowMeets(t *testing.T) {
	for _, tc := range []struct {
		target     string
		ratio      float64
		met, known bool
	}{
		{"≥ 0.7", 0.8, true, true},
		{"≥ 0.7", 0.5, false, true},
		{"≥ 0.3×", 0.35, true, true},
		{"≤ 3×", 3.5, false, true},
		{"≤ 1.5", 1.2, true, true},
		{"", 2, false, false},
		{"≥ 0.5", 0, false, false},
	} {
		met, known := bench.Row{Target: tc.target, Ratio: tc.ratio}.Meets()
		if met != tc.met || known != tc.known {
			t.Errorf("%q at %v: met %v known %v, want %v %v", tc.target, tc.ratio, met, known, tc.met, tc.known)
		}
	}
	// A latency's target with an allowance: 1.2 times the baseline plus 2 ms.
	for _, tc := range []struct {
		value, base float64
		met         bool
	}{{3000, 1000, true}, {3300, 1000, false}, {2000, 10, true}, {14000, 10000, true}, {14100, 10000, false}} {
		met, known := bench.Row{Target: "≤ 1.2× + 2 ms", Unit: "µs", Value: tc.value, BaseValue: tc.base, Ratio: tc.value / tc.base}.Meets()
		if met != tc.met || !known {
			t.Errorf("%v µs against %v µs: met %v known %v, want %v", tc.value, tc.base, met, known, tc.met)
		}
	}
	var b strings.Builder
	rep := &bench.Report{Runs: 1, Rows: []bench.Row{{Section: "executor", Measured: "calls/s", Ratio: 0.2, Target: "≥ 0.3×"}, {Section: "replay", Measured: "events/s", Ratio: 1, Target: "≥ 0.7"}}}
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "≥ 0.3× MISSED") || strings.Contains(out, "≥ 0.7 MISSED") || !strings.Contains(out, "targets missed (1): executor / calls/s") {
		t.Errorf("table:\n%s", out)
	}
}

// TestMedianRun: the report's run is the one whose ratios rank nearest the
// middle over all rows, not each row's own median.
func TestMedianRun(t *testing.T) {
	runs := func(ratios ...[]float64) [][]bench.Row {
		out := make([][]bench.Row, len(ratios[0]))
		for _, row := range ratios {
			for k, q := range row {
				out[k] = append(out[k], bench.Row{Ratio: q})
			}
		}
		return out
	}
	// Three runs, three rows: run 2 (index 1) is the middle one in two
	// rows and the highest in the third; run 1 is the lowest twice.
	if got := bench.MedianRun(runs([]float64{1, 2, 3}, []float64{1, 2, 3}, []float64{2, 3, 1})); got != 1 {
		t.Errorf("median run %d, want 1", got)
	}
	if got := bench.MedianRun(runs([]float64{5})); got != 0 {
		t.Errorf("one run: %d", got)
	}
	// Two runs: both equally far from the middle, the earlier is taken.
	if got := bench.MedianRun(runs([]float64{2, 1}, []float64{1, 2})); got != 0 {
		t.Errorf("tie: %d", got)
	}
}

// TestPlainEdgeMerges: the plain program stores one message per run of
// deltas and per event an assembler needs, and assembles every call.
func TestPlainEdgeMerges(t *testing.T) {
	in := bench.ProviderStream("p", 3, bench.WholeCalls, bench.WholeDeltas)
	msgs, outcomes, err := bench.PlainOffline(in)
	if err != nil {
		t.Fatal(err)
	}
	// a response: started, per call (call, merged arguments, arguments
	// done), merged text, text done, completed
	if want := 3 * (1 + 3*bench.WholeCalls + 3); msgs != want {
		t.Errorf("%d messages stored, want %d", msgs, want)
	}
	if want := 3 * (bench.WholeCalls + 1); outcomes != want {
		t.Errorf("%d outcomes, want %d", outcomes, want)
	}
}
