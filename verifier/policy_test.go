package verifier

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

func policyReport(t *testing.T, answer string) Report {
	t.Helper()
	ev := []Evidence{{CallID: "c1", Name: "get_stock", Result: []byte(`{"items":[{"name":"A","stock":12},{"name":"B","stock":30}]}`)}}
	return NewChecker(CheckerConfig{}).Check(answer, ev, time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC))
}

func TestApplyPolicy(t *testing.T) {
	const answer = "Hello! Item A has 12 in stock. Item B has 12 in stock. It will arrive tomorrow."
	r := policyReport(t, answer)
	wantVerdicts := []events.Verdict{events.VerdictNotCheckable, events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported}
	for i, c := range r.Claims {
		if c.Verdict != wantVerdicts[i] {
			t.Fatalf("claim %d %q: verdict %s, want %s", i, c.Text, c.Verdict, wantVerdicts[i])
		}
	}
	tests := []struct {
		p           Policy
		want        string
		wantBlocked bool
	}{
		{PolicyAnnotate, answer, false},
		{PolicyRedact, "Hello! Item A has 12 in stock. " + RedactMarker + ". " + RedactMarker + ".", false},
		{PolicyBlock, "", true},
		{Policy("typo"), "", true}, // unknown policies fail closed
	}
	for _, tt := range tests {
		got, blocked := ApplyPolicy(tt.p, answer, r)
		if got != tt.want || blocked != tt.wantBlocked {
			t.Errorf("ApplyPolicy(%s) = %q, %v; want %q, %v", tt.p, got, blocked, tt.want, tt.wantBlocked)
		}
	}
}

func TestApplyPolicyAllSupported(t *testing.T) {
	const answer = "商品 A 库存 12 件，商品 B 库存 30 件。谢谢！"
	r := policyReport(t, answer)
	for _, p := range []Policy{PolicyAnnotate, PolicyRedact, PolicyBlock} {
		got, blocked := ApplyPolicy(p, answer, r)
		if got != answer || blocked {
			t.Errorf("ApplyPolicy(%s) = %q, %v; want the answer unchanged", p, got, blocked)
		}
	}
}

func TestApplyPolicyRedactChinese(t *testing.T) {
	const answer = "商品 A 库存 12 件，商品 B 库存 12 件。明天一定送到。"
	r := policyReport(t, answer)
	got, blocked := ApplyPolicy(PolicyRedact, answer, r)
	want := "商品 A 库存 12 件，" + RedactMarker + "。" + RedactMarker + "。"
	if got != want || blocked {
		t.Fatalf("redact = %q, %v; want %q", got, blocked, want)
	}
}

func TestApplyPolicyIgnoresForeignOffsets(t *testing.T) {
	r := Report{Claims: []events.ClaimVerdict{{Text: "x", Start: 10, End: 99, Verdict: events.VerdictUnsupported}}}
	got, _ := ApplyPolicy(PolicyRedact, "short", r)
	if got != "short" {
		t.Fatalf("redact with offsets past the answer = %q, want it unchanged", got)
	}
}

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"annotate", "redact", "block"} {
		if p, err := ParsePolicy(s); err != nil || string(p) != s {
			t.Errorf("ParsePolicy(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParsePolicy("Block"); !errors.Is(err, ErrUnknownPolicy) || !strings.Contains(err.Error(), "Block") {
		t.Errorf("ParsePolicy(Block) error = %v, want ErrUnknownPolicy", err)
	}
}

func TestParsePolicies(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      Policies
		err       error
	}{
		{"yaml", "default: redact\ntenants:\n  acme: block\n  globex: annotate\n",
			Policies{Default: PolicyRedact, Tenants: map[string]Policy{"acme": PolicyBlock, "globex": PolicyAnnotate}}, nil},
		{"json", `{"tenants": {"acme": "redact"}}`, Policies{Default: PolicyAnnotate, Tenants: map[string]Policy{"acme": PolicyRedact}}, nil},
		{"empty", "", Policies{Default: PolicyAnnotate}, nil},
		{"unknown policy", "tenants: {acme: hide}", Policies{}, ErrUnknownPolicy},
		{"unknown default", "default: strict", Policies{}, ErrUnknownPolicy},
		{"a typo of a field", "tenant: {acme: block}", Policies{}, events.ErrBadInput},
		{"a bad tenant", "tenants: {\"a.b\": block}", Policies{}, events.ErrBadInput},
		{"not a map", "- acme", Policies{}, events.ErrBadInput},
	} {
		got, err := ParsePolicies([]byte(tt.src))
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%s: err %v, want %v", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got.Default != tt.want.Default || !maps.Equal(got.Tenants, tt.want.Tenants) {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}
