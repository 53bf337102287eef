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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs([]string{"bench", "--quick", "--scale", "0.02", "--runs", "2"})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatalf("bench: %v\n%s", err, errOut.String())
	}
	table := out.String()
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
	if !strings.Contains(errOut.String(), "bench: run 2/2: memory") {
		t.Errorf("no progress on stderr: %q", errOut.String())
	}

	out.Reset()
	root = newRoot(&out, &errOut)
	root.SetArgs([]string{"bench", "--quick", "--scale", "0.02", "--json"})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatalf("bench --json: %v", err)
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Rows) != len(bench.RowNames) || rep.Machine.Cores == 0 {
		t.Errorf("bench --json: %v %+v", err, rep)
	}
	root = newRoot(&out, &errOut)
	root.SetArgs([]string{"bench", "--runs", "0"})
	if err := root.ExecuteContext(ctx); err == nil {
		t.Error("--runs 0 was accepted")
	}
}
