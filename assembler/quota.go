package assembler

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
)

// Quota bounds what one tenant may send and hold open. A zero field takes
// the default (Quotas.Default's, then the package default); a negative one
// means no limit.
type Quota struct {
	// EventRateMax bounds the model events per second the assembler takes
	// from the tenant (event time), with Quotas.Burst of it at once.
	// Default EventRateDefault.
	EventRateMax int
	// ByteRateMax bounds the bytes per second of those events (as the log
	// holds them), with Quotas.Burst of it at once; an event larger than
	// the burst is taken when the tenant's allowance is whole. Default
	// ByteRateDefault.
	ByteRateMax int
	// OpenCallsMax bounds the tenant's calls open in the assembler (opened
	// and not yet decided) at once. Default OpenCallsDefault.
	OpenCallsMax int
}

// The default quota of a tenant.
const (
	EventRateDefault = 5000
	ByteRateDefault  = 4 << 20
	OpenCallsDefault = 1000
	BurstDefault     = 2 * time.Second
)

// Quotas are every tenant's quotas: Default, and per tenant the fields its
// entry in Tenants sets. The assembler enforces them (admit.go; "Fair to
// every tenant" in docs/design.md); on a partitioned log each partition's
// assembler enforces them on the part of the tenant's events it reads.
//
// Quotas are part of what the assembler decides from: a replay must be
// given the quotas the live view was built with, as it must be given its
// idle timeout, or it decides otherwise.
type Quotas struct {
	Default Quota
	Tenants map[string]Quota
	// Burst is how far ahead of its rates a tenant may be: Burst × the
	// rate may come at once. Default BurstDefault.
	Burst time.Duration
}

// Unlimited are quotas that never refuse anything.
func Unlimited() Quotas {
	return Quotas{Default: Quota{EventRateMax: -1, ByteRateMax: -1, OpenCallsMax: -1}}
}

// For returns tenant's quota with every field decided: positive, or
// negative for no limit.
func (q *Quotas) For(tenant string) Quota {
	out := q.Default
	if t, ok := q.Tenants[tenant]; ok {
		out = Quota{EventRateMax: or(t.EventRateMax, out.EventRateMax), ByteRateMax: or(t.ByteRateMax, out.ByteRateMax),
			OpenCallsMax: or(t.OpenCallsMax, out.OpenCallsMax)}
	}
	return Quota{EventRateMax: or(out.EventRateMax, EventRateDefault), ByteRateMax: or(out.ByteRateMax, ByteRateDefault),
		OpenCallsMax: or(out.OpenCallsMax, OpenCallsDefault)}
}

func (q *Quotas) burst() time.Duration {
	if q.Burst <= 0 {
		return BurstDefault
	}
	return q.Burst
}

func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Validate reports quotas that cannot be enforced: a quota for a name that
// cannot be a tenant, a negative burst. Errors wrap ErrInvalidQuota.
func (q *Quotas) Validate() error {
	for t := range q.Tenants {
		if err := events.ValidTenant(t); err != nil {
			return fmt.Errorf("%w: a quota for tenant %q: %w", ErrInvalidQuota, t, err)
		}
	}
	if q.Burst < 0 {
		return fmt.Errorf("%w: burst %v: want a positive duration (0: the default)", ErrInvalidQuota, q.Burst)
	}
	return nil
}

// ParseQuota reads a quota as a configuration line says it (and
// Quota.String writes it): comma-separated NAME=VALUE, NAME one of events
// (per second), bytes (per second; a KiB, MiB or GiB suffix may follow the
// number) and open (calls), VALUE a positive number or "unlimited". A name
// left out takes the default. Errors wrap ErrInvalidQuota.
func ParseQuota(s string) (Quota, error) {
	var q Quota
	seen := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Quota{}, fmt.Errorf("%w: %q: want NAME=VALUE (events, bytes, open), e.g. events=5000,bytes=4MiB,open=1000", ErrInvalidQuota, part)
		}
		var field *int
		switch name {
		case "events":
			field = &q.EventRateMax
		case "bytes":
			field = &q.ByteRateMax
		case "open":
			field = &q.OpenCallsMax
		default:
			return Quota{}, fmt.Errorf("%w: unknown quota %q (events, bytes, open)", ErrInvalidQuota, name)
		}
		if seen[name] {
			return Quota{}, fmt.Errorf("%w: %s given twice in %q", ErrInvalidQuota, name, s)
		}
		seen[name] = true
		v, err := quotaValue(value, name == "bytes")
		if err != nil {
			return Quota{}, fmt.Errorf("%w: %s=%s: %w", ErrInvalidQuota, name, value, err)
		}
		*field = v
	}
	return q, nil
}

