package events_test

import (
	"errors"
	"testing"

	"github.com/toolstream/toolstream/events"
)

func TestSubjectsCarryTheTenant(t *testing.T) {
	s, err := events.ModelSubject("acme", "resp.1", "fc 1")
	if err != nil {
		t.Fatal(err)
	}
	if s != "ts.model.acme.~cmVzcC4x.~ZmMgMQ" {
		t.Fatalf("ModelSubject = %q", s)
	}
	tenant, err := events.SubjectTenant(s)
	if err != nil || tenant != "acme" {
		t.Fatalf("SubjectTenant = %q, %v", tenant, err)
	}
	if _, err := events.CallSubject("", "x"); !errors.Is(err, events.ErrInvalidTenant) {
		t.Fatalf("CallSubject without tenant: %v", err)
	}
}

func TestTokenIsInjective(t *testing.T) {
	ids := []string{"", "~", "a", "a.b", "a*", "a>", "~YQ", "日本", "fc_1", "resp_04", "x y"}
	seen := map[string]string{}
	for _, id := range ids {
		tok := events.Token(id)
		if prev, ok := seen[tok]; ok {
			t.Fatalf("%q and %q share token %q", prev, id, tok)
		}
		seen[tok] = id
		back, err := events.Untoken(tok)
		if err != nil || back != id {
			t.Fatalf("Untoken(Token(%q)) = %q, %v", id, back, err)
		}
	}
}
