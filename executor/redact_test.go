package executor_test

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logtest"
)

// A secret resolved for a call never leaves the tool: a command tool that
// prints its token to stderr (as it is and in base64) and fails, one that
// echoes it in its result, and an http tool whose upstream echoes the
// Authorization header in a 500 body (as it is and URL-escaped). The
// CallFailed and CallSucceeded events read back from the server, every
// byte of the results stream and the executor's log hold a marker,
// never the value. Attacker: a tool or an upstream that would get the
// secret into what tenants and operators read (the model, the console,
// serve's log). Victim: the secret's owner; the calls still fail or
// succeed as they would.
func TestAttackSecretsRedacted(t *testing.T) {
	const secret = "tok-4f9a/x+y=Zq7"
	t.Setenv("TS_TEST_REDACT_TOKEN", secret)
	forms := []string{secret, base64.StdEncoding.EncodeToString([]byte(secret)), url.QueryEscape(secret), "x+y=Zq7"}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "invalid credentials %q (escaped: %s)", a, url.QueryEscape(a))
	}))
	defer upstream.Close()
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: leak.stderr
    side_effect: none
    command: [/bin/sh, -c, 'echo "auth failed for $API_TOKEN" >&2; printf %%s "$API_TOKEN" | base64 >&2; exit 3']
    env: {API_TOKEN: "${env:TS_TEST_REDACT_TOKEN}"}
  - name: leak.result
    side_effect: none
    command: [/bin/sh, -c, 'printf "{\"echo\": \"%%s\"}" "$API_TOKEN"']
    env: {API_TOKEN: "${env:TS_TEST_REDACT_TOKEN}"}
  - name: leak.http
    side_effect: none
    http: {url: %q, headers: {Authorization: "Bearer ${env:TS_TEST_REDACT_TOKEN}"}}
grants:
  - tenant: acme
    permissions: [leak.stderr, leak.result, leak.http]
`, upstream.URL))
	b := bustest.Start(t)
	logs := &logtest.Buffer{}
	startExec(t, b, reg, nil, func(c *executor.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	leaks := func(what, text string) {
		t.Helper()
		for _, f := range forms {
			if strings.Contains(text, f) {
				t.Fatalf("%s holds the secret (%q): %s", what, f, text)
			}
		}
	}

	o := callAcme(t, b, "leak.stderr", "c1")
	if !o.failedWith(events.ErrToolError, "exited with status 3", "auth failed for [redacted:API_TOKEN]") {
		t.Fatalf("stderr: %v", o)
	}
	leaks("CallFailed of the command tool", o.err.Message)
	o = callAcme(t, b, "leak.result", "c2")
	if o.ok == nil || string(o.ok.Result) != `{"echo":"[redacted:API_TOKEN]"}` {
		t.Fatalf("result: %v", o)
	}
	leaks("CallSucceeded of the command tool", string(o.ok.Result)+o.ok.Summary)
	o = callAcme(t, b, "leak.http", "c3")
	if !o.failedWith(events.ErrToolError, "answered HTTP 500", `invalid credentials "[redacted:Authorization]"`) {
		t.Fatalf("http: %v", o)
	}
	leaks("CallFailed of the http tool", o.err.Message)

	// Every byte the log keeps of the results, and the executor's log.
	results := all(t, b, "ts.result.acme.>")
	if len(results) < 3 {
		t.Fatalf("%d results in the log, want 3", len(results))
	}
	for _, ev := range results {
		leaks("the results stream", fmt.Sprintf("%+v", ev.Body))
	}
	waitFor(t, "the executor's log of the failed calls", func() bool { return strings.Count(logs.String(), `"msg":"call failed"`) >= 2 })
	leaks("the executor's log", logs.String())
}
