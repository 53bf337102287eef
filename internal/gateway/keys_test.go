package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/logtest"
)

// Keys that operators manage: what a key's policy refuses,
// through the real gateway with the official SDKs as the attackers'
// clients.

const (
	keyExpired     = "ts-key-expired"
	keyNarrow      = "ts-key-narrow" // weather-chat only
	keyTokenBudget = "ts-key-tokens" // 100 tokens a day
	keyUSD         = "ts-key-usd"    // 0.001 USD a day
	keyClaude      = "ts-key-claude" // 100 tokens a month, Anthropic's shape
	keyRPM         = "ts-key-rpm"    // 2 requests a minute
	keyTPM         = "ts-key-tpm"    // 500 tokens a minute
	keyVictim      = clientKey       // the same tenant's other key
)

// policyGateway is the test gateway with the keys above.
func policyGateway(t *testing.T) *testGateway {
	return startGateway(t, func(c *Config) {
		c.File.Keys = append(c.File.Keys,
			Key{SHA256: HashKey(keyExpired), Tenant: "acme", Policy: Policy{Name: "expired", Expires: time.Now().Add(-time.Hour)}},
			Key{SHA256: HashKey(keyNarrow), Tenant: "acme", Policy: Policy{Name: "narrow", Models: []string{"weather-chat"}}},
			Key{SHA256: HashKey(keyTokenBudget), Tenant: "acme", Policy: Policy{Name: "tokens", Budget: Budget{TokensPerDay: 100}}},
			Key{SHA256: HashKey(keyUSD), Tenant: "acme", Policy: Policy{Name: "usd", Budget: Budget{USDPerDay: 0.001}}},
			Key{SHA256: HashKey(keyClaude), Tenant: "acme", Policy: Policy{Name: "claude", Budget: Budget{TokensPerMonth: 100}}},
			Key{SHA256: HashKey(keyRPM), Tenant: "acme", Policy: Policy{Name: "rpm", RPM: 2}},
			Key{SHA256: HashKey(keyTPM), Tenant: "acme", Policy: Policy{Name: "tpm", TPM: 500}},
		)
		c.File.Prices = map[string]Price{"weather-*": {Input: 10, Output: 10, CachedInput: 5}}
	})
}

