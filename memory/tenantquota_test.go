package memory

import (
	"testing"

	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestTenantQuota applies random histories of two users of acme, which has
// a quota of its own (its policy), and one user of beta, which has none:
// after every event acme's users together keep at most its quota of active
// records, every derived entry and counter (the tenant's too) agrees with
// the records, and beta's state is byte for byte what it is without any
// tenant quota. Two stores given the same events hold the same bytes.
func TestTenantQuota(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"policy", Config{QuotaPerUser: 12, TenantQuota: map[string]int{"acme": 15}}},
		{"default and exempt", Config{QuotaPerUser: 12, QuotaPerTenant: 15, TenantQuota: map[string]int{"beta": -1}}},
		{"tenant below one user", Config{QuotaPerUser: 40, TenantQuota: map[string]int{"acme": 9}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(tc.cfg, nil)
			if e.TenantQuota("acme") == 0 || e.TenantQuota("beta") != 0 {
				t.Fatalf("quotas: acme %d, beta %d", e.TenantQuota("acme"), e.TenantQuota("beta"))
			}
			evs := genEvents(21, 600)
			s := newMapStore()
			cold := 0
			for _, ev := range evs {
				if err := s.apply(e, ev); err != nil {
					continue // a rejection
				}
				var tm tenantMeta
				if b, ok, _ := s.Get(tenantKeysFor("acme").meta()); ok {
					if err := decodeInto(b, &tm); err != nil {
						t.Fatal(err)
					}
				}
				if tm.Active > e.TenantQuota("acme") {
					t.Fatalf("after %s acme has %d active records, quota %d", ev.ID, tm.Active, e.TenantQuota("acme"))
				}
			}
			checkConsistent(t, e, s)
			for _, u := range []string{"u1", "u2"} {
				recs, err := e.List(s, "acme", u, true)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					if r.Status == StatusCold {
						cold++
					}
				}
			}
			if cold == 0 {
				t.Fatal("no record of acme went cold: the history never reached the quota")
			}

			free := NewEngine(Config{QuotaPerUser: tc.cfg.QuotaPerUser}, nil)
			s2 := newMapStore()
			applyAll(t, free, s2, evs)
			if a, b := dumpReader(s, "beta/"), dumpReader(s2, "beta/"); a != b {
				t.Fatalf("beta, without a quota, changed:\n%s", firstDiff(a, b))
			}

			p := newPebbleStore(t)
			applyAll(t, e, p, evs)
			if a, b := dumpReader(p.reader(), ""), dumpReader(s, ""); a != b {
				t.Fatalf("two stores differ:\n%s", firstDiff(a, b))
			}
		})
	}
}

// TestConformanceTenantQuota runs the projection contract's suite with a
// tenant quota that the recorded history reaches: live, replayed,
// redelivered and resumed views are the same.
func TestConformanceTenantQuota(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		Name: "memory-tenant-quota",
		New: func() projector.Projection {
			return NewProjection(NewEngine(Config{QuotaPerUser: 12, TenantQuota: map[string]int{"acme": 15}}, nil))
		},
		Record: recordHistory,
	})
}
