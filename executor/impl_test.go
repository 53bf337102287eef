package executor_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

func TestHTTPTool(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{} // Idempotency-Key → requests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		seen[key]++
		mu.Unlock()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || key == "" ||
			r.Header.Get("X-Api") != "v1" || !strings.HasPrefix(key, r.Header.Get("Toolstream-Tenant")+"/") {
			http.Error(w, "bad request shape", http.StatusTeapot)
			return
		}
		var args struct {
			OrderID string `json:"order_id"`
		}
		json.Unmarshal(body, &args)
		switch args.OrderID {
		case "refunded":
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"error":{"type":"business_rejected","message":"order already refunded; pick another order"}}`)
		case "busy":
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, "overloaded")
		case "crash":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "stack trace")
		default:
			fmt.Fprintf(w, `{"refunded":%q,"key":%q}`, args.OrderID, key)
		}
	}))
	defer srv.Close()
	b := bustest.Start(t)
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: refund
    idempotency: required
    input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    http: {url: %q, headers: {X-Api: v1}}
  - name: down
    side_effect: none
    http: {url: "http://127.0.0.1:1/nothing"}
grants:
  - tenant: acme
    permissions: [refund, down]
`, srv.URL))
	startExec(t, b, reg, nil, nil)
	cases := []struct {
		tool, order string
		want        events.ErrorType
		message     string
	}{
		{"refund", "o1", "", ""},
		{"refund", "refunded", events.ErrBusinessRejected, "pick another order"},
		{"refund", "busy", events.ErrUnavailable, "HTTP 503: overloaded"},
		{"refund", "crash", events.ErrToolError, "HTTP 500: stack trace"},
		{"down", "x", events.ErrUnavailable, "cannot reach"},
	}
	for i, c := range cases {
		key := publishCall(t, b, callSpec{tenant: "acme", tool: c.tool, call: fmt.Sprint("h", i), args: fmt.Sprintf(`{"order_id":%q}`, c.order)})
		o := waitOutcome(t, b, "acme", key)
		if c.want == "" {
			if o.ok == nil || string(o.ok.Result) != fmt.Sprintf(`{"refunded":"o1","key":%q}`, key) {
				t.Fatalf("%s: %v", c.order, o)
			}
		} else if o.err == nil || o.err.Error != c.want || !strings.Contains(o.err.Message, c.message) {
			t.Fatalf("%s: %v, want %s %q", c.order, o, c.want, c.message)
		}
		mu.Lock()
		n := seen[key]
		mu.Unlock()
		if c.tool == "refund" && n != 1 {
			t.Fatalf("%s: %d requests with its key", c.order, n)
		}
	}
}

// The command tool is this test binary in tool mode (see TestMain).
func TestCommandTool(t *testing.T) {
	b := bustest.Start(t)
	dir := t.TempDir()
	effects := filepath.Join(dir, "effects")
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: cmd.echo
    idempotency: required
    command: [%q, "tstool", "echo", %q]
  - name: cmd.fail
    side_effect: none
    command: [%q, "tstool", "fail", %q]
  - name: cmd.typed
    side_effect: none
    command: [%q, "tstool", "typed", %q]
  - name: cmd.missing
    side_effect: none
    command: [%q]
grants:
  - tenant: acme
    permissions: [cmd.echo, cmd.fail, cmd.typed, cmd.missing]
`, os.Args[0], effects, os.Args[0], effects, os.Args[0], effects, filepath.Join(dir, "no-such-program")))
	startExec(t, b, reg, nil, nil)
	echo := publishCall(t, b, callSpec{tenant: "acme", tool: "cmd.echo", call: "c1", args: `{"q":"hello"}`})
	o := waitOutcome(t, b, "acme", echo)
	want := fmt.Sprintf(`{"args":{"q":"hello"},"key":%q}`, echo)
	if o.ok == nil || string(o.ok.Result) != want {
		t.Fatalf("echo: %v, want %s", o, want)
	}
	fail := publishCall(t, b, callSpec{tenant: "acme", tool: "cmd.fail", call: "c2"})
	if o := waitOutcome(t, b, "acme", fail); o.err == nil || o.err.Error != events.ErrToolError ||
		!strings.Contains(o.err.Message, "exited with status 3") || !strings.Contains(o.err.Message, "the disk is full") {
		t.Fatalf("fail: %v", o)
	}
	typed := publishCall(t, b, callSpec{tenant: "acme", tool: "cmd.typed", call: "c3"})
	if o := waitOutcome(t, b, "acme", typed); o.err == nil || o.err.Error != events.ErrBusinessRejected || o.err.Message != "no such customer" {
		t.Fatalf("typed: %v", o)
	}
	missing := publishCall(t, b, callSpec{tenant: "acme", tool: "cmd.missing", call: "c4"})
	if o := waitOutcome(t, b, "acme", missing); o.err == nil || o.err.Error != events.ErrUnavailable {
		t.Fatalf("missing: %v", o)
	}
	lines := readLines(t, effects)
	if len(lines) != 3 || lines[0] != echo {
		t.Fatalf("effects %v", lines)
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}
