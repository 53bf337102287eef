package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/memory"
)

// TestMemoryPrintsForPeople: the memory commands printed the service's
// JSON, nanosecond timestamps and 16-digit scores; they print a table with
// RFC 3339 times and scores to three significant digits, and --json keeps
// the machine values.
func TestMemoryPrintsForPeople(t *testing.T) {
	s := startMemoryServer(t)
	defer s.stop()
	human := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", s.admin.ClientURL(), "--data", s.cliDir, "--log-level", "error",
			"--creds", bustest.Creds(t, s.admin, auth.Identity{Role: auth.RoleOperator})))
		if err := c.ExecuteContext(s.ctx); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	long := regexp.MustCompile(`\d{10,}|\.\d{4,}`) // a nanosecond time, an unrounded score
	list := human("memory", "list", "--tenant", "acme", "--user", "ann")
	if !strings.HasPrefix(list, "ID ") || !strings.Contains(list, "2026-01-02T10:02:00Z") || !strings.Contains(list, "location.home=ZORBAVILLE") || long.MatchString(list) {
		t.Errorf("memory list:\n%s", list)
	}
	hist := human("memory", "history", "car", "--tenant", "acme", "--user", "ann")
	if strings.Count(hist, "\ncar ") != 2 || !strings.Contains(hist, "superseded") || long.MatchString(hist) {
		t.Errorf("memory history car:\n%s", hist)
	}
	recall := human("memory", "recall", "--tenant", "acme", "--user", "ann", "--query", "car")
	// every score to three significant digits (0.0787 is one), no time
	// in nanoseconds
	score := regexp.MustCompile(`(?m)^(\d+(?:\.\d+)?)\s+(\S+)\s`)
	ms := score.FindAllStringSubmatch(recall, -1)
	if !strings.HasPrefix(recall, "SCORE ") || len(ms) == 0 || ms[0][2] != "car" || regexp.MustCompile(`\d{10,}`).MatchString(recall) {
		t.Errorf("memory recall:\n%s", recall)
	}
	for _, m := range ms {
		if len(strings.Trim(strings.ReplaceAll(m[1], ".", ""), "0")) > 3 {
			t.Errorf("memory recall: score %s of %s unrounded:\n%s", m[1], m[2], recall)
		}
	}
	if out := human("memory", "recall", "--tenant", "acme", "--user", "nobody", "--query", "car"); out != "no memories\n" {
		t.Errorf("memory recall of a user with none: %q", out)
	}
	if out := human("memory", "observe", "--tenant", "acme", "--user", "ann", "--id", "tea", "--kind", "preference",
		"--subject", "drink", "--attribute", "tea", "--value", "green", "I like green tea"); !regexp.MustCompile(`^observed tea \(log seq \d+\)\n$`).MatchString(out) {
		t.Errorf("memory observe: %q", out)
	}
	var recs []memory.Record
	if err := json.Unmarshal([]byte(s.cli("memory", "list", "--tenant", "acme", "--user", "ann")), &recs); err != nil || len(recs) == 0 || recs[0].ObservedAt < 1e18 {
		t.Errorf("memory list --json: %v, %+v", err, recs)
	}
}
