package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bench"
)

// TestBenchCommand runs `toolstream bench --quick` with tiny sizes (the
// hidden --scale) on real embedded servers and checks that the table has
// every row and describes the machine. It asserts no timing.
func TestBenchCommand(t *testing.T) {
	t.Parallel()
	table, progress, err := runBench(t, "--quick", "--scale", "0.02", "--runs", "2")
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, progress)
	}
	m := bench.DescribeMachine()
	for _, want := range []string{m.GOOS + "/" + m.GOARCH, m.CPU, m.GoVersion, "median of 2 runs", "reproduce: toolstream bench --quick --runs 2"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for _, row := range bench.RowNames {
		found := false
		for _, line := range strings.Split(table, "\n") {
			cells := strings.Split(line, "|")
			if len(cells) > 3 && strings.TrimSpace(cells[1]) == row[0] && strings.TrimSpace(cells[2]) == row[1] {
				found = true
				if strings.Contains(cells[6], "—") {
					t.Errorf("row %s/%s has no ratio: %s", row[0], row[1], line)
				}
			}
		}
		if !found {
			t.Errorf("table lacks the row %s / %s:\n%s", row[0], row[1], table)
		}
	}
	if !strings.Contains(progress, "bench: run 2/2: memory") {
		t.Errorf("no progress on stderr: %q", progress)
	}
}

// TestBenchCommandJSON runs `toolstream bench --quick --json` with tiny
// sizes: a report with every row and the machine. A test of its own
// (each suite runs for a minute on 2 cores), so that it runs beside
// TestBenchCommand's two.
func TestBenchCommandJSON(t *testing.T) {
	t.Parallel()
	out, _, err := runBench(t, "--quick", "--scale", "0.02", "--json")
	if err != nil {
		t.Fatalf("bench --json: %v", err)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Rows) != len(bench.RowNames) || rep.Machine.Cores == 0 {
		t.Errorf("bench --json: %v %+v", err, rep)
	}
	if _, _, err := runBench(t, "--runs", "0"); err == nil {
		t.Error("--runs 0 was accepted")
	}
}

// runBench runs toolstream bench with args in this process (five minutes
// at most) and returns what it printed on stdout and on stderr.
func runBench(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs(append([]string{"bench"}, args...))
	err = root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}
