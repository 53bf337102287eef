package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/memory"
)

// The memory flags: defaults from flags, each tenant's values from the
// policy file; a file that does not parse or a negative time refuses to
// start; replay takes only what the view depends on (the quotas).
func TestMemoryFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "tenants:\n  acme: {quota: 2, review_after: 1h}\n  globex: {quota: -1}\n")
	typo := write("typo.yaml", "tenants:\n  acme: {qouta: 2}\n")
	for _, c := range []struct {
		args    []string
		check   func(e *memory.Engine) bool
		wantErr bool
	}{
		{nil, func(e *memory.Engine) bool {
			cfg := e.Config()
			return cfg.QuotaPerUser == memory.QuotaPerUserDefault && e.TenantQuota("acme") == 0 && cfg.ReviewAfter == 30*24*time.Hour && cfg.ColdAfter == 0
		}, false},
		{[]string{"--memory-quota-per-user", "7", "--memory-quota-per-tenant", "50", "--memory-review-after", "48h", "--memory-cold-after", "2160h",
			"--memory-policy", good}, func(e *memory.Engine) bool {
			cfg := e.Config()
			return cfg.QuotaPerUser == 7 && e.TenantQuota("acme") == 2 && e.TenantQuota("globex") == 0 && e.TenantQuota("initech") == 50 &&
				e.ReviewAfter("acme") == time.Hour && e.ReviewAfter("initech") == 48*time.Hour && cfg.ColdAfter == 2160*time.Hour
		}, false},
		{[]string{"--memory-policy", typo}, nil, true},
		{[]string{"--memory-policy", filepath.Join(dir, "missing.yaml")}, nil, true},
		{[]string{"--memory-review-after", "-1h"}, nil, true},
	} {
		cmd := &cobra.Command{Use: "serve"}
		var m memoryFlags
		memoryFlag(cmd, &m, false)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		cfg, err := m.config()
		if (err != nil) != c.wantErr {
			t.Fatalf("%v: error %v", c.args, err)
		}
		if err == nil && !c.check(memory.NewEngine(cfg, nil)) {
			t.Errorf("%v: config %+v", c.args, cfg)
		}
	}
	replay := &cobra.Command{Use: "replay"}
	memoryFlag(replay, &memoryFlags{}, true)
	for _, f := range []string{"memory-quota-per-user", "memory-quota-per-tenant", "memory-policy"} {
		if replay.Flags().Lookup(f) == nil {
			t.Errorf("replay lacks --%s", f)
		}
	}
	for _, f := range []string{"memory-review-after", "memory-cold-after", "memory-hit-batch"} {
		if replay.Flags().Lookup(f) != nil {
			t.Errorf("replay takes --%s, which the view does not depend on", f)
		}
	}
}

// TestServeMemoryPolicy: serve --memory-policy gives acme a quota of two
// active records for all its users: the third record written (bob's)
// turns ann's least valuable cold, while globex, without a quota, keeps
// all three. A recall's --budget-tokens reaches the service.
func TestServeMemoryPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	root := t.TempDir()
	policy := filepath.Join(root, "memory.yaml")
	if err := os.WriteFile(policy, []byte("tenants:\n  acme: {quota: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &memoryServer{t: t, ctx: ctx, logDir: filepath.Join(root, "log"), serveDir: filepath.Join(root, "serve"), cliDir: filepath.Join(root, "cli"),
		serveArgs: []string{"--memory-policy", policy, "--memory-hit-batch", "-1"}}
	s.admin = bustest.StartIn(t, s.logDir)
	s.serve()
	defer s.stop()
	for _, tenant := range []string{"acme", "globex"} {
		s.write("observe", "--tenant", tenant, "--user", "ann", "--id", "e1", "--kind", "episode", "--time", "2026-01-02T10:00:00Z", "We talked about the garden")
		s.write("observe", "--tenant", tenant, "--user", "ann", "--id", "e2", "--kind", "episode", "--time", "2026-01-03T10:00:00Z", "We talked about the garden shed")
		s.write("observe", "--tenant", tenant, "--user", "bob", "--id", "e3", "--kind", "episode", "--time", "2026-01-04T10:00:00Z", "We talked about the roses")
	}
	statuses := func(tenant, user string) string {
		var recs []memory.Record
		if err := json.Unmarshal([]byte(s.cli("memory", "list", "--history", "--tenant", tenant, "--user", user)), &recs); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.ID+"="+string(r.Status))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ tenant, user, want string }{
		{"acme", "ann", "e1=cold e2=active"},
		{"acme", "bob", "e3=active"},
		{"globex", "ann", "e1=active e2=active"},
		{"globex", "bob", "e3=active"},
	} {
		if got := statuses(c.tenant, c.user); got != c.want {
			t.Errorf("%s/%s: %s, want %s", c.tenant, c.user, got, c.want)
		}
	}
	var all, one memory.RecallOut
	for _, r := range []struct {
		out  *memory.RecallOut
		args []string
	}{{&all, nil}, {&one, []string{"--budget-tokens", "1"}}} {
		out := s.cli(append([]string{"memory", "recall", "--tenant", "globex", "--user", "ann", "--query", "garden"}, r.args...)...)
		if err := json.Unmarshal([]byte(out), r.out); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
	}
	if len(all.Results) != 2 || len(one.Results) != 1 || one.Results[0].ID != all.Results[0].ID {
		t.Fatalf("recall %+v, with --budget-tokens 1 %+v", all.Results, one.Results)
	}
}

// TestMemoryRunTakesMemoryFlags: memory run reads the same memory flags
// as serve: with --memory-review-after 24h an open-ended constraint said
// two days before the recall reads needs_confirmation; by default (30
// days) it is active.
func TestMemoryRunTakesMemoryFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an embedded server")
	}
	file := filepath.Join(t.TempDir(), "ops.jsonl")
	ops := `{"op":"message","tenant":"acme","user":"ann","id":"m1","time":"2026-10-01T12:00:00Z","text":"I can't eat spicy food these days"}
{"op":"recall","tenant":"acme","user":"ann","query":"spicy","time":"2026-10-03T12:00:00Z"}
`
	if err := os.WriteFile(file, []byte(ops), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "active"}, {[]string{"--memory-review-after", "24h"}, "needs_confirmation"}} {
		var out, errOut strings.Builder
		root := newRoot(&out, &errOut)
		root.SetArgs(append([]string{"memory", "run", file, "--log-level", "error"}, c.args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, errOut.String())
		}
		var got memory.RecallOut
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
			t.Fatalf("%v: %q: %v", c.args, out.String(), err)
		}
		if len(got.Results) != 1 || got.Results[0].Status != c.want {
			t.Errorf("%v: %+v, want one record %s", c.args, got.Results, c.want)
		}
	}
}
