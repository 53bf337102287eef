package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/memory"
)

// memoryFlags are memory's settings as serve and replay take them: the
// process's defaults as flags, each tenant's values in a policy file
// (memory.ParsePolicies). The quotas are part of the memory view, so a
// replay must be given serve's; the review and cold times are read at
// query time (serve and memory run take them) and the hit batch is the
// service's (serve only).
type memoryFlags struct {
	quotaPerUser, quotaPerTenant int
	policyFile                   string
	reviewAfter, coldAfter       time.Duration
	hitBatch                     int
}

func memoryFlag(cmd *cobra.Command, m *memoryFlags, replay bool) {
	f := cmd.Flags()
	must := ""
	if replay {
		must = " (must be serve's)"
	}
	f.IntVar(&m.quotaPerUser, "memory-quota-per-user", 0, "active memory records one user keeps"+must+"; beyond it the least valuable go cold (0: "+strconv.Itoa(memory.QuotaPerUserDefault)+"; negative: no quota)")
	f.IntVar(&m.quotaPerTenant, "memory-quota-per-tenant", 0, "active memory records all the users of one tenant keep together"+must+"; beyond it the tenant's least valuable go cold (0: none)")
	f.StringVar(&m.policyFile, "memory-policy", "", "memory's policy per tenant"+must+", a YAML or JSON file: tenants: {TENANT: {quota: N, review_after: DURATION}} (a negative quota exempts a tenant from --memory-quota-per-tenant)")
	if replay {
		return
	}
	f.DurationVar(&m.reviewAfter, "memory-review-after", 0, "how long an open-ended constraint (\"these days\") holds before recall marks it needs_confirmation (0: 720h); per tenant in --memory-policy")
	f.DurationVar(&m.coldAfter, "memory-cold-after", 0, "a memory record neither said again nor recalled for this long reads cold and default recall leaves it out (0: never; constraints never go cold by time)")
}

// memoryHitBatchFlag is the memory service's hit batch (serve only).
func memoryHitBatchFlag(cmd *cobra.Command, m *memoryFlags) {
	cmd.Flags().IntVar(&m.hitBatch, "memory-hit-batch", 0, "recall hits of one user gathered before they are recorded as one event (0: 32; negative: hits are not recorded)")
}

// config is the memory configuration the flags and the policy file say.
func (m memoryFlags) config() (memory.Config, error) {
	if m.reviewAfter < 0 || m.coldAfter < 0 {
		return memory.Config{}, fmt.Errorf("--memory-review-after and --memory-cold-after: want 0 or more")
	}
	cfg := memory.Config{QuotaPerUser: m.quotaPerUser, QuotaPerTenant: m.quotaPerTenant, ReviewAfter: m.reviewAfter, ColdAfter: m.coldAfter}
	if m.policyFile == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(m.policyFile)
	if err != nil {
		return memory.Config{}, fmt.Errorf("--memory-policy: %w", err)
	}
	if cfg, err = memory.ParsePolicies(data, cfg); err != nil {
		return memory.Config{}, fmt.Errorf("--memory-policy %s: %w", m.policyFile, err)
	}
	return cfg, nil
}