// TestAttackKeyPolicies: an expired key, a key asking for a model it may
// not use, and keys whose budgets (tokens, USD; a day, a month) are spent
// each get a typed error in the provider's shape from the official SDK,
// with its default retries on (a budget's answer says x-should-retry:
// false, so it asks once): the attacker's request never reaches the
// upstream, and the victim (another key of the tenant) is served all the
// while.
func TestAttackKeyPolicies(t *testing.T) {
	jstest.Dir(t)
	tg := policyGateway(t)
	chat := func(key, model string) map[string]any {
		return map[string]any{"api": "chat", "key": key, "model": model, "stream": true, "maxRetries": 2}
	}
	victim := chat(keyVictim, "weather-chat")
	calls := []map[string]any{
		chat(keyExpired, "weather-chat"), victim, // 0, 1
		chat(keyNarrow, "weather-responses"), chat(keyNarrow, "weather-chat"), victim, // 2, 3, 4
		chat(keyTokenBudget, "weather-chat"), chat(keyTokenBudget, "weather-chat"), victim, // 5 (uses 422 tokens), 6, 7
		chat(keyUSD, "weather-chat"), chat(keyUSD, "weather-chat"), victim, // 8 (costs 0.00282 USD), 9, 10
		{"api": "messages", "key": keyClaude, "model": "weather-messages", "stream": true, "maxRetries": 2}, // 11 (871 tokens)
		{"api": "messages", "key": keyClaude, "model": "weather-messages", "stream": true, "maxRetries": 2}, // 12
	}
	refusedBefore := map[string]float64{}
	for _, r := range []struct{ key, reason string }{{"expired", "expired"}, {"narrow", "model_not_allowed"}, {"tokens", "budget_tokens"}, {"usd", "budget_usd"}, {"claude", "budget_tokens"}} {
		refusedBefore[r.key] = value(keyRefused.WithLabelValues("acme", r.key, r.reason))
	}
	outputBefore := value(keyTokens.WithLabelValues("acme", "usd", "", "weather-chat", "output"))
	res := runCalls(t, tg, calls)
	served := map[int]bool{1: true, 3: true, 4: true, 5: true, 7: true, 8: true, 10: true, 11: true}
	for i, r := range res {
		if r.OK != served[i] {
			t.Errorf("call %d (%v): %+v", i, calls[i], r)
		}
	}
	expect := func(i, status int, name, typ, code string) {
		t.Helper()
		r := res[i]
		if r.Status != status || r.Name != name || r.Type != typ || r.Code != code {
			t.Errorf("call %d: %d %s type %q code %q, want %d %s %q %q (%s)", i, r.Status, r.Name, r.Type, r.Code, status, name, typ, code, r.Message)
		}
	}
	expect(0, 401, "AuthenticationError", "invalid_request_error", "invalid_api_key")
	expect(2, 403, "PermissionDeniedError", "invalid_request_error", "model_not_allowed")
	expect(6, 429, "RateLimitError", "insufficient_quota", "insufficient_quota")
	expect(9, 429, "RateLimitError", "insufficient_quota", "insufficient_quota")
	expect(12, 429, "RateLimitError", "rate_limit_error", "")
	for _, i := range []int{6, 9, 12} {
		if r := res[i]; r.RetryAfter == nil || *r.RetryAfter == "" || r.ShouldRetry == nil || *r.ShouldRetry != "false" {
			t.Errorf("call %d: a budget's refusal needs Retry-After and x-should-retry: false: %+v", i, r)
		}
	}
	// Nothing of the attacker's went upstream: the served calls alone did.
	if n := len(tg.fake.requestsSoFar()); n != len(served) {
		t.Errorf("the upstream got %d requests, want the %d served", n, len(served))
	}
	// Each refusal was asked once (the SDK did not retry) and counted.
	for key, reason := range map[string]string{"expired": "expired", "narrow": "model_not_allowed", "tokens": "budget_tokens", "usd": "budget_usd", "claude": "budget_tokens"} {
		if got := value(keyRefused.WithLabelValues("acme", key, reason)) - refusedBefore[key]; got != 1 {
			t.Errorf("key_refused_total{%s,%s} grew by %v, want 1", key, reason, got)
		}
	}
	// What was used is what the upstream reported, priced by the table.
	u := tg.Usage(HashKey(keyUSD))
	wantUSD := (float64(339-320)*10 + 320*5 + 83*10) / 1e6
	if u.DayTokens != 422 || math.Abs(u.DayUSD-wantUSD) > 1e-12 || u.Month == "" {
		t.Errorf("usd key used %+v, want 422 tokens and %v USD", u, wantUSD)
	}
	if u := tg.Usage(HashKey(keyClaude)); u.MonthTokens != 871 {
		t.Errorf("claude key used %+v, want 871 tokens", u)
	}
	if got := value(keyTokens.WithLabelValues("acme", "usd", "", "weather-chat", "output")) - outputBefore; got != 83 {
		t.Errorf("key_tokens_total{usd,output} %v, want 83", got)
	}
}

