package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// logMsgs is how many messages every stream of the log holds.
func logMsgs(t *testing.T, ctx context.Context, b *bus.Bus) uint64 {
	t.Helper()
	var n uint64
	for _, name := range events.Streams {
		s, err := b.JS.Stream(ctx, name)
		if err != nil {
			continue // a stream this layout does not have
		}
		n += s.CachedInfo().State.Msgs
	}
	return n
}

// TestForgetOfAUserNeverSeen: `forget --tenant acme --user X` of a user
// never seen (a mistyped name) destroyed nothing, wrote a tombstone into
// every stream (each view rebuilt) and said "erased user X", exit 0. Now
// it says there is nothing to forget, exit 3, and writes nothing; a user
// with data is forgotten as before; forgotten, they are nothing to forget
// again; --force writes the tombstones anyway (a forget cut short).
func TestForgetOfAUserNeverSeen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	r := edgeRig{t, ctx, b.ClientURL()}
	operator := bustest.Creds(t, b, auth.Identity{Role: auth.RoleOperator})
	producer := bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	stream := filepath.Join(t.TempDir(), "ann.jsonl")
	os.WriteFile(stream, []byte(chatCalls(0, 1)), 0o644)
	if _, err, _ := r.run(producer, "publish", "--tenant", "acme", "--user", "ann", stream); err != nil {
		t.Fatal(err)
	}
	forget := func(user string, more ...string) (string, error) {
		out, err, _ := r.run(operator, append([]string{"forget", "--tenant", "acme", "--user", user, "--wait", "10ms"}, more...)...)
		if err != nil {
			return userMessage(err), err
		}
		return out, nil
	}
	for _, step := range []struct {
		user   string
		force  bool
		code   int
		say    string
		writes bool
	}{
		{"nobody", false, exitNotFound, `nothing to forget: tenant acme holds no data key and no raw event of user "nobody"`, false},
		{"Ann", false, exitNotFound, "nothing to forget", false}, // users are named exactly
		{"ann", false, 0, "erased user ann of tenant acme: 1 data key(s) destroyed", true},
		{"ann", false, exitNotFound, "(never seen, or forgotten before); nothing was written (--force writes the tombstones anyway", false},
		{"nobody", true, 0, "erased user nobody of tenant acme: 0 data key(s) destroyed, 0 raw event(s) deleted, a tombstone in", true},
	} {
		before := logMsgs(t, ctx, b)
		var more []string
		if step.force {
			more = append(more, "--force")
		}
		out, err := forget(step.user, more...)
		code := 0
		if err != nil {
			code = exitCode(err)
		}
		if code != step.code || !strings.Contains(out, step.say) {
			t.Errorf("forget --user %s %v: exit %d, %q; want exit %d saying %q", step.user, more, code, out, step.code, step.say)
		}
		if wrote := logMsgs(t, ctx, b) > before; wrote != step.writes {
			t.Errorf("forget --user %s %v: wrote to the log: %v; want %v", step.user, more, wrote, step.writes)
		}
	}
}
