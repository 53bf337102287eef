package executor_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// A secret in a header is resolved at every call: rotating the file takes
// effect at once, and a missing one sends nothing.
func TestSecretsResolvedPerCall(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: api
    side_effect: none
    http: {url: %q, headers: {Authorization: "Bearer ${file:%s}"}}
grants:
  - tenant: acme
    permissions: [api]
`, srv.URL, tokenFile))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	for i, token := range []string{"one", "two", ""} {
		if token == "" {
			os.Remove(tokenFile)
		} else if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		o := callAcme(t, b, "api", fmt.Sprint("c", i))
		if token == "" {
			if !o.failedWith(events.ErrUnavailable, "${file:"+tokenFile+"}") {
				t.Fatalf("missing token: %v", o)
			}
		} else if o.ok == nil {
			t.Fatalf("token %s: %v", token, o)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(auths, []string{"Bearer one", "Bearer two"}) {
		t.Fatalf("the server saw %q", auths)
	}
}

// An http tool sends nothing where a redirect points, unless the contract
// allows the same origin, and then only there.
func TestAttackRedirect(t *testing.T) {
	t.Setenv("TS_TEST_TOKEN", "tok")
	var stolen atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		fmt.Fprint(w, `{"stolen":true}`)
	}))
	defer evil.Close()
	var finalAuth atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+"/steal", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		finalAuth.Store(r.Header.Get("Authorization"))
		fmt.Fprint(w, `{"final":true}`)
	})
	api := httptest.NewServer(mux)
	defer api.Close()
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: away
    side_effect: none
    http: {url: "%[1]s/away", headers: {Authorization: "Bearer ${env:TS_TEST_TOKEN}"}}
  - name: away.same_origin
    side_effect: none
    http: {url: "%[1]s/away", follow_redirects: same_origin, headers: {Authorization: "Bearer ${env:TS_TEST_TOKEN}"}}
  - name: same
    side_effect: none
    http: {url: "%[1]s/same"}
  - name: same.same_origin
    side_effect: none
    http: {url: "%[1]s/same", follow_redirects: same_origin, headers: {Authorization: "Bearer ${env:TS_TEST_TOKEN}"}}
grants:
  - tenant: acme
    permissions: ["*"]
`, api.URL))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	for i, c := range []struct{ tool, want string }{
		{"away", "not followed"}, {"away.same_origin", "not followed"}, {"same", "not followed"}, {"same.same_origin", ""},
	} {
		o := callAcme(t, b, c.tool, fmt.Sprint("c", i))
		if c.want == "" {
			if o.ok == nil || string(o.ok.Result) != `{"final":true}` || finalAuth.Load() != "Bearer tok" {
				t.Fatalf("%s: %v (auth %v)", c.tool, o, finalAuth.Load())
			}
		} else if !o.failedWith(events.ErrToolError, c.want) {
			t.Fatalf("%s: %v, want a tool_error saying %q", c.tool, o, c.want)
		}
	}
	if n := stolen.Load(); n != 0 {
		t.Fatalf("the redirect target received %d requests", n)
	}
}

// An http tool's answer is capped while it is read: a body that never ends
// fails the call at the cap, and the connection is dropped.
func TestAttackResponseFlood(t *testing.T) {
	dropped := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer once.Do(func() { close(dropped) })
		chunk := []byte(strings.Repeat("[", 32<<10))
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: endless
    side_effect: none
    http: {url: %q}
grants:
  - tenant: acme
    permissions: [endless]
`, srv.URL))
	b := bustest.Start(t)
	const limit = 1 << 20
	startExec(t, b, reg, nil, func(c *executor.Config) { c.ResultBytesMax = limit })
	o := callAcme(t, b, "endless", "c1")
	if !o.failedWith(events.ErrToolError, fmt.Sprintf("exceeds %d bytes", limit)) {
		t.Fatalf("endless: %v", o)
	}
	select {
	case <-dropped:
	case <-time.After(waitMax):
		t.Fatal("the executor kept reading an endless answer")
	}
}
