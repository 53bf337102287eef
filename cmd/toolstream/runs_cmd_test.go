package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logtest"
)

// TestRunsAndHistoryCommands drives `toolstream runs` and `toolstream
// history` against a real serve: a run of two responses
// published by `toolstream publish --run` — a round whose model says
// something, calls a command tool and reports its tokens, then the answer
// — is listed with its state, and its history is printed as each
// provider's messages, with the text before the call, the call and its
// result under the call's id. A budget compacts it; a run that does not
// exist, an unknown format and another tenant's runs are refused or empty.
// The commands are driven as a user runs them, so the test holds whatever
// client they use.
func TestRunsAndHistoryCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	admin := bustest.StartIn(t, filepath.Join(root, "log"))
	url := admin.ClientURL()
	tools := filepath.Join(root, "tools.yaml")
	if err := os.WriteFile(tools, []byte(`tools:
  - name: lookup
    input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
    command: ["/bin/sh", "-c", "echo '{\"temp_c\":4}'"]
    side_effect: none
grants:
  - tenant: acme
    permissions: [lookup]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sctx, stopServe := context.WithCancel(ctx)
	var serveErr bytes.Buffer
	serve := newRoot(&bytes.Buffer{}, &serveErr)
	serve.SetArgs([]string{"serve", "--nats-url", url, "--data", filepath.Join(root, "serve"), "--tools", tools, "--log-level", "warn",
		"--creds", bustest.Creds(t, admin, bustest.Admin)})
	done := make(chan error, 1)
	go func() { done <- serve.ExecuteContext(sctx) }()
	defer func() {
		stopServe()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, serveErr.String())
		}
	}()

	operator := bustest.Creds(t, admin, auth.Identity{Role: auth.RoleOperator})
	producer := bustest.Creds(t, admin, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	run := func(creds string, args ...string) (string, error) {
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", url, "--data", filepath.Join(root, "cli"), "--log-level", "error", "--creds", creds))
		err := c.ExecuteContext(ctx)
		if err != nil {
			err = errors.Join(err, errors.New(errOut.String()))
		}
		return out.String(), err
	}
	cli := func(creds string, args ...string) string {
		t.Helper()
		out, err := run(creds, args...)
		if err != nil {
			t.Fatalf("toolstream %s: %v\n%s\nserve: %s", strings.Join(args, " "), err, out, serveErr.String())
		}
		return out
	}
	publish := func(name string, lines ...string) {
		t.Helper()
		file := filepath.Join(root, name+".jsonl")
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cli(producer, "publish", "--tenant", "acme", "--run", "trip-7", "--provider", "openai-responses", file)
	}
	// row waits until `toolstream runs` lists trip-7 with status and
	// returns its row.
	row := func(status string) []string {
		t.Helper()
		var fields []string
		waitUntil(t, ctx, "trip-7 "+status, func() bool {
			out, err := run(producer, "runs", "--tenant", "acme")
			if err != nil {
				return false // serve's runs service may not answer yet
			}
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) > 2 && f[0] == "trip-7" {
					fields = f
					return f[1] == status
				}
			}
			return false
		})
		return fields
	}

	publish("r1",
		`{"type":"response.created","sequence_number":0,"response":{"id":"r1","status":"in_progress","output":[]}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Let me look that up."}`,
		`{"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[]}}`,
		`{"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_oslo","name":"lookup"}}`,
		`{"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_1","output_index":1,"delta":"{\"city\":\"Oslo\"}"}`,
		`{"type":"response.output_item.done","sequence_number":4,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"city\":\"Oslo\"}","call_id":"call_oslo","name":"lookup"}}`,
		`{"type":"response.completed","sequence_number":5,"response":{"id":"r1","status":"completed","output":[],"usage":{"input_tokens":40,"output_tokens":12}}}`)
	// RUN STATUS VERSION ROUNDS SETTLED CALLS FAILURES… TOKENS-IN TOKENS-OUT
	// FORMAT LAST: the tokens are the response's usage.
	if f := row("settled"); f[3] != "1" || f[4] != "1" || f[5] != "1" || f[7] != "40" || f[8] != "12" || f[9] != "openai-responses" {
		t.Fatalf("runs after round 1: %v", f)
	}

	var items []map[string]any
	if err := json.Unmarshal([]byte(cli(operator, "history", "--tenant", "acme", "--run", "trip-7")), &items); err != nil {
		t.Fatal(err)
	}
	// The run's own shape (Responses): the text, the call, its output.
	if len(items) != 3 || items[0]["content"] != "Let me look that up." || items[1]["call_id"] != "call_oslo" || items[1]["arguments"] != `{"city":"Oslo"}` ||
		items[2]["type"] != "function_call_output" || items[2]["call_id"] != "call_oslo" || items[2]["output"] != `{"temp_c":4}` {
		t.Fatalf("history (openai-responses): %v", items)
	}
	var anth []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
			Content   string `json:"content"`
		} `json:"content"`
	}
	out := cli(operator, "history", "--tenant", "acme", "--run", "trip-7", "--format", "anthropic")
	if err := json.Unmarshal([]byte(out), &anth); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(anth) != 2 || anth[0].Role != "assistant" || len(anth[0].Content) != 2 || anth[0].Content[0].Text != "Let me look that up." ||
		anth[0].Content[1].Type != "tool_use" || anth[0].Content[1].ID != "call_oslo" ||
		anth[1].Role != "user" || anth[1].Content[0].Type != "tool_result" || anth[1].Content[0].ToolUseID != "call_oslo" || anth[1].Content[0].Content != `{"temp_c":4}` {
		t.Fatalf("history (anthropic): %s", out)
	}

	// runs --follow lists the run, then again when the answer changes it.
	follow := &logtest.Buffer{}
	fctx, stopFollow := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() {
		c := newRoot(follow, &bytes.Buffer{})
		c.SetArgs([]string{"runs", "--follow", "--tenant", "acme", "--nats-url", url, "--data", filepath.Join(root, "cli"), "--log-level", "error", "--creds", producer})
		followed <- c.ExecuteContext(fctx)
	}()
	followShows := func(status string) {
		t.Helper()
		waitUntil(t, ctx, "runs --follow shows trip-7 "+status, func() bool {
			for _, l := range strings.Split(follow.String(), "\n") {
				if f := strings.Fields(l); len(f) > 2 && f[0] == "trip-7" && f[1] == status {
					return true
				}
			}
			return false
		})
	}
	followShows("settled")

	publish("r2",
		`{"type":"response.created","sequence_number":0,"response":{"id":"r2","status":"in_progress","output":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_2","output_index":0,"content_index":0,"delta":"It is 4°C in Oslo."}`,
		`{"type":"response.completed","sequence_number":2,"response":{"id":"r2","status":"completed","output":[]}}`)
	if f := row("answered"); f[3] != "2" || f[4] != "2" || f[5] != "1" || f[6] != "0" {
		t.Fatalf("runs after the answer: %v", f)
	}
	followShows("answered")
	stopFollow()
	if err := <-followed; err != nil {
		t.Fatalf("runs --follow: %v\n%s", err, follow.String())
	}
	// The tokens the provider reported for r1 (r2 reported none) are in
	// the run's state the runs service answers.
	c, err := client.Connect(ctx, client.WithURL(url), client.WithCredsFile(producer))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.Run(ctx, "acme", "trip-7"); err != nil || r.InputTokens != 40 || r.OutputTokens != 12 {
		t.Fatalf("run state: %+v, %v; want 40 input and 12 output tokens", r, err)
	}
	var chat []map[string]any
	if err := json.Unmarshal([]byte(cli(operator, "history", "--tenant", "acme", "--run", "trip-7", "--format", "openai-chat")), &chat); err != nil {
		t.Fatal(err)
	}
	if len(chat) != 3 || chat[0]["role"] != "assistant" || chat[1]["role"] != "tool" || chat[1]["tool_call_id"] != "call_oslo" || chat[2]["content"] != "It is 4°C in Oslo." {
		t.Fatalf("history (openai-chat): %v", chat)
	}
	// Within a budget of a few tokens, with nothing kept verbatim, the
	// round with the call becomes a note (still a JSON array).
	var short []map[string]any
	if err := json.Unmarshal([]byte(cli(operator, "history", "--tenant", "acme", "--run", "trip-7", "--format", "openai-chat", "--budget-tokens", "40", "--keep", "1")), &short); err != nil {
		t.Fatal(err)
	}
	if len(short) == 0 || len(short) >= len(chat) {
		t.Fatalf("history within 40 tokens: %v (whole: %d messages)", short, len(chat))
	}

	// Refused: a run that does not exist, a format that does not; another
	// tenant sees no run of acme's.
	if out, err := run(operator, "history", "--tenant", "acme", "--run", "nope"); err == nil {
		t.Fatalf("history of a run that does not exist: %s", out)
	}
	// A gateway user's run is kept as "<user>.<name>": history of the name
	// the client gave (and was told back in Toolstream-Run) is not found,
	// and says which --run to give.
	r3 := filepath.Join(root, "r3.jsonl")
	if err := os.WriteFile(r3, []byte(`{"type":"response.created","sequence_number":0,"response":{"id":"r3","status":"in_progress","output":[]}}
{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_3","output_index":0,"content_index":0,"delta":"Hello."}
{"type":"response.completed","sequence_number":2,"response":{"id":"r3","status":"completed","output":[]}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cli(producer, "publish", "--tenant", "acme", "--user", "ada", "--run", "ada.trip-8", r3)
	waitUntil(t, ctx, "runs lists ada.trip-8", func() bool {
		out, err := run(producer, "runs", "--tenant", "acme")
		return err == nil && strings.Contains(out, "ada.trip-8 ")
	})
	if out, err := run(operator, "history", "--tenant", "acme", "--run", "trip-8"); !errors.Is(err, client.ErrNotFound) || !strings.Contains(err.Error(), "--run ada.trip-8") {
		t.Fatalf("history of a gateway user's run by the client's name: %s, %v; want not found, naming --run ada.trip-8", out, err)
	}
	if _, err := run(operator, "history", "--tenant", "acme", "--run", "nope"); err == nil || strings.Contains(err.Error(), "gateway run") {
		t.Fatalf("history of a run nobody has: %v; want not found, naming no other run", err)
	}
	if out, err := run(operator, "history", "--tenant", "acme", "--run", "trip-7", "--format", "cohere"); err == nil || !strings.Contains(err.Error(), "format") {
		t.Fatalf("history in an unknown format: %s, %v", out, err)
	}
	if out := cli(operator, "runs", "--tenant", "globex"); strings.Contains(out, "trip-7") || !strings.HasPrefix(out, "RUN") {
		t.Fatalf("another tenant's runs: %q", out)
	}
}
