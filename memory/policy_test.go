package memory

import (
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

func TestParsePolicies(t *testing.T) {
	base := Config{QuotaPerTenant: 100, TenantQuota: map[string]int{"keep": 7}}
	tests := []struct {
		name, file string
		quota      map[string]int // TenantQuota(tenant) of the engine
		review     map[string]time.Duration
		bad        bool
	}{
		{name: "empty", file: "", quota: map[string]int{"acme": 100, "keep": 7}},
		{name: "yaml", file: "tenants:\n  acme: {quota: 50, review_after: 168h}\n  globex: {quota: -1}\n  keep: {review_after: 1h}\n",
			quota:  map[string]int{"acme": 50, "globex": 0, "keep": 7, "other": 100},
			review: map[string]time.Duration{"acme": 168 * time.Hour, "keep": time.Hour, "other": 30 * 24 * time.Hour}},
		{name: "json", file: `{"tenants": {"acme": {"quota": 5, "review_after": "2h"}}}`,
			quota: map[string]int{"acme": 5}, review: map[string]time.Duration{"acme": 2 * time.Hour}},
		{name: "unknown field", file: "tenants:\n  acme: {qouta: 5}\n", bad: true},
		{name: "unknown top field", file: "default: {quota: 5}\n", bad: true},
		{name: "bad tenant", file: "tenants:\n  a.b: {quota: 5}\n", bad: true},
		{name: "negative review", file: "tenants:\n  acme: {review_after: -1h}\n", bad: true},
		{name: "not a duration", file: "tenants:\n  acme: {review_after: soon}\n", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParsePolicies([]byte(tc.file), base)
			if tc.bad {
				if !errors.Is(err, events.ErrBadInput) {
					t.Fatalf("err = %v, want ErrBadInput", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e := NewEngine(cfg, nil)
			for tenant, want := range tc.quota {
				if got := e.TenantQuota(tenant); got != want {
					t.Errorf("TenantQuota(%s) = %d, want %d", tenant, got, want)
				}
			}
			for tenant, want := range tc.review {
				if got := e.ReviewAfter(tenant); got != want {
					t.Errorf("ReviewAfter(%s) = %v, want %v", tenant, got, want)
				}
			}
		})
	}
	if base.TenantQuota["acme"] != 0 || len(base.TenantQuota) != 1 {
		t.Fatalf("ParsePolicies changed the config it was given: %v", base.TenantQuota)
	}
}
