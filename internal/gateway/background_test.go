package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/jstest"
)

const runKeyOther = "sk-run-other-tenant" // a key of another tenant

// bgResult is what sdk-run.mjs's responses-background* clients print.
type bgResult struct {
	ID         string
	Created    string
	Background bool
	Status     string
	Cancelled  string
	Text       string
	Meta       *gateway.RunMeta
	Usage      *struct{ Input, Output int64 }
	Polls      int
	Resumed    []string
	Errors     []struct {
		Status        int
		Name, Message string
		Type          *string
	}
}

func (rg *runGateway) sdkBackground(t *testing.T, client, key, question string, env ...string) bgResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "run", "sdk-run.mjs"))
	out := jstest.Node(ctx, t, append([]string{"GATEWAY_URL=" + rg.srv.URL, "GATEWAY_KEY=" + key, "RUN=", "QUESTION=" + question}, env...), script, client)
	var r bgResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v: %s", client, err, out)
	}
	return r
}

// bgObject polls GET /v1/responses/{id} with key over raw HTTP.
func (rg *runGateway) bgObject(t *testing.T, key, id string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, rg.srv.URL+"/v1/responses/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var obj map[string]any
	json.NewDecoder(resp.Body).Decode(&obj)
	return resp.StatusCode, obj
}

// OpenAI background mode with the official openai SDK: a background
// response answers at once (queued), is polled until completed with the
// model's answer and the run's usage, and its events are resumed after a
// sequence number; one whose model never answers is cancelled (the run's
// context ends, the drive returns); and a key of another tenant (or
// another user of the tenant) that polls or cancels someone's background
// response while it is under way gets OpenAI's 404 NotFoundError, and the
// victim's response goes on to its answer, not cancelled.
func TestBackgroundResponsesWithTheOpenAISDK(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGatewayWith(t, func(f *gateway.File) {
		f.Keys = append(f.Keys, gateway.Key{SHA256: gateway.HashKey(runKeyOther), Tenant: "other-tenant"})
	})

	r := rg.sdkBackground(t, "responses-background", runKey, "weather in San Francisco?")
	if r.Created != "queued" || !r.Background || r.Status != "completed" || r.Text != answers["openai-responses-text-only.jsonl"] ||
		r.Usage == nil || *r.Usage != (struct{ Input, Output int64 }{56, 35}) || !strings.HasPrefix(r.ID, "resp_ts_bg_") {
		t.Errorf("background: %+v", r)
	}
	if r.Meta == nil || r.Meta.Status != "answered" || r.Meta.Run == "" {
		t.Errorf("background meta: %+v", r.Meta)
	}
	if len(r.Resumed) == 0 || !strings.HasPrefix(r.Resumed[0], "3:") || !strings.HasSuffix(r.Resumed[len(r.Resumed)-1], ":response.completed") {
		t.Errorf("resumed after 2: %v", r.Resumed)
	}

	c := rg.sdkBackground(t, "responses-background-cancel", runKey, "hang please")
	if c.Created != "queued" || c.Cancelled != "cancelled" || c.Status != "cancelled" {
		t.Errorf("cancel: %+v", c)
	}

	// The attack: the victim's response is held mid-answer by the model.
	const q = "weather in Oslo, held"
	hold := make(chan struct{})
	rg.hold[q] = hold
	body, _ := json.Marshal(map[string]any{"model": "fake-1", "input": q, "background": true})
	req, _ := http.NewRequest(http.MethodPost, rg.srv.URL+"/v1/responses", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+runKey)
	req.Header.Set(gateway.HeaderMode, "run")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created map[string]any
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	id, _ := created["id"].(string)
	if resp.StatusCode != http.StatusOK || created["status"] != "queued" || id == "" {
		t.Fatalf("create: %d %v", resp.StatusCode, created)
	}
	for _, key := range []string{runKeyOther, runKeyBob} {
		a := rg.sdkBackground(t, "responses-background-other", runKey, "", "OTHER_KEY="+key, "BG_ID="+id)
		if len(a.Errors) != 2 {
			t.Fatalf("%s: %+v", key, a)
		}
		for i, e := range a.Errors {
			if e.Status != http.StatusNotFound || e.Name != "NotFoundError" || e.Type == nil || *e.Type != "invalid_request_error" {
				t.Errorf("%s: attempt %d (retrieve, cancel): %+v, want OpenAI's 404", key, i, e)
			}
		}
	}
	if st, obj := rg.bgObject(t, runKey, id); st != http.StatusOK || obj["status"] != "in_progress" {
		t.Fatalf("victim's response after the attempts: %d %v", st, obj["status"])
	}
	close(hold)
	deadline := time.Now().Add(time.Minute)
	for {
		st, obj := rg.bgObject(t, runKey, id)
		if st == http.StatusOK && obj["status"] == "completed" {
			out, _ := json.Marshal(obj["output"])
			if !strings.Contains(string(out), answers["openai-responses-text-only.jsonl"]) {
				t.Errorf("victim's output: %s", out)
			}
			break
		}
		if st != http.StatusOK || obj["status"] != "in_progress" || time.Now().After(deadline) {
			t.Fatalf("victim's response: %d %v", st, obj)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A response id nobody has: 404 in OpenAI's shape, not a 400.
	if st, obj := rg.bgObject(t, runKey, "resp_nobody"); st != http.StatusNotFound || obj["error"] == nil {
		t.Errorf("unknown id: %d %v", st, obj)
	}
}
