package keys_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// producerStore opens tenant's producer store (keys.Config.Tenant) under
// the tenant's producer credential on b: it asks the service VerbUser on
// its own tenant's subject, the one verb the server lets it ask.
func producerStore(t *testing.T, b *bus.Bus, tenant string, timeout time.Duration) *keys.Store {
	t.Helper()
	js := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant})
	s, err := keys.Open(context.Background(), keys.Config{JS: js, Tenant: tenant, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProducerBurstIsAskedAgainWhenBusy: acme's producer asks, all at
// once, for more new users' keys than a lane holds (keys.LaneMax); the
// service refuses what is past the lane busy (keys.CodeBusy), and the
// store asks again after a wait until each has its key: every one is
// answered, the key the bucket holds. A request refused for what it asks
// (400, a wildcard in the scope) is asked once and never again.
func TestProducerBurstIsAskedAgainWhenBusy(t *testing.T) {
	b := bustest.Start(t)
	whole := b.Keys.(*keys.Store)
	acme := producerStore(t, b, "acme", time.Minute)
	asked := bustest.CountRequests(t, b.Conn, keys.ServiceSubject(keys.VerbUser, "acme"))

	for _, tc := range []struct {
		name     string
		scopes   []string
		wantErr  error
		moreAsks bool // more requests than users: some were busy and asked again
	}{
		{"a burst past a lane", userScopes("burst", 3*keys.LaneMax), nil, true},
		{"a wildcard in the scope is refused once", []string{"u/a*b"}, keys.ErrRefused, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := asked.Load()
			errs := make([]error, len(tc.scopes))
			ids := make([]string, len(tc.scopes))
			var wg sync.WaitGroup
			for i, sc := range tc.scopes {
				wg.Go(func() { ids[i], _, errs[i] = acme.SealKey("acme", sc) })
			}
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, tc.wantErr) || err != nil && tc.wantErr == nil {
					t.Fatalf("scope %q: %v, want %v", tc.scopes[i], err, tc.wantErr)
				}
				if err == nil {
					if id, _, err := whole.SealKey("acme", tc.scopes[i]); err != nil || id != ids[i] {
						t.Fatalf("the bucket's key of %s = %s (%v), the producer's %s", tc.scopes[i], id, err, ids[i])
					}
				}
			}
			if err := b.Conn.Flush(); err != nil {
				t.Fatal(err)
			}
			n := asked.Load() - before
			t.Logf("%d keys asked for, %d requests", len(tc.scopes), n)
			if tc.moreAsks && n <= int64(len(tc.scopes)) || !tc.moreAsks && n != int64(len(tc.scopes)) {
				t.Errorf("%d keys asked for in %d requests (asked again: want %v)", len(tc.scopes), n, tc.moreAsks)
			}
		})
	}
}

// userScopes are the scopes of n users named prefix-0, prefix-1, ….
func userScopes(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = events.UserScope(fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}
