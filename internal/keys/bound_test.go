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
