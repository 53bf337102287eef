package registry_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// aliasBomb is the "billion laughs" of YAML: 9 levels of 9 aliases, a few
// hundred bytes that expand to 9^9 strings.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i < 9; i++ {
		p, c := string(rune('a'+i-1)), string(rune('a'+i))
		b.WriteString(c + ": &" + c + " [" + strings.TrimSuffix(strings.Repeat("*"+p+",", 9), ",") + "]\n")
	}
	b.WriteString("tools: [{name: x, input_schema: {type: object, properties: {p: {enum: *i}}}}]\n")
	return b.String()
}

func TestParseRefusesAliases(t *testing.T) {
	for name, src := range map[string]string{
		"alias bomb": aliasBomb(),
		"anchor":     "tools: [&t {name: a}]",
		"alias":      "x: &n a\ntools: [{name: *n}]",
		"merge":      "base: &b {timeout: 1s}\ntools: [{<<: *b, name: a}]",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := registry.Parse([]byte(src))
		runtime.ReadMemStats(&after)
		var fe *registry.FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v, want a FieldError saying anchors and aliases are not supported", name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: %d bytes allocated to refuse %d bytes", name, alloc, len(src))
		}
	}
	if n := len(aliasBomb()); n > 600 {
		t.Fatalf("the bomb is %d bytes; the issue's is 443", n)
	}
}

func TestParseBudgets(t *testing.T) {
	var fe *registry.FieldError
	big := append([]byte("tools: []\n#"), bytes.Repeat([]byte("x"), registry.FileBytesMax)...)
	if _, err := registry.Parse(big); !errors.As(err, &fe) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a file larger than FileBytesMax: %v", err)
	}
	path := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Load(path); !errors.As(err, &fe) {
		t.Errorf("Load of a file larger than FileBytesMax: %v", err)
	}
	if _, err := registry.NewWatcher(registry.WatcherConfig{Path: path}); !errors.As(err, &fe) {
		t.Errorf("NewWatcher on a file larger than FileBytesMax: %v", err)
	}
	deep := `{"tools":[{"name":"a","input_schema":` + strings.Repeat(`{"not":`, 100) + `{}` + strings.Repeat(`}`, 100) + `}]}`
	if _, err := registry.Parse([]byte(deep)); !errors.As(err, &fe) || !strings.Contains(err.Error(), "nested") {
		t.Errorf("JSON nested 100 deep: %v", err)
	}
	deepYAML := "tools: [{name: a, input_schema: " + strings.Repeat("{not: ", 100) + "{}" + strings.Repeat("}", 100) + "}]"
	if _, err := registry.Parse([]byte(deepYAML)); !errors.As(err, &fe) || !strings.Contains(err.Error(), "nested") {
		t.Errorf("YAML nested 100 deep: %v", err)
	}
}

// FuzzParse: Parse never panics, and a registry it builds round-trips
// through the log's form (canonical JSON, signed) to the same digest.
func FuzzParse(f *testing.F) {
	if testing.Short() {
		f.Skip("fuzz target: skipped under -short")
	}
	for _, seed := range []string{refundYAML, aliasBomb(), `{"tools":[{"name":"a"}]}`, "tools: [{name: a, timeout: 1s}]",
		"tools: [{name: a, input_schema: {type: object, properties: {n: {type: integer, multipleOf: 1e-300}}}}]",
		"grants: [{tenant: acme, permissions: ['*']}]", "[", "{", "\xff", "tools: [{name: a, version: 99999999999999999999}]"} {
		f.Add([]byte(seed))
	}
	key, err := registry.GenerateKey()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := registry.Parse(data)
		if err != nil {
			if !errors.Is(err, registry.ErrInvalidRegistry) {
				t.Fatalf("an error that is not ErrInvalidRegistry: %v", err)
			}
			return
		}
		again, err := registry.Parse(r.Spec())
		if err != nil || again.Digest() != r.Digest() {
			t.Fatalf("the canonical spec does not parse to itself: %v\n%s", err, r.Spec())
		}
		rc, err := registry.Sign(key, r, "fuzz", 1)
		if err != nil {
			return // a spec larger than SpecBytesMax
		}
		back, err := registry.FromEvent(key.Trust(), &events.Event{ID: "fuzz", Tenant: events.SystemTenant, Body: rc})
		if err != nil || back.Digest() != r.Digest() {
			t.Fatalf("the signed change does not verify: %v", err)
		}
	})
}

// Numbers the schema library would choke on (1e-99999999 crashes it,
// 1e-999999 costs a tenth of a second each) are refused before it sees
// them: in a tools file, in a call's arguments, in a coercion.
func TestNumbersOutOfRange(t *testing.T) {
	for _, n := range []string{"1e-99999999", "1e999999", "1" + strings.Repeat("0", 200)} {
		_, err := registry.Parse([]byte(`{"tools":[{"name":"a","input_schema":{"type":"object","properties":{"n":{"multipleOf":` + n + `}}}}]}`))
		var fe *registry.FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("tools file with %.20s: %v", n, err)
		}
	}
	r := mustParse(t, "tools: [{name: a, coerce: true, input_schema: {type: object, properties: {n: {type: number, multipleOf: 0.5}}}}]\ngrants: [{tenant: acme, permissions: [a]}]")
	for args, want := range map[string]events.Reason{
		`{"n": 1e-99999999}`:   events.ReasonInvalidJSON,
		`{"n": [1e999999]}`:    events.ReasonInvalidJSON,
		`{"n": "1e-99999999"}`: events.ReasonSchemaViolation, // not coerced: a string is not a number
		`{"n": 1.5e2}`:         "",
	} {
		_, _, reason, detail := r.Validate("acme", "a", []byte(args))
		if reason != want {
			t.Errorf("%s: %q %s, want %q", args, reason, detail, want)
		}
	}
}
