package projector_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/projector"
)

// oldTenantKey is TenantKey as it was: parts joined with a bare 0x00.
func oldTenantKey(tenant string, parts ...string) []byte {
	return []byte(tenant + "\x00" + strings.Join(parts, "\x00"))
}

func tenantKey(t testing.TB, tenant string, parts ...string) []byte {
	t.Helper()
	k, err := projector.TenantKey(tenant, parts...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Ids are any strings, 0x00 included: two calls whose (response, item)
// shared a key under the bare join now have two keys, and the prefix of
// one response's calls no longer covers another response's.
func TestTenantKeyIsInjective(t *testing.T) {
	collided := []struct {
		name string
		a, b []string
	}{
		{"call", []string{"c", "a\x00b", "c"}, []string{"c", "a", "b\x00c"}},
		{"held event", []string{"h", "s\x0000000000000000000007", "00000000000000000003"}, []string{"h", "s", "00000000000000000007\x0000000000000000000003"}},
	}
	for _, p := range collided {
		if !bytes.Equal(oldTenantKey("acme", p.a...), oldTenantKey("acme", p.b...)) {
			t.Errorf("%s: %q and %q did not collide before: pick a pair that did", p.name, p.a, p.b)
		}
		if bytes.Equal(tenantKey(t, "acme", p.a...), tenantKey(t, "acme", p.b...)) {
			t.Errorf("%s: %q and %q share a key", p.name, p.a, p.b)
		}
	}
	// The escape byte itself is escaped.
	for _, p := range [][2][]string{
		{{"r", "a\x01\x01"}, {"r", "a\x00"}},
		{{"r", "a\x01", "\x02"}, {"r", "a\x01\x02"}},
	} {
		if bytes.Equal(tenantKey(t, "acme", p[0]...), tenantKey(t, "acme", p[1]...)) {
			t.Errorf("%q and %q share a key", p[0], p[1])
		}
	}

	// The calls of response "a" (assembler: callsPrefix) did cover the calls
	// of response "a\x00b"; they do not now.
	prefix := tenantKey(t, "acme", "c", "a", "")
	other := tenantKey(t, "acme", "c", "a\x00b", "i")
	if !bytes.HasPrefix(oldTenantKey("acme", "c", "a\x00b", "i"), oldTenantKey("acme", "c", "a", "")) {
		t.Error("the old prefix did not cover the other response: pick a pair that did")
	}
	if bytes.HasPrefix(other, prefix) {
		t.Errorf("the calls of response a cover %q", other)
	}

	// Ordinary keys are byte for byte what they were (stored views keep
	// their keys).
	for _, parts := range [][]string{{"c", "resp_1", "call_1"}, {"v", ""}, {"h", "s", "00000000000000000042"}, {"ev", "run:r 1", ""}} {
		if got, want := tenantKey(t, "acme", parts...), oldTenantKey("acme", parts...); !bytes.Equal(got, want) {
			t.Errorf("TenantKey(acme, %q) = %q, was %q", parts, got, want)
		}
	}
}

func partsOf(n uint8, a, b, c string) []string { return []string{a, b, c}[:n%4] }

// Distinct tuples of parts give distinct keys; the key of a tuple followed
// by "" is a prefix of a key exactly when that key's tuple extends it; and
// keys sort as their tuples do.
func FuzzTenantKey(f *testing.F) {
	f.Add(uint8(3), "c", "a\x00b", "c", uint8(3), "c", "a", "b\x00c")
	f.Add(uint8(2), "r", "a\x01\x01", "", uint8(2), "r", "a\x00", "")
	f.Add(uint8(2), "r", "a", "", uint8(3), "r", "a", "")
	f.Add(uint8(2), "r", "\x01", "", uint8(2), "r", "\x02", "")
	f.Add(uint8(1), "", "", "", uint8(2), "", "", "")
	f.Fuzz(func(t *testing.T, na uint8, a1, a2, a3 string, nb uint8, b1, b2, b3 string) {
		pa, pb := partsOf(na, a1, a2, a3), partsOf(nb, b1, b2, b3)
		ka, kb := tenantKey(t, "acme", pa...), tenantKey(t, "acme", pb...)
		if bytes.Equal(ka, kb) != slices.Equal(pa, pb) {
			t.Fatalf("parts %q and %q: keys %q and %q", pa, pb, ka, kb)
		}
		if got, want := bytes.Compare(ka, kb), slices.Compare(pa, pb); got != want {
			t.Fatalf("parts %q and %q compare %d, their keys %q and %q %d", pa, pb, want, ka, kb, got)
		}
		prefix := tenantKey(t, "acme", append(slices.Clone(pa), "")...)
		extends := len(pb) > len(pa) && slices.Equal(pb[:len(pa)], pa)
		if bytes.HasPrefix(kb, prefix) != extends {
			t.Fatalf("the prefix of %q (%q) and the key of %q (%q): extends=%v", pa, prefix, pb, kb, extends)
		}
	})
}
