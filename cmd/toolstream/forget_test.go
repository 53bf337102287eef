package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
)

// answerStream is a Responses stream of one response that calls tool
// lookup with args, then (response 2) answers with text.
func answerStream(resp, args, text string) []byte {
	lines := []any{
		map[string]any{"type": "response.created", "sequence_number": 0, "response": map[string]any{"id": resp, "status": "in_progress", "output": []any{}}},
		map[string]any{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
			"item": map[string]any{"id": "fc_" + resp, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_" + resp, "name": "lookup"}},
		map[string]any{"type": "response.function_call_arguments.delta", "sequence_number": 2, "item_id": "fc_" + resp, "output_index": 0, "delta": args},
		map[string]any{"type": "response.output_item.done", "sequence_number": 3, "output_index": 0,
			"item": map[string]any{"id": "fc_" + resp, "type": "function_call", "status": "completed", "arguments": args, "call_id": "call_" + resp, "name": "lookup"}},
		map[string]any{"type": "response.completed", "sequence_number": 4, "response": map[string]any{"id": resp, "status": "completed", "output": []any{}}},
		map[string]any{"type": "response.created", "sequence_number": 5, "response": map[string]any{"id": resp + "_a", "status": "in_progress", "output": []any{}}},
		map[string]any{"type": "response.output_text.delta", "sequence_number": 6, "item_id": "msg_" + resp, "output_index": 0, "content_index": 0, "delta": text},
		map[string]any{"type": "response.completed", "sequence_number": 7, "response": map[string]any{"id": resp + "_a", "status": "completed", "output": []any{}}},
	}
	var buf bytes.Buffer
	for _, l := range lines {
		b, _ := json.Marshal(l)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// filesWith lists the files under dirs that hold s.
func filesWith(t *testing.T, s string, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(s)) {
				out = append(out, path)
			}
			return nil
		})
	}
	return out
}

