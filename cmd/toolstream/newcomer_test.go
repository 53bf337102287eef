package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The binary the process tests run: built once per test run (a build
// takes a while on a shared machine), removed by TestMain (readme_test.go)
// through removeBinary.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// removeBinary removes the binary toolstreamBinary built, if it did.
func removeBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// toolstreamBinary builds the binary (once) and returns its path.
func toolstreamBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "toolstream-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "toolstream")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// ran is one run of the binary.
type ran struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runBin runs the binary with args and waits at most a minute (not
// counting the binary's build, which the first run waits for).
func runBin(t *testing.T, args ...string) ran {
	t.Helper()
	bin := toolstreamBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := ran{stdout: out.String(), stderr: errOut.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%v did not end in a minute:\n%s", args, r.stderr)
	}
	return r
}

// atOnce bounds how long a refused command may take: the hangs these
// tests catch waited out a 30 s server start or connect timeout, and a
// loaded 2-core CI machine took 10.4 s to start the binary and refuse a busy
// address that takes 0.5 s when idle (CI, stop 50), so the bound sits
// between the two.
const atOnce = 25 * time.Second

// mustRun runs the binary and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := runBin(t, args...)
	if r.code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// serveProc is a `toolstream serve` process.
type serveProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
	mu     *sync.Mutex
}

// startServe starts serve on data with args and waits until it has
// recorded its address there (serve.json), which it does once its server
// answers.
func startServe(t *testing.T, data string, args ...string) *serveProc {
	t.Helper()
	os.Remove(filepath.Join(data, serverFile)) // a record a killed serve left is not this one's
	cmd := exec.Command(toolstreamBinary(t), append([]string{"serve", "--data", data, "--listen", "127.0.0.1:-1", "--log-level", "warn"}, args...)...)
	s := &serveProc{cmd: cmd, exited: make(chan struct{}), log: &bytes.Buffer{}, mu: &sync.Mutex{}}
	cmd.Stdout, cmd.Stderr = lockedWriter{s.mu, s.log}, lockedWriter{s.mu, s.log}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.After(2 * time.Minute)
	for {
		if r, ok := readServerRecord(data); ok && r.PID == cmd.Process.Pid {
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("serve exited before it answered:\n%s", s.output())
		case <-deadline:
			t.Fatalf("serve did not record its address in two minutes:\n%s", s.output())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *serveProc) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// stop ends serve with SIGTERM (SIGKILL after a minute).
func (s *serveProc) stop(t *testing.T) {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("serve did not stop in a minute:\n%s", s.output())
	}
}

// kill ends serve as a crash does.
func (s *serveProc) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// approvalTools is a tools file with one tool that waits for approval.
const approvalTools = `tools:
  - name: weather
    input_schema: {type: object, properties: {location: {type: string}}, required: [location]}
    command: ["/bin/sh", "-c", "echo '{\"temp_c\":14}'"]
    side_effect: irreversible
    approval: required
grants:
  - tenant: acme
    permissions: [weather]
`

// pollCalls runs calls --json until one line has type kind, and returns
// that line.
func pollCalls(t *testing.T, data, kind string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out := mustRun(t, "calls", "--tenant", "acme", "--data", data, "--json")
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["type"] == kind {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s in calls after two minutes:\n%s", kind, out)
		}
		time.Sleep(200 * time.Millisecond) // a new process each time: poll gently
	}
}

// TestCommandsWorkWithOnlyData walks the README's path as a newcomer does:
// serve, then every command with nothing but the same --data, each taking
// the least role it needs from --data/auth by itself: publish as acme's
// producer (it was refused as the operator: "Publish to ts.model.acme"
// denied), calls, trace, verdicts, tools and replay as the reader, approve,
// memory and forget as the operator, runs as the producer, keys backup as
// the admin. An explicit --creds still wins: the reader's creds may not
// publish.
func TestCommandsWorkWithOnlyData(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	tools := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(tools, []byte(approvalTools), 0o644); err != nil {
		t.Fatal(err)
	}
	startServe(t, data, "--tools", tools)
	stream := filepath.Join("..", "..", "testdata", "streams", "anthropic-weather.jsonl")

	out := mustRun(t, "publish", "--tenant", "acme", "--user", "u1", "--data", data, stream)
	if !strings.Contains(out, "for tenant acme as") {
		t.Fatalf("publish: %s", out)
	}
	var pub struct {
		Events int    `json:"events"`
		Last   uint64 `json:"last_seq"`
	}
	// --json on every command that prints: the same stream again (the log
	// drops the repeats, so nothing runs twice).
	if out := mustRun(t, "publish", "--tenant", "acme", "--user", "u1", "--data", data, "--json", stream); json.Unmarshal([]byte(out), &pub) != nil || pub.Events == 0 || pub.Last == 0 {
		t.Fatalf("publish --json: %s", out)
	}
	req := pollCalls(t, data, "exec.approval_requested")
	const callID = "toolu_019Zvehfe1XQWweT1pm7okyt"
	if req["call_id"] != callID {
		t.Fatalf("approval request: %v", req)
	}
	var decided map[string]string
	if out := mustRun(t, "approve", callID, "--tenant", "acme", "--data", data, "--json"); json.Unmarshal([]byte(out), &decided) != nil ||
		decided["decision"] != "approved" || !strings.HasPrefix(decided["key"], "acme/") {
		t.Fatalf("approve: %s", out)
	}
	pollCalls(t, data, "exec.succeeded")
	if out := mustRun(t, "trace", callID, "--tenant", "acme", "--data", data); !strings.Contains(out, callID) {
		t.Fatalf("trace: %s", out)
	}
	mustRun(t, "verdicts", "--tenant", "acme", "--data", data)
	var runsOut []any
	if out := mustRun(t, "runs", "--tenant", "acme", "--data", data, "--json"); json.Unmarshal([]byte(out), &runsOut) != nil {
		t.Fatalf("runs --json: %s", out)
	}
	var ranked []map[string]any
	if out := mustRun(t, "tools", "search", "weather", "--data", data, "--json"); json.Unmarshal([]byte(out), &ranked) != nil || len(ranked) != 1 || ranked[0]["name"] != "weather" {
		t.Fatalf("tools search --json: %s", out)
	}
	if out := mustRun(t, "tools", "export", "--data", data); !strings.Contains(out, `"weather"`) {
		t.Fatalf("tools export: %s", out)
	}
	mustRun(t, "memory", "observe", "--tenant", "acme", "--user", "u1", "--id", "diet", "--kind", "preference",
		"--subject", "user", "--attribute", "diet", "--value", "vegetarian", "--data", data, "I am vegetarian")
	if out := mustRun(t, "memory", "list", "--tenant", "acme", "--user", "u1", "--data", data); !strings.Contains(out, "vegetarian") {
		t.Fatalf("memory list: %s", out)
	}
	mustRun(t, "replay", "--projection", "assembler", "--verify", "--progress", "none", "--data", data)
	mustRun(t, "keys", "backup", "--out", filepath.Join(dir, "keys.backup"), "--data", data)
	mustRun(t, "forget", "--tenant", "acme", "--user", "u1", "--data", data)

	// Not found is exit 3, garbage in exit 4, each one line a user reads
	// (no package prefix, no service subject).
	for _, tc := range []struct {
		code int
		args []string
	}{
		{exitNotFound, []string{"trace", "nope", "--tenant", "acme"}},
		{exitNotFound, []string{"approve", "nope", "--tenant", "acme"}},
		{exitNotFound, []string{"memory", "history", "nope", "--tenant", "acme", "--user", "u1"}},
		{exitNotFound, []string{"history", "--run", "nope", "--tenant", "acme"}},
		{exitBadInput, []string{"replay", "--projection", "bogus"}},
		{exitBadInput, []string{"runs", "--tenant", ""}},
		{exitBadInput, []string{"calls", "--tenant", "a b"}},
		{exitBadInput, []string{"publish", "--tenant", "acme", filepath.Join(dir, "nope.jsonl")}},
		{exitBadInput, []string{"memory", "recall", "--tenant", "acme"}},
	} {
		r := runBin(t, append(tc.args, "--data", data, "--log-level", "error")...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, "toolstream: ") || strings.Count(r.stderr, "\n") != 1 ||
			strings.Contains(r.stderr, "client:") || strings.Contains(r.stderr, "tsv.") {
			t.Errorf("%v: exit %d\n%s\nwant exit %d and one line", tc.args, r.code, r.stderr, tc.code)
		}
	}

	// A --data whose material the server does not know (or none) is
	// refused, saying where and what to give; exit 5.
	rec, _ := readServerRecord(data)
	addr := strings.TrimPrefix(rec.URL, "nats://")
	other := filepath.Join(dir, "other")
	mustRun(t, "auth", "init", "--data", other)
	for d, who := range map[string]string{other: "this command's identity (reader of --data " + other + ")",
		filepath.Join(dir, "none"): "a command without credentials (--data " + filepath.Join(dir, "none") + " holds no security material)"} {
		r := runBin(t, "calls", "--tenant", "acme", "--data", d, "--listen", addr)
		want := "toolstream: the server at " + rec.URL + " (--listen) refused " + who
		if r.code != exitUnavailable || !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "give the --data of that serve, or --creds") {
			t.Errorf("calls with --data %s: exit %d\n%s\nwant exit 5 and %s…", d, r.code, r.stderr, want)
		}
	}

	// An explicit --creds wins over --data's material.
	reader := filepath.Join(dir, "reader.creds")
	mustRun(t, "creds", "reader", "--out", reader, "--data", data)
	r := runBin(t, "publish", "--tenant", "acme", "--data", data, "--creds", reader, stream)
	if r.code == 0 || !strings.Contains(r.stderr, "ermission") {
		t.Fatalf("publish with the reader's --creds: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestNoServerNoEmbeddedServer: a command whose server is not there never
// starts one on --data (it did, and reported success on the live files): it
// fails in seconds with one line saying where it looked: the address serve
// recorded in --data (serve was killed), the --listen given, or a mistyped
// --creds named. Nothing in --data is touched.
func TestNoServerNoEmbeddedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	s := startServe(t, data)
	rec, _ := readServerRecord(data)
	s.kill() // the record stays, the lock goes with the process
	before := tree(t, data)
	stream := filepath.Join("..", "..", "testdata", "streams", "anthropic-weather.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"publish", "--tenant", "acme", "--data", data, stream},
			"toolstream: no server at " + rec.URL + " (from " + filepath.Join(data, "serve.json") + ", left by serve pid "},
		{[]string{"calls", "--tenant", "acme", "--data", data}, "start one with: toolstream serve --data " + data},
		{[]string{"replay", "--projection", "memory", "--data", data}, "no server at " + rec.URL},
		{[]string{"keys", "backup", "--out", filepath.Join(dir, "k"), "--data", data}, "no server at " + rec.URL},
		{[]string{"calls", "--tenant", "acme", "--data", data, "--listen", "127.0.0.1:1"}, "toolstream: no server at nats://127.0.0.1:1 (--listen); start one with"},
		{[]string{"calls", "--tenant", "acme", "--data", data, "--creds", filepath.Join(dir, "acme.cerds")},
			"toolstream: --creds " + filepath.Join(dir, "acme.cerds") + ": no such file"},
	} {
		r := runBin(t, tc.args...)
		if r.code == 0 || !strings.HasPrefix(r.stderr, "toolstream: ") || !strings.Contains(r.stderr, tc.want) ||
			strings.Count(r.stderr, "\n") != 1 || r.took > atOnce {
			t.Errorf("%v: exit %d after %v\n%s%s\nwant one line with %q", tc.args, r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr, tc.want)
		}
	}
	if after := tree(t, data); after != before {
		t.Errorf("--data changed:\n%s\nwas\n%s", after, before)
	}
}

// tree lists the files under dir with their sizes and times.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			b.WriteString(path + " " + fi.ModTime().String() + " " + string(rune('0'+fi.Size()%10)) + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDataIsLockedByItsOwner: a second serve on the --data of a running
// one is refused at once with a line naming the holder (it reopened the live
// file store, then died on Pebble's lock or hung on the busy port), and so
// are setup, replay --offline and a one-shot given that --data, and a serve
// on another --data but the same address (it hung 30 s); a serve killed
// leaves no stale lock: the next one starts on the same --data.
func TestDataIsLockedByItsOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	s := startServe(t, data)
	pid := s.cmd.Process.Pid
	holder := "--data " + data + " is in use by serve (pid " + itoa(pid) + ") since "
	for _, args := range [][]string{
		{"serve", "--data", data, "--listen", "127.0.0.1:-1"},
		{"setup", "--data", data},
		{"replay", "--offline", "--projection", "memory", "--data", data},
		{"demo", "--data", data},
	} {
		r := runBin(t, args...)
		if r.code != exitConflict || !strings.HasPrefix(r.stderr, "toolstream: "+holder) || strings.Count(r.stderr, "\n") != 1 || r.took > atOnce {
			t.Errorf("%v: exit %d after %v\n%s%s\nwant one line: toolstream: %s…", args, r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr, holder)
		}
	}
	// Another --data on the same address: refused at once (it hung 30 s).
	rec, _ := readServerRecord(data)
	addr := strings.TrimPrefix(rec.URL, "nats://")
	other := filepath.Join(t.TempDir(), "other")
	r := runBin(t, "serve", "--data", other, "--listen", addr)
	if want := "toolstream: --listen " + addr + ": the address is in use"; r.code == 0 || !strings.HasPrefix(r.stderr, want) || r.took > atOnce {
		t.Errorf("serve on the busy %s: exit %d after %v\n%s\nwant %s…", addr, r.code, r.took.Round(time.Millisecond), r.stderr, want)
	}
	// It made --data for nothing: it left a directory holding a lock.
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused serve left --data %s: %v", other, err)
	}
	s.kill()
	s = startServe(t, data) // the lock went with the killed process
	mustRun(t, "calls", "--tenant", "acme", "--data", data)
	s.stop(t)
	if _, ok := readServerRecord(data); ok {
		t.Errorf("serve stopped and left its record")
	}
	if h, held := dataHeld(data); held {
		t.Errorf("serve stopped and --data is still held by %s", h)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