// ParseTenantQuota reads a tenant's quota, "TENANT:" followed by what
// ParseQuota reads. Errors wrap ErrInvalidQuota.
func ParseTenantQuota(s string) (string, Quota, error) {
	tenant, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", Quota{}, fmt.Errorf("%w: %q: want TENANT:NAME=VALUE,…, e.g. acme:events=100,open=10", ErrInvalidQuota, s)
	}
	if err := events.ValidTenant(tenant); err != nil {
		return "", Quota{}, fmt.Errorf("%w: %q: %w", ErrInvalidQuota, s, err)
	}
	q, err := ParseQuota(rest)
	return tenant, q, err
}

var byteSuffixes = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}}

func quotaValue(v string, bytes bool) (int, error) {
	if v == "unlimited" {
		return -1, nil
	}
	var shift uint
	if bytes {
		for _, s := range byteSuffixes {
			if n, ok := strings.CutSuffix(v, s.suffix); ok {
				v, shift = n, s.shift
				break
			}
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt32>>shift {
		return 0, errors.New(`want a positive number (at most 2^31) or "unlimited"`)
	}
	return int(n) << shift, nil
}

// String says the quota as a configuration line does.
func (q Quota) String() string {
	f := func(v int) string {
		if v < 0 {
			return "unlimited"
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("events=%s,bytes=%s,open=%s", f(q.EventRateMax), f(q.ByteRateMax), f(q.OpenCallsMax))
}

// Usage is what a projection took and refused of one tenant since its
// view began (AssemblerUsage): every model event of the tenant the
// projection read and did not reject as bad input is counted in exactly
// one of Admitted and Refused.
type Usage struct {
	Admitted      uint64 // events within the quota (applied, or ignored as late: not those rejected as bad input)
	AdmittedBytes uint64
	Refused       uint64 // events refused over the quota (they stay in the log)
	RefusedBytes  uint64
	Refusals      uint64 // responses refused for it, each told quota_exceeded
	CallsRefused  uint64 // calls rejected quota_exceeded for opening past OpenCallsMax
}

// quotaRow is a tenant's quota state in a view: the tenant's clock (the
// latest event time seen, so a producer whose clock lags another's is not
// charged as if its events came early), two generic cell rate algorithm
// clocks (the theoretical arrival times of the tenant's next event and
// next byte), its open calls and its usage. It is written whenever it
// changes, in the message's Tx, so the view alone decides the next event:
// a restart or a replay admits and refuses exactly what the live view did.
type quotaRow struct {
	clock, events, bytes int64
	open                 uint64
	Usage
}

// admit charges an event of size bytes at event time at against q and
// reports whether it fits: each rate lets its clock run at most burst
// ahead of the tenant's. A refused event charges nothing.
func (b *quotaRow) admit(at int64, size int, q Quota, burst int64) bool {
	b.clock = max(b.clock, at)
	now := b.clock
	var costE, costB int64
	if q.EventRateMax > 0 {
		if b.events-now > burst {
			return false
		}
		costE = max(1, int64(time.Second)/int64(q.EventRateMax))
	}
	if q.ByteRateMax > 0 {
		if b.bytes-now > burst {
			return false
		}
		costB = int64(size) * int64(time.Second) / int64(q.ByteRateMax)
	}
	if costE > 0 {
		b.events = max(b.events, now) + costE
	}
	if costB > 0 {
		b.bytes = max(b.bytes, now) + costB
	}
	return true
}

func (b *quotaRow) marshal(buf []byte) []byte {
	for _, v := range [...]int64{b.clock, b.events, b.bytes} {
		buf = binary.AppendVarint(buf, v)
	}
	for _, v := range [...]uint64{b.open, b.Admitted, b.AdmittedBytes, b.Refused, b.RefusedBytes, b.Refusals, b.CallsRefused} {
		buf = binary.AppendUvarint(buf, v)
	}
	return buf
}

func (b *quotaRow) unmarshal(v []byte) error {
	for _, f := range [...]*int64{&b.clock, &b.events, &b.bytes} {
		x, w := binary.Varint(v)
		if w <= 0 {
			return errCorruptQuota
		}
		*f, v = x, v[w:]
	}
	for _, f := range [...]*uint64{&b.open, &b.Admitted, &b.AdmittedBytes, &b.Refused, &b.RefusedBytes, &b.Refusals, &b.CallsRefused} {
		x, w := binary.Uvarint(v)
		if w <= 0 {
			return errCorruptQuota
		}
		*f, v = x, v[w:]
	}
	if len(v) != 0 {
		return errCorruptQuota
	}
	return nil
}

var errCorruptQuota = errors.New("assembler: corrupt quota row")
