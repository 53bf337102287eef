package keys_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestUserKeysPerTenantAreBounded: with UserKeysMax 5, acme's producer
// credential makes five users' keys, and a sixth user's is refused
// (ErrTooManyKeys, CodeTooMany) while the five are still answered;
// globex's producer makes its own five meanwhile; the operator's erasure
// of one of acme's users frees its slot for one more, and no more.
func TestUserKeysPerTenantAreBounded(t *testing.T) {
	const bound = 5
	ctx := context.Background()
	b := bustest.StartTenantsWith(t, bus.Config{KeysUserMax: bound}, "acme", "globex")
	acme := producerStore(t, b, "acme", 10*time.Second)
	globex := producerStore(t, b, "globex", 10*time.Second)
	operator := remote(t, b, auth.Identity{Role: auth.RoleOperator})
	stores := map[string]*keys.Store{"acme": acme, "globex": globex}

	for i, step := range []struct {
		what, tenant, user string
		erase              bool  // the operator erases the user instead
		want               error // nil: the key is answered
	}{
		{"acme's first", "acme", "u0", false, nil},
		{"acme's second", "acme", "u1", false, nil},
		{"acme's third", "acme", "u2", false, nil},
		{"acme's fourth", "acme", "u3", false, nil},
		{"acme's fifth", "acme", "u4", false, nil},
		{"acme's sixth user, past the bound", "acme", "u5", false, keys.ErrTooManyKeys},
		{"acme's seventh, past the bound", "acme", "u6", false, keys.ErrTooManyKeys},
		{"acme's first again, made already", "acme", "u0", false, nil},
		{"globex's first", "globex", "u0", false, nil},
		{"globex's second", "globex", "u1", false, nil},
		{"globex's third", "globex", "u2", false, nil},
		{"globex's fourth", "globex", "u3", false, nil},
		{"globex's fifth", "globex", "u5", false, nil},
		{"globex's sixth, past its own bound", "globex", "u6", false, keys.ErrTooManyKeys},
		{"the operator erases acme's u2", "acme", "u2", true, nil},
		{"acme's sixth user in u2's slot", "acme", "u5", false, nil},
		{"acme's seventh, past the bound again", "acme", "u6", false, keys.ErrTooManyKeys},
	} {
		var err error
		if step.erase {
			_, err = operator.Erase(ctx, step.tenant, step.user)
		} else {
			_, _, err = stores[step.tenant].SealKey(step.tenant, events.UserScope(step.user))
		}
		if step.want == nil && err != nil || !errors.Is(err, step.want) {
			t.Fatalf("step %d, %s: %v, want %v", i, step.what, err, step.want)
		}
	}
}

// TestProcessorSealsAreHeldToTheBound: with UserKeysMax 3, the keys a
// processor's credential makes through the service (VerbSeal, what the
// assembler asks when it seals a third party's raw events for the user
// their Ts-User names) count towards acme's bound as a producer's do, and
// so do those the admin's store of the bucket makes for itself (serve's
// embedded processors seal with it): past the bound each is refused
// ErrTooManyKeys, which is bad input (events.ErrKeyQuota, a projection's
// rejection quota_exceeded), whoever asks; users made already, the
// tenant's user-less scope, a made user's memory record and globex's users
// are still given. Before, VerbSeal and the admin's store made a key for
// every user named.
func TestProcessorSealsAreHeldToTheBound(t *testing.T) {
	const bound = 3
	b := bustest.StartTenantsWith(t, bus.Config{KeysUserMax: bound}, "acme", "globex")
	assembler := remote(t, b, auth.Identity{Role: auth.RoleAssembler})
	memory := remote(t, b, auth.Identity{Role: auth.RoleMemory})
	producer := producerStore(t, b, "acme", 10*time.Second)
	admin := b.Keys.(*keys.Store)
	for i, step := range []struct {
		what   string
		store  *keys.Store
		tenant string
		scope  string
		want   error
	}{
		{"the assembler seals acme's u0", assembler, "acme", events.UserScope("u0"), nil},
		{"the assembler seals acme's u1", assembler, "acme", events.UserScope("u1"), nil},
		{"the memory role seals acme's u2", memory, "acme", events.UserScope("u2"), nil},
		{"the assembler seals acme's u3, past the bound", assembler, "acme", events.UserScope("u3"), keys.ErrTooManyKeys},
		{"the memory role seals acme's u4, past the bound", memory, "acme", events.UserScope("u4"), keys.ErrTooManyKeys},
		{"acme's producer asks for u5, past the bound", producer, "acme", events.UserScope("u5"), keys.ErrTooManyKeys},
		{"the admin's store seals acme's u6, past the bound", admin, "acme", events.UserScope("u6"), keys.ErrTooManyKeys},
		{"the assembler seals acme's u0 again, made already", assembler, "acme", events.UserScope("u0"), nil},
		{"the assembler seals acme's user-less scope", assembler, "acme", events.UserScope(""), nil},
		{"the memory role seals a record of acme's u1", memory, "acme", events.RecordScope("u1", "r1"), nil},
		{"the assembler seals globex's u3", assembler, "globex", events.UserScope("u3"), nil},
		{"the admin's store seals globex's u4", admin, "globex", events.UserScope("u4"), nil},
	} {
		_, _, err := step.store.SealKey(step.tenant, step.scope)
		if step.want == nil && err != nil || !errors.Is(err, step.want) {
			t.Fatalf("step %d, %s: %v, want %v", i, step.what, err, step.want)
		}
		if step.want != nil && events.ReasonOf(err) != events.ReasonQuotaExceeded {
			t.Errorf("step %d, %s: reason %q, want %q", i, step.what, events.ReasonOf(err), events.ReasonQuotaExceeded)
		}
	}
}
