package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/console"
)

// TestConsoleTokenExitCodes: console-token exited 1 for every mistake —
// a mistyped --role named a missing key, and no serve --console on --data
// was "anything else". What was asked is bad input (4) before anything on
// --data is read; no console having run there is no server (5).
func TestConsoleTokenExitCodes(t *testing.T) {
	withKey, keyNoURL, emptyURL := t.TempDir(), t.TempDir(), t.TempDir()
	for _, data := range []string{withKey, keyNoURL, emptyURL} {
		os.MkdirAll(filepath.Join(data, "auth"), 0o700)
		if _, err := console.LoadKey(filepath.Join(data, "auth", consoleKeyFile), true); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(withKey, consoleURLFile), []byte("http://127.0.0.1:8080\n"), 0o600)
	os.WriteFile(filepath.Join(emptyURL, consoleURLFile), nil, 0o600)
	empty, starting := t.TempDir(), t.TempDir()
	release, err := lockData(starting, "serve")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, tc := range []struct {
		name string
		data string
		args []string
		code int
		say  string
	}{
		{"signed in", withKey, nil, 0, "http://127.0.0.1:8080/signin#token="},
		{"a reader of one tenant", withKey, []string{"--role", "reader", "--tenant", "acme"}, 0, "/signin#token="},
		{"no serve --console on --data", empty, nil, exitUnavailable, "serve --console makes it"},
		{"a serve starting on --data", starting, nil, exitUnavailable, "(serve --console makes it); serve (pid"},
		{"a key but no address", keyNoURL, nil, exitUnavailable, "no console has run on --data"},
		// Read between a non-atomic write's two steps (CI saw it): no
		// URL without a host.
		{"a key and an empty address", emptyURL, nil, exitUnavailable, "no console has run on --data"},
		{"a mistyped role, no key", empty, []string{"--role", "opertor"}, exitBadInput, `role "opertor"`},
		{"a mistyped role", withKey, []string{"--role", "admin"}, exitBadInput, `role "admin"`},
		{"a tenant that cannot be", withKey, []string{"--tenant", "a b"}, exitBadInput, `tenant "a b"`},
		{"a link that never works", withKey, []string{"--ttl", "0s"}, exitBadInput, "--ttl 0s"},
		{"a link expired at once", withKey, []string{"--ttl", "-5m"}, exitBadInput, "--ttl -5m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			root := newRoot(&out, &bytes.Buffer{})
			root.SetArgs(append([]string{"console-token", "--data", tc.data}, tc.args...))
			_, err := execute(context.Background(), root)
			code := 0
			text := out.String()
			if err != nil {
				code, text = exitCode(err), userMessage(err)
			}
			if code != tc.code || !strings.Contains(text, tc.say) {
				t.Errorf("console-token %v: exit %d, %q; want exit %d saying %q", tc.args, code, text, tc.code, tc.say)
			}
		})
	}
}

// TestVersion: there was no way to ask a binary what it was built from.
// `toolstream version` says the module's version, the VCS revision and
// the Go version, from the build information (a test binary has no VCS
// stamp: versionOf is given one).
func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/toolstream/toolstream", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "6522b55abc"}, {Key: "vcs.time", Value: "2026-12-07T08:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"stamped", bi, true, "toolstream v1.2.3 (github.com/toolstream/toolstream)\nrevision 6522b55abc of 2026-12-07T08:00:00Z, with uncommitted changes\ngo1.26.8\n"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "m", Version: "(devel)"}}, true,
			"toolstream (devel) (m)\nrevision unknown (built outside a git checkout, or with -buildvcs=false)\ngo1.26.8\n"},
		{"no build info", nil, false, "toolstream unknown (built without module information)\nrevision unknown (built outside a git checkout, or with -buildvcs=false)\nunknown\n"},
	} {
		if got := versionOf(tc.bi, tc.ok).String(); got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	root := newRoot(&out, &bytes.Buffer{})
	root.SetArgs([]string{"version", "--json"})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	var v buildVersion
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("version --json: %q: %v", out.String(), err)
	}
	if v.Go != runtime.Version() || v.Module == "" || v.Version == "" {
		t.Errorf("version --json: %+v; want this binary's module, version and %s", v, runtime.Version())
	}
	var flagOut bytes.Buffer
	root = newRoot(&flagOut, &bytes.Buffer{})
	root.SetArgs([]string{"--version"})
	if err := root.ExecuteContext(ctx); err != nil || flagOut.String() != versionOf(debug.ReadBuildInfo()).String() {
		t.Errorf("--version: %q, %v; want what version prints", flagOut.String(), err)
	}
	root = newRoot(&out, &bytes.Buffer{})
	root.SetArgs([]string{"version", "extra"})
	if _, err := execute(ctx, root); exitCode(err) != exitBadInput {
		t.Errorf("version extra: %v (exit %d); want bad input", err, exitCode(err))
	}
}

