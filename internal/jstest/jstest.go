package jstest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the absolute path of testdata/js (where package.json and
// node_modules are) after checking that node and the packages are there.
// It skips the test, or fails it under TOOLSTREAM_REQUIRE_NODE=1.
func Dir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(root(t), "testdata", "js")
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "TOOLSTREAM_REQUIRE_NODE", "node is not installed (apt-get install nodejs npm)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil {
		missing(t, "TOOLSTREAM_REQUIRE_NODE", "the JavaScript clients are not installed (npm ci --prefix testdata/js)")
	}
	return dir
}

// Chromium returns the path of a chromium binary, or skips the test (fails
// it under TOOLSTREAM_REQUIRE_CHROMIUM=1).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "TOOLSTREAM_REQUIRE_CHROMIUM", "chromium is not installed (apt-get install chromium)")
	return ""
}

// Node runs node with args (a script path, absolute or relative to Dir,
// and its arguments) in Dir, with env (KEY=VALUE) added to the
// environment, and returns its standard output. A non-zero exit fails the
// test with the script's standard error.
func Node(ctx context.Context, t testing.TB, env []string, args ...string) []byte {
	t.Helper()
	dir := Dir(t)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %v: %v\nstderr:\n%s\nstdout:\n%s", args, err, stderr.Bytes(), stdout.Bytes())
	}
	return stdout.Bytes()
}

func missing(t testing.TB, env, why string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatalf("%s, and %s=1", why, env)
	}
	t.Skipf("skipped: %s; set %s=1 to make this a failure", why, env)
}

// root is the repository's root: the directory of go.mod above this file.
func root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("jstest: cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// NatsCLI returns the path of the stock nats CLI (natscli), looked up on
// PATH and then in $(go env GOPATH)/bin, where `go install
// github.com/nats-io/natscli/nats@v0.5.0` puts it. It skips the test, or
// fails it under TOOLSTREAM_REQUIRE_NATS=1 (.ci/run installs it and sets it).
// The attack tests drive the server with it, as an attacker would.
func NatsCLI(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("nats"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(string(bytes.TrimSpace(out))) {
			p := filepath.Join(dir, "bin", "nats")
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	missing(t, "TOOLSTREAM_REQUIRE_NATS", "the nats CLI is not installed (go install github.com/nats-io/natscli/nats@v0.5.0)")
	return ""
}

// Package skips the test (fails it under TOOLSTREAM_REQUIRE_NODE=1)
// unless each npm package named is installed in Dir's node_modules: a
// node_modules installed before the package was added to package.json
// lacks it.
func Package(t testing.TB, names ...string) {
	t.Helper()
	dir := Dir(t)
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", name, "package.json")); err != nil {
			missing(t, "TOOLSTREAM_REQUIRE_NODE", "the npm package "+name+" is not installed (npm ci --prefix testdata/js)")
		}
	}
}
