package invariants_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestChecksRunUnderTheTag builds and runs the projector's and the
// assembler's invariant tests, their conformance suites and the
// assembler's datadriven files with -tags invariants, so the checks are
// compiled, reached and able to fail in an ordinary go test run (the whole
// packages under the tag take a minute: go test -tags invariants
// ./projector ./assembler). Skipped with -short.
func TestChecksRunUnderTheTag(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -tags invariants")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.CommandContext(ctx, goBin, "test", "-tags", "invariants", "-count=1", "-v",
		"-run", "Invariant|Conformance|TestAssembler$|TestCrash|TestReplay", "./projector", "./assembler")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -tags invariants: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestCheckpointInvariant", "--- PASS: TestResponseAccountingInvariant", "--- PASS: TestConformanceAssembler"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in the tagged run:\n%s", want, out)
		}
	}
}
