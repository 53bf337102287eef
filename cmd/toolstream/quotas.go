package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/assembler"
)

// quotaFlags are the assembler's per-tenant quotas as serve and replay
// take them (docs/design.md, "Fair to every tenant"). A replay must be
// given serve's, as it must be given serve's --idle-timeout.
type quotaFlags struct {
	quota   string   // the default quota, "off" for none
	tenants []string // TENANT:SPEC
	burst   time.Duration
}

func addQuotaFlags(cmd *cobra.Command, q *quotaFlags, replay bool) {
	must := ""
	if replay {
		must = " (must be serve's)"
	}
	cmd.Flags().StringVar(&q.quota, "quota", "",
		"every tenant's quota"+must+": events=N (model events/s), bytes=N (bytes/s; KiB, MiB, GiB), open=N (calls open at once), each a number or unlimited, the rest the defaults ("+
			assembler.DefaultQuotas().For("").String()+"); off: no quotas")
	cmd.Flags().StringArrayVar(&q.tenants, "tenant-quota", nil, "one tenant's quota"+must+", TENANT:events=N,bytes=N,open=N; the fields left out are --quota's (repeatable)")
	cmd.Flags().DurationVar(&q.burst, "quota-burst", assembler.BurstDefault, "how far ahead of its rates a tenant may be: burst × rate may come at once"+must)
}

// quotas are the quotas the flags say: nil for --quota off. Errors wrap
// assembler.ErrInvalidQuota.
func (q *quotaFlags) quotas() (*assembler.Quotas, error) {
	if q.quota == "off" {
		if len(q.tenants) > 0 {
			return nil, fmt.Errorf("%w: --tenant-quota with --quota off", assembler.ErrInvalidQuota)
		}
		return nil, nil
	}
	out := assembler.DefaultQuotas()
	out.Burst = q.burst
	if q.burst <= 0 {
		return nil, fmt.Errorf("%w: --quota-burst %v: want a positive duration", assembler.ErrInvalidQuota, q.burst)
	}
	if q.quota != "" {
		d, err := assembler.ParseQuota(q.quota)
		if err != nil {
			return nil, fmt.Errorf("--quota: %w", err)
		}
		out.Default = d
	}
	for _, s := range q.tenants {
		tenant, tq, err := assembler.ParseTenantQuota(s)
		if err != nil {
			return nil, fmt.Errorf("--tenant-quota: %w", err)
		}
		if out.Tenants == nil {
			out.Tenants = map[string]assembler.Quota{}
		}
		if _, dup := out.Tenants[tenant]; dup {
			return nil, fmt.Errorf("%w: --tenant-quota: tenant %s given twice", assembler.ErrInvalidQuota, tenant)
		}
		out.Tenants[tenant] = tq
	}
	return out, out.Validate()
}
