package gateway

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseFile(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-1", "HOST": "api.example.com"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	hash := HashKey("test")
	good := `
upstreams:
  - name: openai
    kind: openai
    base_url: https://${env:HOST}/v1
    api_key: ${env:OPENAI_API_KEY}
  - name: claude
    kind: anthropic
    base_url: https://api.anthropic.com/v1
    api_key: literal
keys:
  - key_sha256: ` + hash + `
    tenant: acme
    user: ann
heartbeat: 2s
`
	f, err := ParseFile([]byte(good), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if f.Upstreams[0].BaseURL != "https://api.example.com/v1" || f.Upstreams[0].APIKey != "sk-1" || f.Upstreams[1].APIKey != "literal" ||
		f.Keys[0].SHA256 != hash || f.Keys[0].Tenant != "acme" || f.Keys[0].User != "ann" || f.Heartbeat != 2*time.Second {
		t.Fatalf("%+v", f)
	}
	if hash != "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" {
		t.Fatalf("HashKey(test) = %s, not sha256", hash)
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"unset variable", "upstreams: [{name: o, kind: openai, base_url: 'https://x/v1', api_key: '${env:NOPE}'}]", "NOPE is not set"},
		{"unknown kind", "upstreams: [{name: o, kind: gemini, base_url: 'https://x/v1'}]", "kind"},
		{"no name", "upstreams: [{kind: openai, base_url: 'https://x/v1'}]", "name"},
		{"slash in name", "upstreams: [{name: a/b, kind: openai, base_url: 'https://x/v1'}]", "name"},
		{"two names", "upstreams: [{name: o, kind: openai, base_url: 'https://x/v1'}, {name: o, kind: openai, base_url: 'https://y/v1'}]", "two upstreams"},
		{"not a URL", "upstreams: [{name: o, kind: openai, base_url: 'x/v1'}]", "base_url"},
		{"bad hash", "keys: [{key_sha256: abc, tenant: acme}]", "64 hex"},
		{"no tenant", "keys: [{key_sha256: " + hash + "}]", "tenant"},
		{"system tenant", "keys: [{key_sha256: " + hash + ", tenant: _system}]", "tenant"},
		{"unknown field", "upstream: []", "not found"},
		{"not yaml", "upstreams: [", "yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFile([]byte(c.yaml), lookup)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrConfig saying %q", err, c.want)
			}
		})
	}
}

// run: is read with its defaults when absent, as written when set, and a
// value out of range or of the wrong type is refused at load with
// ErrConfig naming it.
func TestParseRunConfig(t *testing.T) {
	f, err := ParseFile([]byte("heartbeat: 1s\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := f.Run; !r.PlansOn() || !r.DelegateOn() || r.ReplansMax != 0 || r.DelegateDepthMax != 0 {
		t.Fatalf("defaults: %+v", r)
	}
	f, err = ParseFile([]byte("run: {plans: false, delegate: false, replans_max: 5, delegate_depth_max: 2}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := f.Run; r.PlansOn() || r.DelegateOn() || r.ReplansMax != 5 || r.DelegateDepthMax != 2 {
		t.Fatalf("set: %+v", r)
	}
	if f, err = ParseFile([]byte("run: {plans: true}\n"), nil); err != nil || !f.Run.PlansOn() || !f.Run.DelegateOn() {
		t.Fatalf("plans: true: %+v %v", f, err)
	}
	f, err = ParseFile([]byte("keys: [{key_sha256: "+HashKey("a")+", tenant: acme, plans: false, delegate: false}, {key_sha256: "+HashKey("b")+", tenant: acme}]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := f.Keys[0]; k.Plans == nil || *k.Plans || k.Delegate == nil || *k.Delegate || f.Keys[1].Plans != nil || f.Keys[1].Delegate != nil {
		t.Fatalf("keys' plans and delegate: %+v", f.Keys)
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"negative replans", "run: {replans_max: -1}", "replans_max -1"},
		{"too many replans", "run: {replans_max: 21}", "replans_max 21"},
		{"negative depth", "run: {delegate_depth_max: -1}", "delegate_depth_max -1"},
		{"too deep", "run: {delegate_depth_max: 5}", "delegate_depth_max 5"},
		{"plans not a bool", "run: {plans: maybe}", "maybe"},
		{"replans not a number", "run: {replans_max: many}", "many"},
		{"unknown setting", "run: {plan: false}", "not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFile([]byte(c.yaml), nil)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrConfig saying %q", err, c.want)
			}
		})
	}
}

// memory: a negative recall budget is refused at load with ErrConfig
// naming it (it was taken as the default 300 without a word); 0 is the
// default, a positive one is kept.
func TestParseMemoryConfig(t *testing.T) {
	f, err := ParseFile([]byte("memory: {off: true, recall_budget_tokens: 120}\n"), nil)
	if err != nil || !f.Memory.Off || f.Memory.RecallBudgetTokens != 120 {
		t.Fatalf("set: %+v %v", f, err)
	}
	_, err = ParseFile([]byte("memory: {recall_budget_tokens: -5}\n"), nil)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "recall_budget_tokens -5") {
		t.Fatalf("got %v, want ErrConfig saying recall_budget_tokens -5", err)
	}
}
