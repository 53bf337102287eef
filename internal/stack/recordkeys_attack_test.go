package stack

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/memory"
)

// TestAttackRecordKeysAreBoundedPerUser (docs/security.md, DESIGN 7, 10):
// a memory record's text is sealed under a key of its own, which nothing
// bounded: a memory writer (the operator's credential, through the memory
// service) naming new records without end, or a processor's credential
// asking the keys service to seal under new record scopes, filled the key
// bucket that every tenant's data keys share. With a user's record keys
// bounded (bus.Config.KeysRecordMax, here 3), the writer filling acme's
// mallory is refused with the typed quota error (memory 507, keys 507,
// events.ErrKeyQuota), while globex's bob and acme's other users still
// write, and forgetting one of mallory's records frees its slot.
func TestAttackRecordKeysAreBoundedPerUser(t *testing.T) {
	const bound = 3
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := bustest.StartWith(t, bus.Config{KeysRecordMax: bound})
	s, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{memory.Name}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	writer := dialEp(t, b, auth.Identity{Role: auth.RoleOperator})
	processor := dialEp(t, b, auth.Identity{Role: auth.RoleMemory})

	observe := func(tenant, user, record string) string {
		body := fmt.Sprintf(`{"tenant":%q,"user":%q,"id":%q,"kind":"fact","subject":%q,"attribute":"note","value":%q,"text":"%s notes %s."}`,
			tenant, user, record, user, record, user, record)
		out, m := writer.ask("tsv.memory.observe", []byte(body))
		if out == outOK && m != nil && !bytesContain(m.Data, `"applied":true`) {
			return "not applied: " + string(m.Data)
		}
		return out
	}
	seal := func(tenant, user, record string) string {
		out, _ := processor.ask(keys.ServiceSubject(keys.VerbSeal, tenant), fmt.Appendf(nil, `{"scope":"r/%s/%s"}`, user, record))
		return out
	}
	steps := []struct {
		name string
		do   func() string
		want string
	}{
		{"mallory's 1st record", func() string { return observe(hostA, "mallory", "m1") }, outOK},
		{"mallory's 2nd record", func() string { return observe(hostA, "mallory", "m2") }, outOK},
		{"mallory's 3rd record", func() string { return observe(hostA, "mallory", "m3") }, outOK},
		{"mallory's 4th record: over the bound", func() string { return observe(hostA, "mallory", "m4") }, memory.CodeTooMany},
		{"mallory's 1st again: its key exists", func() string { return observe(hostA, "mallory", "m1") }, outOK},
		{"a processor sealing a 5th of mallory's", func() string { return seal(hostA, "mallory", "m5") }, keys.CodeTooMany},
		{"a processor sealing for acme's eve", func() string { return seal(hostA, "eve", "e1") }, outOK},
		{"globex's bob", func() string { return observe(hostB, "bob", "b1") }, outOK},
		{"acme's ann", func() string { return observe(hostA, "ann", "a1") }, outOK},
		{"mallory forgets m2", func() string {
			out, m := writer.ask("tsv.memory.forget", fmt.Appendf(nil, `{"tenant":%q,"user":"mallory","id":"m2"}`, hostA))
			if out == outOK {
				// The operator destroys the record's key (serve's `memory
				// forget` does, package erasure): the slot is free.
				if _, err := b.Keys.(*keys.Store).EraseRecord(ctx, hostA, "mallory", "m2"); err != nil {
					return err.Error()
				}
			}
			if m != nil && out != outOK {
				return out + " " + m.Header.Get(micro.ErrorHeader)
			}
			return out
		}, outOK},
		{"mallory's 4th record after the forget", func() string { return observe(hostA, "mallory", "m4") }, outOK},
	}
	for _, st := range steps {
		if got := st.do(); got != st.want {
			t.Errorf("%s: %s, want %s", st.name, got, st.want)
		}
	}
}

func bytesContain(b []byte, s string) bool { return strings.Contains(string(b), s) }