// TestAttackKeyRates: a key over its requests a minute, then one over its
// tokens a minute, get 429 in OpenAI's shape (type requests or tokens,
// code rate_limit_exceeded) with Retry-After and the rate limit headers;
// the upstream is not asked, and the victim is served.
func TestAttackKeyRates(t *testing.T) {
	tg := policyGateway(t)
	body := `{"model":"weather-chat","stream":true,"messages":[]}`
	post := func(key string) (int, string, map[string]string) {
		resp := tg.request(t, "POST", "/v1/chat/completions", body, bearer(key))
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		h := map[string]string{}
		for _, k := range []string{"Retry-After", "X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Limit-Tokens"} {
			h[k] = resp.Header.Get(k)
		}
		return resp.StatusCode, string(b), h
	}
	for i := range 2 {
		if st, b, _ := post(keyRPM); st != 200 {
			t.Fatalf("rpm request %d: %d %s", i, st, b)
		}
	}
	upstream := len(tg.fake.requestsSoFar())
	st, b, h := post(keyRPM)
	if st != 429 || !strings.Contains(b, `"type":"requests"`) || !strings.Contains(b, `"code":"rate_limit_exceeded"`) ||
		h["Retry-After"] == "" || h["X-Ratelimit-Limit-Requests"] != "2" || h["X-Ratelimit-Remaining-Requests"] != "0" {
		t.Fatalf("third request a minute: %d %s %v", st, b, h)
	}
	if st, _, _ := post(keyVictim); st != 200 {
		t.Fatalf("victim: %d", st)
	}
	// 422 tokens of 500: the next is admitted (the bucket is not empty)
	// and takes it below zero; the one after waits.
	for i := range 2 {
		if st, b, _ := post(keyTPM); st != 200 {
			t.Fatalf("tpm request %d: %d %s", i, st, b)
		}
		if got := tg.Usage(HashKey(keyTPM)).DayTokens; got != int64(422*(i+1)) {
			t.Fatalf("tpm request %d: %d tokens counted", i, got)
		}
	}
	st, b, h = post(keyTPM)
	if st != 429 || !strings.Contains(b, `"type":"tokens"`) || h["Retry-After"] == "" || h["X-Ratelimit-Limit-Tokens"] != "500" {
		t.Fatalf("over tpm: %d %s %v", st, b, h)
	}
	if n := len(tg.fake.requestsSoFar()) - upstream; n != 3 {
		t.Fatalf("the upstream got %d requests after the first refusal, want the victim's and tpm's 2 served: 3", n)
	}
}

// TestKeysReloadWithoutRestart: keys added to, and removed from, the keys
// file (or the config) are in force without a restart, on a change or a
// SIGHUP; a file that cannot be used is logged and the keys in force
// stay; what a key used survives a reload.
func TestKeysReloadWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	cfgPath, keysPath := filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "keys.yaml")
	tg := startGateway(t, nil)
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cfgPath, "upstreams:\n  - {name: openai, kind: openai, base_url: '"+tg.fake.srv.URL+"/v1', api_key: "+upOpenAIKey+"}\n"+
		"keys_file: keys.yaml\nkeys:\n  - {key_sha256: "+HashKey(clientKey)+", tenant: acme}\n")
	write(keysPath, "- {key_sha256: "+HashKey("ts-old")+", tenant: acme, name: old}\n")
	f, err := LoadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Reload(f); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hup := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { defer close(done); tg.Watch(ctx, cfgPath, f, 20*time.Millisecond, hup) }()
	t.Cleanup(func() { cancel(); <-done })
	status := func(key string) int { return keyStatus(t, tg, key) }
	if status("ts-old") != 200 || status("ts-new") != 401 {
		t.Fatal("before: old must be served and new refused")
	}
	if got := tg.Usage(HashKey("ts-old")).DayTokens; got != 422 {
		t.Fatalf("ts-old used %d tokens, want 422", got)
	}
	write(keysPath, "keys:\n  - {key_sha256: "+HashKey("ts-new")+", tenant: acme, name: new}\n")
	eventually(t, func() bool { return status("ts-new") == 200 }, "the new key was never accepted")
	if status("ts-old") != 401 {
		t.Fatal("the removed key is still accepted")
	}
	// Not usable: the keys in force stay.
	errorsBefore := value(reloads.WithLabelValues("error"))
	write(keysPath, "keys:\n  - {key_sha256: nothex, tenant: acme}\n")
	eventually(t, func() bool { return value(reloads.WithLabelValues("error")) > errorsBefore }, "the bad file was not read")
	if status("ts-new") != 200 {
		t.Fatal("a bad keys file took the keys in force away")
	}
	// SIGHUP reads the files again even when nothing seems changed.
	write(keysPath, "- {key_sha256: "+HashKey("ts-old")+", tenant: acme}\n")
	eventually(t, func() bool { return status("ts-old") == 200 }, "the old key did not come back")
	if got := tg.Usage(HashKey("ts-old")).DayTokens; got != 844 {
		t.Fatalf("ts-old used %d tokens after the reloads, want 844: what it used is kept", got)
	}
	okBefore := value(reloads.WithLabelValues("ok"))
	hup <- os.Interrupt
	eventually(t, func() bool { return value(reloads.WithLabelValues("ok")) > okBefore }, "SIGHUP did not reload")
}

