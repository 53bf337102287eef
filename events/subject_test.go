package events_test

import (
	"errors"
	"fmt"
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

func TestDecodeAtRefusesAnotherTenantsSubject(t *testing.T) {
	data, err := events.Encode(&events.Event{ID: "e1", Tenant: "acme", Response: "r", Item: "i", Body: &events.TextDelta{Text: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	for subject, want := range map[string]error{
		"ts.model.acme.r.i":   nil,
		"ts.model.acme.r.i.3": nil, // a partitioned model subject
		"ts.model.beta.r.i":   events.ErrTenantMismatch,
		"ts.model._system.x":  events.ErrTenantMismatch,
		"ts":                  events.ErrMalformed,
		"other.model.acme.r":  events.ErrMalformed,
	} {
		_, err := events.DecodeAt(subject, data)
		if !errors.Is(err, want) || (want != nil && !errors.Is(err, events.ErrBadInput)) {
			t.Errorf("events.DecodeAt(%s) = %v, want %v (bad input)", subject, err, want)
		}
	}
	if events.ReasonOf(fmt.Errorf("x: %w", events.ErrTenantMismatch)) != events.ReasonTenantMismatch || events.ReasonOf(events.ErrMalformed) != events.ReasonMalformedEvent || events.ReasonOf(errors.New("io")) != "" {
		t.Error("events.ReasonOf does not name the reasons")
	}
}
