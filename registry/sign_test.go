package registry_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// signed returns the event of a change to the registry of src, signed by k.
func signed(t testing.TB, k *registry.SigningKey, src string, issuedAt int64) *events.Event {
	t.Helper()
	r, err := registry.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := registry.Sign(k, r, "tools.yaml", issuedAt)
	if err != nil {
		t.Fatal(err)
	}
	return &events.Event{ID: events.RegistryChangedID(rc.Digest, uint64(issuedAt)), Tenant: events.SystemTenant, Body: rc}
}

func TestSignedChangeIsAccepted(t *testing.T) {
	k := mustKey(t)
	ev := signed(t, k, refundYAML, 42)
	r, err := registry.FromEvent(k.Trust(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if r.IssuedAt() != 42 || r.KeyID() != k.KeyID() || r.Digest() != mustParse(t, refundYAML).Digest() {
		t.Fatalf("issued %d key %s digest %s", r.IssuedAt(), r.KeyID(), r.Digest())
	}
	// The change survives the log's encoding.
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	back, err := events.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.FromEvent(k.Trust(), back); err != nil {
		t.Fatal(err)
	}
}

// Every change that is not exactly what a trusted key signed is refused
// with its typed reason, as bad input, before its spec is parsed.
func TestRefusedChanges(t *testing.T) {
	k, other := mustKey(t), mustKey(t)
	trust := k.Trust()
	spec := mustParse(t, refundYAML).Spec()
	yamlBomb := []byte("a: &a [x, x]\nb: &b [*a, *a]\n")
	for _, tc := range []struct {
		name   string
		mut    func(rc *events.RegistryChanged)
		ev     func() *events.Event // instead of a mutation
		trust  *registry.Trust      // with custom: instead of k's
		custom bool
		reason events.Reason
		err    error
	}{
		{name: "unsigned", mut: func(rc *events.RegistryChanged) { rc.Sig, rc.KeyID, rc.IssuedAt = nil, "", 0 },
			reason: events.ReasonRegistryUnsigned, err: registry.ErrUnsigned},
		{name: "written before signing", ev: func() *events.Event {
			r := mustParse(t, refundYAML)
			return &events.Event{ID: "old", Tenant: events.SystemTenant, Body: &events.RegistryChanged{Digest: r.Digest(), Source: "tools.yaml", Spec: r.Spec()}}
		}, reason: events.ReasonRegistryUnsigned, err: registry.ErrUnsigned},
		{name: "another key", trust: other.Trust(), custom: true, reason: events.ReasonRegistryUnknownKey, err: registry.ErrUnknownKey},
		{name: "nil trust", trust: nil, custom: true, reason: events.ReasonRegistryUnknownKey, err: registry.ErrUnknownKey},
		{name: "empty trust", trust: registry.NewTrust(), custom: true, reason: events.ReasonRegistryUnknownKey, err: registry.ErrUnknownKey},
		{name: "signature flipped", mut: func(rc *events.RegistryChanged) { rc.Sig[3] ^= 1 },
			reason: events.ReasonRegistryBadSignature, err: registry.ErrBadSignature},
		{name: "signature cut", mut: func(rc *events.RegistryChanged) { rc.Sig = rc.Sig[:63] },
			reason: events.ReasonRegistryBadSignature, err: registry.ErrBadSignature},
		{name: "spec swapped", mut: func(rc *events.RegistryChanged) {
			r := mustParse(t, "tools: [{name: evil, command: [/bin/sh]}]\ngrants: [{tenant: mallory, permissions: ['*']}]")
			rc.Spec, rc.Digest = r.Spec(), r.Digest()
		}, reason: events.ReasonRegistryBadSignature, err: registry.ErrBadSignature},
		{name: "issue time moved", mut: func(rc *events.RegistryChanged) { rc.IssuedAt++ },
			reason: events.ReasonRegistryBadSignature, err: registry.ErrBadSignature},
		{name: "source changed", mut: func(rc *events.RegistryChanged) { rc.Source = "elsewhere.yaml" },
			reason: events.ReasonRegistryBadSignature, err: registry.ErrBadSignature},
		{name: "key id of another trusted key", mut: func(rc *events.RegistryChanged) { rc.KeyID = other.KeyID() },
			trust: trust.With(other.Public()), custom: true, reason: events.ReasonRegistryBadSignature, err: registry.ErrBadSignature},
		{name: "too large, even unsigned", mut: func(rc *events.RegistryChanged) {
			rc.Spec, rc.Sig, rc.KeyID = bytes.Repeat([]byte(" "), registry.SpecBytesMax+1), nil, ""
		}, reason: events.ReasonRegistryTooLarge, err: registry.ErrSpecTooLarge},
		{name: "signed YAML", mut: func(rc *events.RegistryChanged) {
			rc.Spec, rc.Digest = yamlBomb, digestOf(yamlBomb)
			registry.SignRaw(k, rc)
		}, reason: events.ReasonRegistryInvalid, err: registry.ErrInvalidRegistry},
		{name: "signed JSON, not canonical", mut: func(rc *events.RegistryChanged) {
			loose := append([]byte("{ "), spec[1:]...)
			rc.Spec, rc.Digest = loose, digestOf(loose)
			registry.SignRaw(k, rc)
		}, reason: events.ReasonRegistryInvalid, err: registry.ErrInvalidRegistry},
		{name: "signed, digest not the spec's", mut: func(rc *events.RegistryChanged) {
			rc.Digest = strings.Repeat("0", 64)
			registry.SignRaw(k, rc)
		}, reason: events.ReasonRegistryInvalid, err: registry.ErrInvalidRegistry},
		{name: "signed, spec not a registry", mut: func(rc *events.RegistryChanged) {
			bad := []byte(`{"tools":[{"name":""}]}`)
			rc.Spec, rc.Digest = bad, digestOf(bad)
			registry.SignRaw(k, rc)
		}, reason: events.ReasonRegistryInvalid, err: registry.ErrInvalidRegistry},
		{name: "another kind", ev: func() *events.Event {
			return &events.Event{ID: "tick", Tenant: events.SystemTenant, Body: &events.Tick{}}
		}, reason: events.ReasonRegistryInvalid, err: registry.ErrInvalidRegistry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ev *events.Event
			if tc.ev != nil {
				ev = tc.ev()
			} else {
				ev = signed(t, k, refundYAML, 7)
				if tc.mut != nil {
					tc.mut(ev.Body.(*events.RegistryChanged))
				}
			}
			tr := trust
			if tc.custom {
				tr = tc.trust
			}
			for _, f := range []func() (*registry.Registry, error){
				func() (*registry.Registry, error) { return registry.FromEvent(tr, ev) },
				func() (*registry.Registry, error) { return registry.Accept(tr, nil, ev) },
			} {
				r, err := f()
				if r != nil || !errors.Is(err, tc.err) || !errors.Is(err, events.ErrBadInput) || registry.ReasonOf(err) != tc.reason {
					t.Fatalf("got %v, %v (reason %q); want %q wrapping %v", r, err, registry.ReasonOf(err), tc.reason, tc.err)
				}
				if !strings.Contains(err.Error(), string(tc.reason)) {
					t.Fatalf("the error does not say its reason: %v", err)
				}
			}
		})
	}
}

// Accept orders changes by the issue time the operator signed: a newer
// one replaces the registry in force, the same one again changes nothing,
// an older or equally old other one is stale.
func TestAcceptOrdersChanges(t *testing.T) {
	k := mustKey(t)
	trust := k.Trust()
	a1 := signed(t, k, `tools: [{name: a}]`, 100)
	b2 := signed(t, k, `tools: [{name: b}]`, 200)
	ra, err := registry.Accept(trust, nil, a1)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := registry.Accept(trust, ra, a1); same != ra || err != nil {
		t.Fatalf("the change in force again: %v %v, want a no-op", same, err)
	}
	rb, err := registry.Accept(trust, ra, b2)
	if err != nil || rb.IssuedAt() != 200 {
		t.Fatalf("newer change: %v %v", rb, err)
	}
	for name, ev := range map[string]*events.Event{
		"older":        a1,
		"equally old":  signed(t, k, `tools: [{name: c}]`, 200),
		"much older":   signed(t, k, `tools: [{name: c}]`, 1),
		"same, older":  signed(t, k, `tools: [{name: b}]`, 150),
		"other source": signed(t, k, `tools: [{name: a}]`, 199),
	} {
		if r, err := registry.Accept(trust, rb, ev); r != nil || !errors.Is(err, registry.ErrStale) || registry.ReasonOf(err) != events.ReasonRegistryStale {
			t.Errorf("%s: %v %v, want stale", name, r, err)
		}
	}
	// A registry parsed from a file (issued at 0) gives way to any signed
	// change.
	if r, err := registry.Accept(trust, mustParse(t, `tools: [{name: z}]`), a1); err != nil || r.Digest() != ra.Digest() {
		t.Fatalf("after a file's registry: %v %v", r, err)
	}
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestSignRefuses(t *testing.T) {
	k := mustKey(t)
	r := mustParse(t, `tools: [{name: a}]`)
	if _, err := registry.Sign(nil, r, "", 1); !errors.Is(err, registry.ErrNoSigningKey) {
		t.Errorf("no key: %v", err)
	}
	if _, err := registry.Sign(k, nil, "", 1); !errors.Is(err, registry.ErrInvalidRegistry) {
		t.Errorf("nil registry: %v", err)
	}
	if _, err := registry.Sign(k, r, "", 0); err == nil {
		t.Error("issued at 0 was signed")
	}
}
