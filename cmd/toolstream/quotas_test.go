package main

import (
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
)

func TestQuotaFlags(t *testing.T) {
	for _, c := range []struct {
		name string
		f    quotaFlags
		want *assembler.Quotas // nil with err false: no quotas
		err  bool
	}{
		{name: "defaults", f: quotaFlags{burst: assembler.BurstDefault}, want: assembler.DefaultQuotas()},
		{name: "off", f: quotaFlags{quota: "off", burst: assembler.BurstDefault}},
		{name: "default and tenants", f: quotaFlags{quota: "events=100", tenants: []string{"acme:open=5", "globex:bytes=1MiB"}, burst: time.Second},
			want: &assembler.Quotas{Default: assembler.Quota{EventRateMax: 100}, Burst: time.Second,
				Tenants: map[string]assembler.Quota{"acme": {OpenCallsMax: 5}, "globex": {ByteRateMax: 1 << 20}}}},
		{name: "malformed default", f: quotaFlags{quota: "events=fast", burst: time.Second}, err: true},
		{name: "malformed tenant", f: quotaFlags{tenants: []string{"acme=5"}, burst: time.Second}, err: true},
		{name: "bad tenant name", f: quotaFlags{tenants: []string{"ac.me:open=5"}, burst: time.Second}, err: true},
		{name: "tenant twice", f: quotaFlags{tenants: []string{"acme:open=5", "acme:open=6"}, burst: time.Second}, err: true},
		{name: "tenants without quotas", f: quotaFlags{quota: "off", tenants: []string{"acme:open=5"}, burst: time.Second}, err: true},
		{name: "no burst", f: quotaFlags{burst: 0}, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.f.quotas()
			if c.err {
				if !errors.Is(err, assembler.ErrInvalidQuota) {
					t.Fatalf("%+v, %v: want ErrInvalidQuota", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (c.want == nil) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			if got == nil {
				return
			}
			for _, tenant := range []string{"acme", "globex", "other"} {
				if g, w := got.For(tenant), c.want.For(tenant); g != w {
					t.Errorf("%s: %v, want %v", tenant, g, w)
				}
			}
			if got.Burst != c.want.Burst {
				t.Errorf("burst %v, want %v", got.Burst, c.want.Burst)
			}
		})
	}
}
