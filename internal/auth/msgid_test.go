package auth_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/nats-io/nkeys"
	"github.com/toolstream/toolstream/internal/auth"
)

// TestMsgIDKeys: a creds file's key is the same each time it is read and
// another user's is another; the material's is the same after a reload
// and not a user's.
func TestMsgIDKeys(t *testing.T) {
	dir := t.TempDir()
	m, err := auth.Ensure(filepath.Join(dir, "auth"))
	if err != nil {
		t.Fatal(err)
	}
	creds := func(name string) string {
		u, err := m.Issue(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		data, err := u.Creds()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := auth.WritePrivate(p, data); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := creds("a.creds"), creds("b.creds")
	ka, err := auth.CredsMsgIDKey(a)
	if err != nil {
		t.Fatal(err)
	}
	ka2, _ := auth.CredsMsgIDKey(a)
	kb, _ := auth.CredsMsgIDKey(b)
	if len(ka) != 32 || !bytes.Equal(ka, ka2) || bytes.Equal(ka, kb) {
		t.Fatalf("creds keys: %x %x %x", ka, ka2, kb)
	}
	u, err := m.Issue(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := nkeys.FromSeed(u.Seed)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := u.Creds()
	p := filepath.Join(dir, "u.creds")
	if err := auth.WritePrivate(p, data); err != nil {
		t.Fatal(err)
	}
	fromCreds, _ := auth.CredsMsgIDKey(p)
	if fromSigner, err := auth.SignerMsgIDKey(kp.Sign); err != nil || !bytes.Equal(fromSigner, fromCreds) {
		t.Fatalf("the user's signer and its creds file give other keys: %v", err)
	}
	again, err := auth.Load(filepath.Join(dir, "auth"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.MsgIDKey(), again.MsgIDKey()) || bytes.Equal(m.MsgIDKey(), ka) {
		t.Fatal("the material's key changed on reload, or is a user's")
	}
	if _, err := auth.CredsMsgIDKey(filepath.Join(dir, "none.creds")); err == nil {
		t.Fatal("a missing creds file has a key")
	}
}
