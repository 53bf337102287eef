package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/toolstream/toolstream/events"
	"go.yaml.in/yaml/v3"
)

// TenantPolicy is what one tenant's memory policy may set; a zero field
// leaves the process's default (Config).
type TenantPolicy struct {
	// Quota is how many active records the tenant's users keep together
	// (Config.TenantQuota): positive, a quota; negative, none even when
	// Config.QuotaPerTenant gives one.
	Quota int `yaml:"quota"`
	// ReviewAfter is the review time of the tenant's open-ended statements
	// (Config.TenantReviewAfter). Negative is refused.
	ReviewAfter time.Duration `yaml:"review_after"`
}

// ParsePolicies reads a file of tenants' memory policies (serve and replay
// --memory-policy FILE), YAML or JSON, and returns cfg with them:
//
//	tenants:
//	  acme: {quota: 50000, review_after: 168h}
//	  globex: {quota: -1}
//
// A tenant that is not valid, a negative review time or a field it does not
// know is an error wrapping events.ErrBadInput: a typo never leaves a
// tenant on a policy it did not ask for. The quotas are part of the
// memory view (a replay must be given serve's file); the review times are
// read at query time.
func ParsePolicies(data []byte, cfg Config) (Config, error) {
	var f struct {
		Tenants map[string]TenantPolicy `yaml:"tenants"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return cfg, fmt.Errorf("memory: policy file: %w: %v", events.ErrBadInput, err)
	}
	quota := make(map[string]int, len(cfg.TenantQuota)+len(f.Tenants))
	for t, q := range cfg.TenantQuota {
		quota[t] = q
	}
	review := make(map[string]time.Duration, len(cfg.TenantReviewAfter)+len(f.Tenants))
	for t, d := range cfg.TenantReviewAfter {
		review[t] = d
	}
	for tenant, p := range f.Tenants {
		if err := events.ValidTenant(tenant); err != nil {
			return cfg, fmt.Errorf("memory: policy file: tenant %q: %w: %v", tenant, events.ErrBadInput, err)
		}
		if p.ReviewAfter < 0 {
			return cfg, fmt.Errorf("memory: policy file: tenant %s: negative review_after: %w", tenant, events.ErrBadInput)
		}
		if p.Quota != 0 {
			quota[tenant] = p.Quota
		}
		if p.ReviewAfter != 0 {
			review[tenant] = p.ReviewAfter
		}
	}
	cfg.TenantQuota, cfg.TenantReviewAfter = quota, review
	return cfg, nil
}
