package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/memory"
)

// consoleTools: a refund that waits for a person and a stock lookup, both
// answered by cat (the result is the arguments).
const consoleTools = `tools:
  - name: inventory.get
    version: 1
    input_schema: {type: object, properties: {sku: {type: string}}, required: [sku]}
    timeout: 5s
    idempotency: none
    permission: inventory.read
    side_effect: none
    command: [/bin/sh, -c, "cat >/dev/null; echo '{\"sku\":\"A1\",\"available\":12}'"]
  - name: orders.refund
    version: 1
    input_schema: {type: object, properties: {order_id: {type: string}, amount: {type: number}}, required: [order_id, amount]}
    timeout: 5s
    idempotency: required
    permission: orders.refund
    side_effect: irreversible
    approval: required
    command: [/bin/cat]
grants:
  - tenant: shop
    permissions: [inventory.read, orders.refund]
`

// TestConsoleInABrowser drives the console of `serve --console` in headless
// chromium (internal/console/testdata/browser.mjs): the sign-in page without a
// session, sign-in with the URL console-token prints, a call appearing
// live, a waiting refund approved by keyboard and seen to run, its trace,
// an answer's claims, a user's memory and its forgetting, the health page;
// nothing overflows at 1280, 1024 and 800 px with long ids and Chinese
// text. Screenshots of each page go to $TOOLSTREAM_SCREENSHOTS (else a
// temporary directory, named in the log). Afterwards the log holds the
// decision the button made and the refund's result, and the memory view no
// longer has the forgotten record.
func TestConsoleInABrowser(t *testing.T) {
	chromium := jstest.Chromium(t)
	jsdir := jstest.Dir(t)
	script, err := os.ReadFile(filepath.Join("..", "..", "internal", "console", "testdata", "browser.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("TOOLSTREAM_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if shots, err = filepath.Abs(shots); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	admin := bustest.Start(t)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(tools, []byte(consoleTools), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sctx, stopServe := context.WithCancel(ctx)
	defer stopServe()
	var serveErr bytes.Buffer
	data := filepath.Join(dir, "serve")
	root := newRoot(&bytes.Buffer{}, &serveErr)
	root.SetArgs([]string{"serve", "--nats-url", admin.ClientURL(), "--creds", bustest.Creds(t, admin, bustest.Admin), "--data", data,
		"--console", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--tools", tools, "--log-level", "warn"})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(sctx) }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case err := <-done:
				t.Fatalf("serve stopped while waiting for %s: %v\n%s", what, err, serveErr.String())
			case <-ctx.Done():
				t.Fatalf("%s: not in time\n%s", what, serveErr.String())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	waitFor("the console's address", func() bool { _, err := os.Stat(filepath.Join(data, consoleURLFile)); return err == nil })
	base, err := os.ReadFile(filepath.Join(data, consoleURLFile))
	if err != nil {
		t.Fatal(err)
	}
	// --metrics at the console's address: one listener carries both, the
	// metrics without a session as before, the console's API not.
	for path, want := range map[string]int{"/metrics": http.StatusOK, "/api/calls": http.StatusUnauthorized} {
		res, err := http.Get(strings.TrimSpace(string(base)) + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s: %s, want %d", path, res.Status, want)
		}
	}

	// A user's memory: a preference, then its correction (two versions).
	ask := func(verb string, op memory.Op) memory.WriteReply {
		t.Helper()
		req, _ := json.Marshal(op)
		var msg *nats.Msg
		waitFor("the memory service", func() bool {
			msg, err = admin.Conn.RequestWithContext(ctx, memory.ServicePrefix+"."+verb, req)
			return !errors.Is(err, nats.ErrNoResponders)
		})
		if err != nil {
			t.Fatal(err)
		}
		var rep memory.WriteReply
		if err := json.Unmarshal(msg.Data, &rep); err != nil || !rep.Applied {
			t.Fatalf("memory %s: %s (%v)", verb, msg.Data, err)
		}
		return rep
	}
	pref := memory.Op{Tenant: "shop", User: "u1", ID: "tea", Kind: "preference", Subject: "drink", Attribute: "tea", Value: "oolong", Text: "我喜欢喝乌龙茶，不加糖"}
	ask("observe", pref)
	pref.Value, pref.Text, pref.ExpectedVersion = "puer", "现在更喜欢普洱茶，还是不加糖", 1
	ask("correct", pref)
	ask("observe", memory.Op{Tenant: "shop", User: "u1", ID: "address-" + strings.Repeat("0123456789", 8), Kind: "fact", Subject: "address", Attribute: "city",
		Value: "上海", Text: "收货地址：上海市浦东新区世纪大道一千号国际金融中心大厦第八十八层东侧办公区"})

	token := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		tok := newRoot(&out, &errOut)
		tok.SetArgs(append([]string{"console-token", "--data", data}, args...))
		if err := tok.ExecuteContext(ctx); err != nil {
			t.Fatalf("console-token %v: %v\n%s", args, err, errOut.String())
		}
		return strings.TrimSpace(out.String())
	}
	signin, viewer := token(), token("--tenant", "shop")

	// The streams the page sees arrive: a refund with a long call id and
	// Chinese arguments (waits for approval), a stock lookup, an answer.
	longCall := "call_" + strings.Repeat("9f8e7d6c5b4a", 7)
	refund, err := os.ReadFile(filepath.Join("..", "..", "internal", "demo", "testdata", "3-responses-refund.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	refund = bytes.ReplaceAll(refund, []byte("call_demo_refund"), []byte(longCall))
	refund = bytes.ReplaceAll(refund, []byte("O-7"), []byte("订单-2026-十二月-第0001号-加急处理"))
	resultOf := func(tool string) bool {
		found := false
		err := admin.ReadAcross(ctx, logread.Config{Subjects: []string{events.AllResults}}, false, func(_ string, batch []*logread.Msg) error {
			for _, m := range batch {
				if ev, err := events.DecodeAtWith(m.Subject, m.Data, admin.Keys); err == nil {
					if r, ok := events.As[*events.CallSucceeded](ev); ok && r.Name == tool {
						found = true
					}
				}
			}
			return nil
		})
		return err == nil && found
	}
	// publish publishes the streams; once the first is in the log it
	// calls published (the page then times the call's arrival).
	publish := func(published func()) {
		p, err := client.Connect(ctx, client.WithConn(admin.Conn), client.WithKeys(admin.Keys))
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range []struct {
			name string
			data []byte
		}{{"refund", refund}, {"1-anthropic-inventory.jsonl", nil}, {"5-anthropic-final-answer.jsonl", nil}} {
			if s.name == "5-anthropic-final-answer.jsonl" {
				waitFor("the stock lookup's result, the answer's evidence", func() bool { return resultOf("inventory.get") })
			}
			in := s.data
			if in == nil {
				if in, err = os.ReadFile(filepath.Join("..", "..", "internal", "demo", "testdata", s.name)); err != nil {
					t.Fatal(err)
				}
				in = bytes.ReplaceAll(in, []byte("商品 A 可用"), []byte("商品 A1 可用")) // a claim the lookup supports
			}
			if _, err := p.Publish(ctx, bytes.NewReader(in), client.WithStream(client.Stream{Tenant: "shop", ID: s.name, User: "u1", Session: "s1"})); err != nil {
				t.Fatalf("publish %s: %v", s.name, err)
			}
			if i == 0 {
				published()
			}
		}
		// Another tenant's call (rejected: acme is granted nothing), which
		// shop's viewer must never see.
		in, err := os.ReadFile(filepath.Join("..", "..", "internal", "demo", "testdata", "1-anthropic-inventory.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Publish(ctx, bytes.NewReader(in), client.WithStream(client.Stream{Tenant: "acme", ID: "acme-inventory", User: "u9"})); err != nil {
			t.Fatal(err)
		}
	}

	node := exec.CommandContext(ctx, "node", "--input-type=module", "-e", string(script))
	node.Dir = jsdir
	node.Env = append(os.Environ(), "URL="+signin, "VIEWER_URL="+viewer, "CHROMIUM="+chromium, "SHOTS="+shots, "LONG_CALL="+longCall)
	stdin, err := node.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := node.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var nodeErr bytes.Buffer
	node.Stderr = &nodeErr
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	var steps []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m, ok := strings.CutPrefix(lines.Text(), "MEASURE "); ok {
			t.Log(m)
		}
		step, ok := strings.CutPrefix(lines.Text(), "STEP ")
		if !ok {
			continue
		}
		steps = append(steps, step)
		if step == "calls-ready" {
			publish(func() { stdin.Write([]byte("go\n")) })
		}
	}
	if err := node.Wait(); err != nil || !strings.Contains(strings.Join(steps, " "), "done") {
		t.Fatalf("the browser script: %v after steps %v\n%s\nserve:\n%s", err, steps, nodeErr.String(), serveErr.String())
	}
	t.Logf("screenshots in %s", shots)

	// The button's decision and the refund's result are in the log.
	var granted, succeeded bool
	err = admin.ReadAcross(ctx, logread.Config{Subjects: []string{events.AllApprovals, events.AllResults}}, false, func(_ string, batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.DecodeAtWith(m.Subject, m.Data, admin.Keys)
			if err != nil {
				return err
			}
			if g, ok := events.As[*events.ApprovalGranted](ev); ok && ev.CallID == longCall && g.By == "console:operator" && strings.Contains(g.Reason, "客户已确认") {
				granted = true
			}
			if r, ok := events.As[*events.CallSucceeded](ev); ok && r.Name == "orders.refund" && strings.Contains(r.Key, longCall) {
				succeeded = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !granted || !succeeded {
		t.Errorf("in the log: the console's approval %v, the refund's result %v", granted, succeeded)
	}
	// The forgotten record is gone from the view.
	req, _ := json.Marshal(memory.Op{Tenant: "shop", User: "u1", History: true})
	msg, err := admin.Conn.RequestWithContext(ctx, memory.ServicePrefix+".list", req)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(msg.Data, []byte(`"tea"`)) || !bytes.Contains(msg.Data, []byte("address-")) {
		t.Errorf("the memory view after the forget: %s", msg.Data)
	}
	stopServe()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, serveErr.String())
	}
}