// TestForgetErasesAUserFromEveryFile: a user's arguments, tool results,
// model text and verdicts, once `toolstream forget` returns, are in no
// file Toolstream keeps — the JetStream store (with a mirror of the log
// taken before the erasure), every view — and a replay until before the
// erasure cannot show them; another user of the tenant, and another
// tenant, keep theirs.
func TestForgetErasesAUserFromEveryFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f := startForgetServe(t, ctx)
	root, logDir, serveDir, cliDir, admin, url, serveErr := f.root, f.logDir, f.serveDir, f.cliDir, f.admin, f.url, f.serveErr

	cli := func(id auth.Identity, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", url, "--data", cliDir, "--log-level", "error", "--creds", bustest.Creds(t, admin, id)))
		if err := c.ExecuteContext(ctx); err != nil {
			t.Fatalf("toolstream %s: %v\n%s%s\nserve: %s", strings.Join(args, " "), err, out.String(), errOut.String(), serveErr.String())
		}
		return out.String()
	}
	const (
		annArgs, annText = "ann-arg-31a7c", "ann-said-9be40"
		bobArgs, bobText = "bob-arg-5d2f1", "bob-said-c07e2"
		gloArgs          = "globex-arg-88e1"
	)
	// acme's streams come raw (a third-party producer: ingest normalises
	// them), globex's normalised and sealed at the edge.
	for _, p := range []struct {
		tenant, user, resp, args, text string
		raw                            bool
	}{
		{"acme", "ann", "r_ann", annArgs, annText, true},
		{"acme", "bob", "r_bob", bobArgs, bobText, true},
		{"globex", "ann", "r_glo", gloArgs, "globex-text", false},
	} {
		file := filepath.Join(root, p.resp+".jsonl")
		if err := os.WriteFile(file, answerStream(p.resp, fmt.Sprintf(`{"q":%q}`, p.args), p.text), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"publish", "--provider", "openai-responses", "--tenant", p.tenant, "--user", p.user, "--stream", p.resp, file}
		if p.raw {
			args = append(args, "--raw")
		}
		cli(auth.Identity{Role: auth.RoleProducer, Tenant: p.tenant}, args...)
	}
	// Every call ran and every answer was verified.
	if _, err := bustest.WaitEvents(ctx, admin, []string{"ts.result.>", "ts.answer.>"}, func(evs []*events.Event) bool {
		var results, verdicts int
		for _, ev := range evs {
			switch ev.Kind {
			case events.KindCallSucceeded:
				results++
			case events.KindAnswerVerified:
				verdicts++
			}
		}
		return results == 3 && verdicts == 3
	}); err != nil {
		t.Fatalf("the pipeline did not finish: %v\nserve: %s", err, serveErr.String())
	}
	// A mirror of the outcomes, taken before the erasure (as a backup would).
	if _, err := admin.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "MIRROR_OUT", AllowDirect: true, Mirror: &jetstream.StreamSource{Name: events.StreamOut}}); err != nil {
		t.Fatal(err)
	}
	outLast, _ := admin.LastSeq(ctx, events.StreamOut)
	waitUntil(t, ctx, "the mirror", func() bool {
		s, err := admin.JS.Stream(ctx, "MIRROR_OUT")
		return err == nil && s.CachedInfo().State.LastSeq >= outLast
	})
	before := time.Now()

	out := cli(auth.Identity{Role: auth.RoleOperator}, "forget", "--tenant", "acme", "--user", "ann", "--json")
	var res struct {
		Keys         int               `json:"keys_destroyed"`
		Raw          int               `json:"raw_events_erased"`
		Tombstones   map[string]uint64 `json:"tombstones"`
		NotConfirmed []string          `json:"not_confirmed"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("forget printed %q: %v", out, err)
	}
	// (Raw counts the clear raw events forget deleted: ingest deletes each
	// once its sealed copy is stored, so there may be none left.)
	if res.Keys == 0 || len(res.Tombstones) != len(events.Streams) || len(res.NotConfirmed) > 0 {
		t.Fatalf("forget: %+v", res)
	}
	// Reading the log: ann's sealed events are erased, bob's still open.
	// (This reader's keys were cached before the erasure: forget them, as
	// a runner does at the tombstone, or as the cache's TTL would.)
	admin.Keys.(*keys.Store).Forget("acme", "ann")
	evs, err := admin.ReadEvents(ctx, []string{"ts.call.acme.>"})
	if err != nil {
		t.Fatal(err)
	}
	bobCalls := 0
	for _, ev := range evs {
		if ev.User == "ann" {
			t.Errorf("ann's %s still reads", ev.Kind)
		}
		if cc, ok := events.As[*events.CallCompleted](ev); ok && strings.Contains(string(cc.Arguments), bobArgs) {
			bobCalls++
		}
	}
	if bobCalls != 1 {
		t.Errorf("bob's call reads %d times, want once", bobCalls)
	}
	// The mirror holds ann's outcomes sealed: they do not open.
	mirrored := 0
	if err := admin.Read(ctx, logread.Config{Stream: "MIRROR_OUT", Filter: "ts.result.acme.>"}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			if ev, err := events.DecodeWith(m.Data, admin.Keys); err == nil && ev.User == "ann" {
				t.Errorf("ann's %s opens from the mirror taken before the erasure", ev.Kind)
			}
			mirrored++
		}
		return nil
	}); err != nil || mirrored == 0 {
		t.Fatalf("the mirror: %d results, %v", mirrored, err)
	}
	// A replay of the verifier until before the erasure shows no verdict of ann.
	dump := cli(auth.Identity{Role: auth.RoleOperator}, "replay", "--projection", "verifier", "--until", before.Format(time.RFC3339Nano), "--dump")
	if strings.Contains(dump, annText) || !strings.Contains(dump, bobText) {
		t.Errorf("replay --until before the erasure:\n%s", dump)
	}
	f.stop(t)
	admin.Close()
	for _, s := range []string{annArgs, annText} {
		if files := filesWith(t, s, logDir, serveDir, cliDir); len(files) > 0 { // everything Toolstream keeps
			t.Errorf("%s is still in %v", s, files)
		}
	}
	// Another user's call is still in the views, which hold it in the
	// clear: the scan would find erased text too.
	if len(filesWith(t, bobArgs, serveDir)) == 0 {
		t.Error("the scan finds no other user's call: it would prove nothing")
	}
	// Published raw, bob's events were sealed by ingest and the clear
	// messages deleted: the log holds no plaintext of his, though nothing
	// erased him.
	if files := filesWith(t, bobArgs, logDir); len(files) > 0 {
		t.Errorf("bob's raw arguments are in the clear in %v", files)
	}
	// Normalised and sealed at the edge, globex's stream left no plaintext
	// anywhere, though nothing erased it.
	if files := filesWith(t, gloArgs, logDir, serveDir, cliDir); len(files) > 0 {
		t.Errorf("globex's arguments, sealed at the edge, are in the clear in %v", files)
	}
}

// forgetServe is what the forget tests run against: a tool that answers
// with what it was asked (the arguments come back in the result), a log
// server with the real auth material in root/log, and serve (data in
// root/serve) granting the tool to acme and globex; the CLI's data is
// root/cli.
type forgetServe struct {
	root, logDir, serveDir, cliDir string
	admin                          *bus.Bus
	url                            string
	serveErr                       *bytes.Buffer // serve's log, for failures
	stopServe                      context.CancelFunc
	done                           chan error
}

// startForgetServe starts the tool, the log and serve under ctx; the test
// ends serve with stop (or, if it fails first, at cleanup).
func startForgetServe(t *testing.T, ctx context.Context) *forgetServe {
	t.Helper()
	tool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"asked":%s,"status":"found"}`, body)
	}))
	t.Cleanup(tool.Close)
	root := t.TempDir()
	f := &forgetServe{root: root, logDir: filepath.Join(root, "log"), serveDir: filepath.Join(root, "serve"),
		cliDir: filepath.Join(root, "cli"), serveErr: &bytes.Buffer{}, done: make(chan error, 1)}
	f.admin = bustest.StartIn(t, f.logDir)
	f.url = f.admin.ClientURL()
	tools := filepath.Join(root, "tools.yaml")
	if err := os.WriteFile(tools, []byte(fmt.Sprintf(`tools:
  - name: lookup
    side_effect: none
    http: {url: %q}
grants:
  - tenant: acme
    permissions: [lookup]
  - tenant: globex
    permissions: [lookup]
`, tool.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	sctx, stopServe := context.WithCancel(ctx)
	f.stopServe = stopServe
	t.Cleanup(stopServe)
	serve := newRoot(&bytes.Buffer{}, f.serveErr)
	serve.SetArgs([]string{"serve", "--nats-url", f.url, "--data", f.serveDir, "--tools", tools, "--log-level", "warn",
		"--creds", bustest.Creds(t, f.admin, bustest.Admin)})
	go func() { f.done <- serve.ExecuteContext(sctx) }()
	return f
}

// stop ends serve and fails the test if serve returned an error.
func (f *forgetServe) stop(t *testing.T) {
	t.Helper()
	f.stopServe()
	if err := <-f.done; err != nil {
		t.Fatalf("serve: %v\n%s", err, f.serveErr.String())
	}
}

func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not in time", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