// TestMistakesExitWithTheirCode: each of these exited 1 ("anything
// else") where docs/operations.md names a code: a required flag left out,
// deny without --reason, a role that does not exist, a producer without
// its tenant and verify's evidence, answer, --now or --policy that is not
// what it takes are bad input (4);
// setup --nats-url where no server answers is no server (5); serve's
// --tools file that is not there is refused before anything starts (it was
// said, "watch: stat tools.yaml", once the server was up). Run before
// anything is served: none of them needs one to be refused.
func TestMistakesExitWithTheirCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data := t.TempDir()
	// verify's files, each wrong in one way (review rev16: these exited 1).
	ev, notEv, answer, latin1 := filepath.Join(data, "ev.json"), filepath.Join(data, "tools.yaml"), filepath.Join(data, "answer.txt"), filepath.Join(data, "latin1.txt")
	for f, body := range map[string]string{ev: `[{"call_id":"c1","name":"weather","result":{"temp_c":14}}]`, notEv: "tools:\n  - name: weather\n",
		answer: "It is 14 degrees.", latin1: "Il fait 14 degr\xe9s."} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"history", "--tenant", "acme", "--format", "anthropic"}, exitBadInput, `required flag(s) "run" not set (usage: toolstream history`},
		{[]string{"replay"}, exitBadInput, `required flag(s) "projection" not set`},
		{[]string{"verify"}, exitBadInput, `required flag(s) "answer", "evidence" not set`},
		{[]string{"verify", "--evidence", notEv, "--answer", answer}, exitBadInput, "want a JSON array of {call_id, name, result}"},
		{[]string{"verify", "--evidence", ev, "--answer", latin1}, exitBadInput, "not UTF-8"},
		{[]string{"verify", "--evidence", ev, "--answer", answer, "--now", "tomorrow"}, exitBadInput, "--now"},
		{[]string{"verify", "--evidence", ev, "--answer", answer, "--policy", "redcat"}, exitBadInput, "--policy"},
		{[]string{"deny", "acme/order-7/1/call_r1"}, exitBadInput, "deny needs --reason"},
		{[]string{"creds", "opertor", "--out", filepath.Join(data, "x.creds")}, exitBadInput, `unknown role: "opertor"`},
		{[]string{"creds", "producer", "--out", filepath.Join(data, "x.creds")}, exitBadInput, "creds producer needs --tenant T"},
		{[]string{"setup", "--nats-url", "nats://127.0.0.1:1"}, exitUnavailable, "no servers available"},
		{[]string{"serve", "--tools", filepath.Join(data, "tols.yaml"), "--listen", "127.0.0.1:0"}, exitBadInput, "tols.yaml: no such file"},
	} {
		root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		root.SetArgs(append(tc.args, "--data", data, "--log-level", "error"))
		_, err := execute(ctx, root)
		if err == nil || exitCode(err) != tc.code || !strings.Contains(userMessage(err), tc.say) {
			t.Errorf("toolstream %s: %v (exit %d); want exit %d saying %q", strings.Join(tc.args, " "), err, exitCode(err), tc.code, tc.say)
		}
	}
	// serve refused its missing --tools before starting anything.
	if _, err := os.Stat(filepath.Join(data, "nats")); err == nil {
		t.Errorf("serve with a --tools file that is not there started a server on --data first")
	}
}
