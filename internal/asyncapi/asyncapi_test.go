package asyncapi_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/asyncapi"
	"go.yaml.in/yaml/v3"
)

const committed = "../../docs/asyncapi.yaml"

// TestDocumentIsCurrent fails when the committed document and the
// catalogue drift apart: a kind, a field, a channel or a doc comment
// changed in package events and the document was not generated again.
func TestDocumentIsCurrent(t *testing.T) {
	want, err := asyncapi.Document("../../events")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("%v: generate it with go generate ./internal/asyncapi", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end)"
		}
		t.Fatalf("%s is not what the catalogue gives (first difference at line %d: %q, the catalogue gives %q): run go generate ./internal/asyncapi and commit it",
			committed, i+1, line(gl), line(wl))
	}
	again, err := asyncapi.Document("../../events")
	if err != nil || !bytes.Equal(again, want) {
		t.Fatalf("the document is not deterministic (%v)", err)
	}
}

// The document is an AsyncAPI 3 document that names every kind with its
// envelope and every field of its body under its msgpack key.
func TestDocumentNamesEveryKindAndField(t *testing.T) {
	data, err := asyncapi.Document("../../events")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AsyncAPI   string                              `yaml:"asyncapi"`
		Channels   map[string]struct{ Address string } `yaml:"channels"`
		Operations map[string]struct {
			Action  string
			Channel struct {
				Ref string `yaml:"$ref"`
			}
		} `yaml:"operations"`
		Components struct {
			Messages map[string]struct {
				Name    string
				XSealed bool `yaml:"x-sealed"`
			}
			Schemas map[string]struct {
				Properties map[string]struct {
					GoName string `yaml:"x-go-name"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.AsyncAPI != "3.0.0" {
		t.Fatalf("asyncapi %q", doc.AsyncAPI)
	}
	for _, ch := range events.Channels() {
		if doc.Channels[ch.Name].Address != ch.Address {
			t.Errorf("channel %s: address %q, want %q", ch.Name, doc.Channels[ch.Name].Address, ch.Address)
		}
	}
	for name, op := range doc.Operations {
		if _, ok := doc.Channels[strings.TrimPrefix(op.Channel.Ref, "#/channels/")]; !ok || op.Action != "receive" {
			t.Errorf("operation %s: %s of %q", name, op.Action, op.Channel.Ref)
		}
	}
	byKind := map[string]string{}
	for name, m := range doc.Components.Messages {
		byKind[m.Name] = name
		if k := events.Kind(m.Name); events.Version(k) > 0 && m.XSealed != events.Sealed(k) {
			t.Errorf("message %s: x-sealed %v, events.Sealed says %v", name, m.XSealed, events.Sealed(k))
		}
	}
	env := doc.Components.Schemas["Envelope"].Properties
	for _, key := range []string{"id", "k", "v", "t", "u", "run", "r", "i", "c", "at", "kx"} {
		if env[key].GoName == "" {
			t.Errorf("the envelope has no key %s", key)
		}
	}
	// CallCompleted's keys, as Go writes them.
	want := []string{"a", "af", "bi", "co", "cr", "do", "ix", "n", "o", "pv", "rp"}
	var got []string
	for k := range doc.Components.Schemas["CallCompleted"].Properties {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("CallCompleted keys %v, want %v", got, want)
	}
	for _, k := range events.Kinds() {
		if byKind[string(k)] == "" {
			t.Errorf("kind %s has no message", k)
		}
	}
}