// keyStatus is the status of a streamed Chat request with key.
func keyStatus(t *testing.T, tg *testGateway, key string) int {
	t.Helper()
	resp := tg.request(t, "POST", "/v1/chat/completions", `{"model":"weather-chat","stream":true,"messages":[]}`, bearer(key))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestWatchSeesAChangeMadeBeforeItStarts: Watch compares the files with
// what LoadFile read (the File it is given), not with what it finds when
// it starts, so a change written between serve's load and the watcher's
// start is taken: here the keys file and then the config change after
// LoadFile and before Watch is called. A File that LoadFile did not read
// gives no baseline: the files are read and put in force once.
func TestWatchSeesAChangeMadeBeforeItStarts(t *testing.T) {
	dir := t.TempDir()
	cfgPath, keysPath := filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "keys.yaml")
	tg := startGateway(t, nil)
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	upstreams := "upstreams:\n  - {name: openai, kind: openai, base_url: '" + tg.fake.srv.URL + "/v1', api_key: " + upOpenAIKey + "}\n"
	write(cfgPath, upstreams+"keys_file: keys.yaml\nkeys:\n  - {key_sha256: "+HashKey(clientKey)+", tenant: acme}\n")
	write(keysPath, "- {key_sha256: "+HashKey("ts-old")+", tenant: acme}\n")
	// watch starts a watcher; the returned func stops it, so that each
	// part below is seen by its own watcher alone.
	watch := func(f *File) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); tg.Watch(ctx, cfgPath, f, 20*time.Millisecond, nil) }()
		stop = func() { cancel(); <-done }
		t.Cleanup(stop)
		return stop
	}

	// The keys file changes after the load, before the watcher starts.
	f, err := LoadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Reload(f); err != nil {
		t.Fatal(err)
	}
	write(keysPath, "- {key_sha256: "+HashKey("ts-new")+", tenant: acme}\n")
	if keyStatus(t, tg, "ts-old") != 200 || keyStatus(t, tg, "ts-new") != 401 {
		t.Fatal("before the watcher: the loaded key must be served and the new one refused")
	}
	stop := watch(f)
	eventually(t, func() bool { return keyStatus(t, tg, "ts-new") == 200 }, "a keys file changed before Watch started was never taken")
	if keyStatus(t, tg, "ts-old") != 401 {
		t.Fatal("the key removed before Watch started is still accepted")
	}
	stop()

	// The config itself.
	write(cfgPath, upstreams+"keys:\n  - {key_sha256: "+HashKey("ts-cfg")+", tenant: acme}\n")
	g, err := LoadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Reload(g); err != nil {
		t.Fatal(err)
	}
	write(cfgPath, upstreams+"keys:\n  - {key_sha256: "+HashKey("ts-cfg2")+", tenant: acme}\n")
	stop = watch(g)
	eventually(t, func() bool { return keyStatus(t, tg, "ts-cfg2") == 200 }, "a config changed before Watch started was never taken")
	stop()

	// No baseline: the files as they are now are put in force.
	write(cfgPath, upstreams+"keys:\n  - {key_sha256: "+HashKey("ts-bare")+", tenant: acme}\n")
	okBefore := value(reloads.WithLabelValues("ok"))
	watch(&File{})
	eventually(t, func() bool { return keyStatus(t, tg, "ts-bare") == 200 }, "a watcher without a baseline never read the files")
	if value(reloads.WithLabelValues("ok")) <= okBefore {
		t.Fatal("no reload counted")
	}
}

