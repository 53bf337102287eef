package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// serve and replay --verify-policy FILE: the file's policies reach the
// verifier projection they build, a tenant's answer is redacted or
// blocked as its policy says, and a file naming a policy that does not
// exist refuses to start.
func TestVerifyPolicyFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(file, []byte("default: annotate\ntenants:\n  acme: redact\n  globex: block\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := &deps{verify: verifyFlags{policyFile: file}}
	var err error
	if d.policies, err = d.verify.policies(); err != nil {
		t.Fatal(err)
	}
	p, err := newProjection(verifier.Name, d)
	if err != nil {
		t.Fatal(err)
	}
	l, err := projector.NewLocal(filepath.Join(dir, "v"), p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	answer := "Item A has 30 in stock."
	var msgs []*projector.Msg
	for i, tenant := range []string{"acme", "globex", "initech"} {
		rs, _ := events.ResultSubject(tenant, "c1")
		as, _ := events.AnswerSubject(tenant, "r1")
		for _, ev := range []struct {
			subj string
			ev   *events.Event
		}{
			{rs, &events.Event{ID: tenant + "-res", Tenant: tenant, Run: "run1", CallID: "c1", At: 1,
				Body: &events.CallSucceeded{Name: "get_stock", Key: "k", Result: []byte(`{"items":[{"name":"A","stock":12}]}`)}}},
			{as, &events.Event{ID: tenant + "-ans", Tenant: tenant, Run: "run1", Response: "r1", At: 2, Body: &events.AnswerSubmitted{Text: answer}}},
		} {
			data, err := events.Encode(ev.ev)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, &projector.Msg{Seq: uint64(len(msgs) + 1), Subject: ev.subj, Time: int64(i), Data: data})
		}
	}
	if _, err := l.Apply(context.Background(), msgs...); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tenant, policy string
		repaired       bool
		blocked        bool
	}{{"acme", "redact", true, false}, {"globex", "block", false, true}, {"initech", "annotate", false, false}} {
		v, err := verifier.Get(l.Runner().View(), tt.tenant, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if v.Verified.Policy != tt.policy || (v.Verified.Repaired != "") != tt.repaired || v.Verified.Blocked != tt.blocked {
			t.Errorf("%s: policy %q repaired %q blocked %v; want %s", tt.tenant, v.Verified.Policy, v.Verified.Repaired, v.Verified.Blocked, tt.policy)
		}
	}

	if err := os.WriteFile(file, []byte("tenants: {acme: hide}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.verify.policies(); !errors.Is(err, verifier.ErrUnknownPolicy) {
		t.Fatalf("a policy that does not exist: %v, want ErrUnknownPolicy", err)
	}
}

// serve --judge URL [--judge-timeout D]: no flag is no judge, a URL is an
// HTTP judge with the timeout, and what cannot be a judge's URL or a
// timeout refuses to start; replay has no --judge (it never asks one).
func TestJudgeFlag(t *testing.T) {
	tests := []struct {
		flags   []string
		judge   bool
		timeout time.Duration
		bad     bool
	}{
		{flags: nil},
		{flags: []string{"--judge", "http://127.0.0.1:9/judge"}, judge: true, timeout: 30 * time.Second},
		{flags: []string{"--judge", "https://judge.example/v1", "--judge-timeout", "5s"}, judge: true, timeout: 5 * time.Second},
		{flags: []string{"--judge", "judge.example"}, bad: true},
		{flags: []string{"--judge", "ftp://judge.example/"}, bad: true},
		{flags: []string{"--judge", "http://127.0.0.1:9/", "--judge-timeout", "0s"}, bad: true},
	}
	for _, tt := range tests {
		cmd := &cobra.Command{}
		var v verifyFlags
		verifyPolicyFlag(cmd, &v, false)
		if err := cmd.ParseFlags(tt.flags); err != nil {
			t.Fatal(err)
		}
		jc, err := v.judge()
		if tt.bad {
			if err == nil {
				t.Errorf("%v: no error", tt.flags)
			}
			continue
		}
		if err != nil || (jc.Judge != nil) != tt.judge || jc.Timeout != tt.timeout {
			t.Errorf("%v: %+v %v", tt.flags, jc, err)
		}
	}
	replay := &cobra.Command{}
	verifyPolicyFlag(replay, &verifyFlags{}, true)
	if replay.Flags().Lookup("judge") != nil {
		t.Error("replay takes --judge")
	}
}