// TestAttackChatStreamWithoutUsage: a key with a token budget streams
// Chat without asking for usage, as a client that wants to escape its
// budget would (an upstream then reports none). The gateway asks for it
// on the key's behalf: the tokens are counted, the next request is
// refused, and the upstream saw include_usage. A key without a token
// limit's request goes up unchanged.
func TestAttackChatStreamWithoutUsage(t *testing.T) {
	lines, err := fakeup.Lines(chatRecording)
	if err != nil {
		t.Fatal(err)
	}
	// The recording as an upstream sends it to a client that did not ask
	// for usage: the usage field of its last chunk gone.
	var bare []string
	for _, l := range lines {
		var v map[string]any
		json.Unmarshal(l, &v)
		delete(v, "usage")
		b, _ := json.Marshal(v)
		bare = append(bare, string(b))
	}
	noUsage := filepath.Join(t.TempDir(), "no-usage.jsonl")
	if err := os.WriteFile(noUsage, []byte(strings.Join(bare, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	up := fakeup.Start(t, func(_ int, _ string, body []byte) (fakeup.Answer, error) {
		var req struct {
			StreamOptions struct {
				IncludeUsage bool `json:"include_usage"`
			} `json:"stream_options"`
		}
		json.Unmarshal(body, &req)
		if req.StreamOptions.IncludeUsage {
			return fakeup.Answer{File: chatRecording}, nil
		}
		return fakeup.Answer{File: noUsage}, nil
	})
	tg := startGateway(t, func(c *Config) {
		c.File.Upstreams = []Upstream{{Name: "usage", Kind: KindOpenAI, BaseURL: up.URL + "/v1", APIKey: upOpenAIKey}}
		c.File.Keys = append(c.File.Keys, Key{SHA256: HashKey(keyTokenBudget), Tenant: "acme", Policy: Policy{Name: "sneaky", Budget: Budget{TokensPerDay: 100}}})
	})
	body := `{"model":"weather-chat","stream":true,"messages":[]}`
	post := func(key string) int {
		resp := tg.request(t, "POST", "/v1/chat/completions", body, bearer(key))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post(keyTokenBudget); st != 200 {
		t.Fatalf("first: %d", st)
	}
	if st := post(keyTokenBudget); st != 429 {
		t.Fatalf("after 422 tokens of a 100-token budget: %d, want 429", st)
	}
	if u := tg.Usage(HashKey(keyTokenBudget)); u.DayTokens != 422 {
		t.Fatalf("counted %d tokens, want 422", u.DayTokens)
	}
	if st := post(clientKey); st != 200 {
		t.Fatalf("victim: %d", st)
	}
	reqs := up.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"include_usage":true`) || strings.Contains(string(reqs[1].Body), "stream_options") {
		t.Fatalf("the upstream got %d requests: %s / %s", len(reqs), reqs[0].Body, reqs[len(reqs)-1].Body)
	}
}

// TestAttackEmbeddingsKeepTheKeysPolicy: /v1/embeddings is no way around
// a key's models: a key limited to weather-chat asking for an embedding
// model gets 403 in OpenAI's shape and nothing goes upstream.
func TestAttackEmbeddingsKeepTheKeysPolicy(t *testing.T) {
	tg := policyGateway(t)
	resp := tg.request(t, "POST", "/v1/embeddings", `{"model":"embed-test","input":"hi"}`, bearer(keyNarrow))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(b), `"code":"model_not_allowed"`) || len(tg.fake.requestsSoFar()) != 0 {
		t.Fatalf("%d %s; the upstream got %d requests", resp.StatusCode, b, len(tg.fake.requestsSoFar()))
	}
}

// TestModelsListWhatTheKeyMayUse: GET /v1/models lists, to a key limited
// to some models, only those (bare and with their upstream's prefix), and
// GET /v1/models/{id} of another is the provider's 404, as LiteLLM's
// model access does.
func TestModelsListWhatTheKeyMayUse(t *testing.T) {
	tg := startGateway(t, func(c *Config) {
		c.File.Upstreams[0].Models = []string{"weather-chat", "weather-responses"}
		c.File.Keys = append(c.File.Keys, Key{SHA256: HashKey(keyNarrow), Tenant: "acme", Policy: Policy{Models: []string{"weather-chat"}}})
	})
	list := func(key string) []string {
		resp := tg.request(t, "GET", "/v1/models", "", bearer(key))
		defer resp.Body.Close()
		var v struct{ Data []struct{ ID string } }
		json.NewDecoder(resp.Body).Decode(&v)
		var ids []string
		for _, m := range v.Data {
			ids = append(ids, m.ID)
		}
		return ids
	}
	if got := strings.Join(list(keyNarrow), ","); got != "weather-chat,openai/weather-chat" {
		t.Fatalf("the narrow key sees %s", got)
	}
	if got := len(list(clientKey)); got != 4 {
		t.Fatalf("an unlimited key sees %d models, want 4", got)
	}
	resp := tg.request(t, "GET", "/v1/models/weather-responses", "", bearer(keyNarrow))
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("a model the key may not use: %d", resp.StatusCode)
	}
}

// TestReloadSaysWhatWaitsForARestart: a reload put the keys in force and
// logged "reloaded" while an edited upstream stayed as serve started with
// it, silently. Now each reload that finds the upstreams, routing, limits
// or heartbeat changed names them in a warning; the keys still take effect
// at once, and a reload that changes only keys warns of nothing.
func TestReloadSaysWhatWaitsForARestart(t *testing.T) {
	var logs logtest.Buffer
	tg := startGateway(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	same := tg.cfg.File // as New read it (defaults filled in)
	keysOnly := same
	keysOnly.Keys = append(append([]Key(nil), same.Keys...), Key{SHA256: HashKey("ts-added"), Tenant: "acme"})
	// The same file as the defaults New filled in, written out: no change.
	zeroed := keysOnly
	zeroed.Limits, zeroed.Heartbeat = Limits{}, 0
	moved := keysOnly
	moved.Upstreams = append([]Upstream(nil), same.Upstreams...)
	moved.Upstreams[0].BaseURL = "http://127.0.0.1:1/v1"
	moved.Heartbeat = 3 * time.Second
	for _, tc := range []struct {
		name string
		f    File
		warn string // "": no warning
	}{
		{"keys only", keysOnly, ""},
		{"limits and heartbeat left to their defaults", zeroed, ""},
		{"an upstream moved and the heartbeat changed", moved, "upstreams, heartbeat changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(logs.Lines("read at start"))
			f := tc.f
			if err := tg.Reload(&f); err != nil {
				t.Fatal(err)
			}
			if keyStatus(t, tg, "ts-added") != 200 {
				t.Fatal("the added key is not in force")
			}
			lines := logs.Lines("read at start")[before:]
			switch {
			case tc.warn == "" && len(lines) > 0:
				t.Errorf("warned of a change that is none: %q", lines)
			case tc.warn != "" && (len(lines) != 1 || !strings.Contains(lines[0], tc.warn)):
				t.Errorf("warnings %q, want one saying %q", lines, tc.warn)
			}
		})
	}
	// The upstream in force is still the one New read: requests reach it.
	if keyStatus(t, tg, clientKey) != 200 {
		t.Fatal("the upstream in force changed on reload")
	}
}
