package events_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// memKeys is an in-memory keyring: one key per (tenant, scope), erasable.
type memKeys struct {
	mu   sync.Mutex
	keys map[string]cipher.AEAD
	gen  int
}

func (k *memKeys) SealKey(tenant, scope string) (string, cipher.AEAD, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil {
		k.keys = map[string]cipher.AEAD{}
	}
	name := tenant + "|" + scope
	for id, a := range k.keys {
		if len(id) > len(name) && id[:len(name)] == name {
			return id[len(name)+1:], a, nil
		}
	}
	k.gen++
	block, _ := aes.NewCipher(bytes.Repeat([]byte{byte(k.gen)}, 32))
	a, _ := cipher.NewGCM(block)
	id := fmt.Sprint(k.gen)
	k.keys[name+"#"+id] = a
	return id, a, nil
}

func (k *memKeys) OpenKey(tenant, scope, id string) (cipher.AEAD, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if a, ok := k.keys[tenant+"|"+scope+"#"+id]; ok {
		return a, nil
	}
	return nil, events.ErrErased
}

func (k *memKeys) erase(tenant, scope string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id := range k.keys {
		if len(id) > len(tenant+"|"+scope) && id[:len(tenant+"|"+scope)+1] == tenant+"|"+scope+"#" {
			delete(k.keys, id)
		}
	}
}

func TestSealedBodiesOpenOnlyWithTheirKey(t *testing.T) {
	kr := &memKeys{}
	secret := "my card is 4242 4242 4242 4242"
	for _, ev := range []*events.Event{
		{ID: "d1", Tenant: "acme", User: "ann", Response: "r", Item: "i", Body: &events.ArgumentsDelta{Delta: secret}},
		{ID: "t1", Tenant: "acme", User: "ann", Response: "r", Item: "i", Body: &events.TextDelta{Text: secret}},
		{ID: "c1", Tenant: "acme", User: "ann", Response: "r", Item: "i", Body: &events.CallCompleted{Name: "pay", Arguments: []byte(`{"card":"` + secret + `"}`)}},
	} {
		data, err := events.EncodeSealed(ev, kr, "")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("4242")) {
			t.Fatalf("%s: the sealed encoding holds the text", ev.ID)
		}
		got, err := events.DecodeWith(data, kr)
		if err != nil {
			t.Fatalf("%s: %v", ev.ID, err)
		}
		want, _ := events.Encode(ev)
		again, _ := events.Encode(&events.Event{ID: got.ID, Tenant: got.Tenant, User: got.User, Response: got.Response, Item: got.Item, Body: got.Body})
		if !bytes.Equal(want, again) || got.Scope() != events.UserScope("ann") {
			t.Fatalf("%s: opened %+v, scope %q", ev.ID, got.Body, got.Scope())
		}
		if _, err := events.Decode(data); !errors.Is(err, events.ErrSealed) {
			t.Fatalf("%s without a keyring: %v, want ErrSealed", ev.ID, err)
		}
		// A body moved to another event does not open.
		moved := bytes.Replace(data, []byte(ev.ID), []byte("x"+ev.ID[1:]), 1)
		if _, err := events.DecodeWith(moved, kr); !errors.Is(err, events.ErrMalformed) {
			t.Fatalf("%s moved: %v, want ErrMalformed", ev.ID, err)
		}
	}
	// Erasing the key makes every event it sealed erased, not garbage.
	data, _ := events.EncodeSealed(&events.Event{ID: "d2", Tenant: "acme", User: "ann", Response: "r", Item: "i", Body: &events.ArgumentsDelta{Delta: secret}}, kr, "")
	other, _ := events.EncodeSealed(&events.Event{ID: "d3", Tenant: "acme", User: "bob", Response: "r", Item: "i", Body: &events.ArgumentsDelta{Delta: "bob's"}}, kr, "")
	kr.erase("acme", events.UserScope("ann"))
	if _, err := events.DecodeWith(data, kr); !errors.Is(err, events.ErrErased) || errors.Is(err, events.ErrBadInput) {
		t.Fatalf("after erasure: %v, want ErrErased (not bad input)", err)
	}
	if ev, err := events.DecodeWith(other, kr); err != nil || ev.Body.(*events.ArgumentsDelta).Delta != "bob's" {
		t.Fatalf("another user's event after the erasure: %v", err)
	}
	// Kinds without personal data stay in the clear.
	tick, err := events.EncodeSealed(&events.Event{ID: "tick", Tenant: events.SystemTenant, Body: &events.Tick{}}, kr, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.Decode(tick); err != nil {
		t.Fatalf("a tick is sealed: %v", err)
	}
}

// TestEnvelopeOfAnErasedRecord: once a record's key is destroyed its event
// no longer opens, but its envelope still says which record it was — the
// scope names it — and nothing of its text.
func TestEnvelopeOfAnErasedRecord(t *testing.T) {
	kr := &memKeys{}
	scope := events.RecordScope("ann/1", "m#2")
	ev := &events.Event{ID: "e1", Tenant: "acme", User: "ann/1", At: 42,
		Body: &events.MemoryObserved{Observation: events.Observation{ID: "m#2", Text: "I love sushi", Sentence: "m"}}}
	data, err := events.EncodeSealed(ev, kr, scope)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := events.DecodeWith(data, kr); err != nil || got.Scope() != scope {
		t.Fatalf("decode before the erasure: %v (a '/' or '#' of an id must not cut the scope)", err)
	}
	kr.erase("acme", scope)
	if _, err := events.DecodeWith(data, kr); !errors.Is(err, events.ErrErased) {
		t.Fatalf("decode after the erasure: %v", err)
	}
	env, err := events.Envelope(data)
	if err != nil {
		t.Fatal(err)
	}
	if env.ID != "e1" || env.Kind != events.KindMemoryObserved || env.Tenant != "acme" || env.User != "ann/1" || env.At != 42 || env.Body != nil {
		t.Fatalf("envelope %+v", env)
	}
	rec, err := events.ScopeRecord(env.Scope())
	if err != nil || rec != "m#2" {
		t.Fatalf("ScopeRecord(%q) = %q, %v", env.Scope(), rec, err)
	}
	if _, err := events.ScopeRecord(events.UserScope("ann")); !errors.Is(err, events.ErrMalformed) {
		t.Fatalf("ScopeRecord of a user scope: %v", err)
	}
	if _, err := events.Envelope([]byte{0xc1}); !errors.Is(err, events.ErrBadInput) {
		t.Fatalf("Envelope of garbage: %v", err)
	}
}

// Sealed bodies are opened into reused buffers: what a decoded event holds
// must be its own copy, unchanged by the decodes that follow.
func TestDecodedSealedEventsShareNoBuffer(t *testing.T) {
	kr := &memKeys{}
	mk := func(i int) []byte {
		t.Helper()
		bodies := []events.Body{
			&events.ArgumentsDelta{Delta: strings.Repeat(string(rune('a'+i%26)), 40)},
			&events.CallCompleted{Name: "t" + strings.Repeat("x", i%7), Arguments: json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)},
			&events.TextDelta{Text: strings.Repeat(string(rune('A'+i%26)), 30+i%50)},
		}
		data, err := events.EncodeSealed(&events.Event{ID: "e" + strconv.Itoa(i), Tenant: "acme", User: "ann", Response: "r", Item: "i", V: 1, Body: bodies[i%3]}, kr, "")
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	var got []*events.Event
	var want []string
	for i := range 60 {
		data := mk(i)
		ev, err := events.DecodeWith(data, kr)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
		want = append(want, fmt.Sprintf("%+v", ev.Body))
	}
	for i, ev := range got {
		if s := fmt.Sprintf("%+v", ev.Body); s != want[i] {
			t.Fatalf("event %d changed after later decodes: %s, was %s", i, s, want[i])
		}
	}
}

// TestEnvelopeWithRefusesWhatDecodeRefusesForItsEnvelope: EnvelopeWith
// reads an event without its body, and answers as DecodeWith would for
// what the envelope tells — a destroyed key, no keyring for a sealed body,
// an unknown kind or version — while a body it does not read is not looked
// at (a corrupted ciphertext that DecodeWith refuses).
func TestEnvelopeWithRefusesWhatDecodeRefusesForItsEnvelope(t *testing.T) {
	kr := &memKeys{}
	seal := func(ev *events.Event) []byte {
		t.Helper()
		data, err := events.EncodeSealed(ev, kr, "")
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	delta := func(user string) *events.Event {
		return &events.Event{ID: "e-" + user, Tenant: "acme", User: user, Response: "r1", Item: "i1", At: 7,
			Body: &events.ArgumentsDelta{Delta: `{"city":"北京"}`}}
	}
	erased := seal(delta("bob"))
	kr.erase("acme", events.UserScope("bob"))
	corrupt := seal(delta("ann"))
	corrupt[len(corrupt)-1] ^= 1
	newer := delta("ann")
	newer.V = events.Version(events.KindArgumentsDelta) + 1
	for _, tc := range []struct {
		name string
		data []byte
		kr   events.Keyring
		want error // nil: read, with the envelope's fields
	}{
		{"sealed, key held", seal(delta("ann")), kr, nil},
		{"in the clear, no keyring", func() []byte { d, _ := events.Encode(delta("ann")); return d }(), nil, nil},
		{"a body it does not read, corrupted", corrupt, kr, nil},
		{"key destroyed", erased, kr, events.ErrErased},
		{"sealed, no keyring", seal(delta("ann")), nil, events.ErrSealed},
		{"newer version", seal(newer), kr, events.ErrUnknownVersion},
		{"garbage", []byte{0xc1}, kr, events.ErrBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := events.EnvelopeWith(tc.data, tc.kr)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err %v, want %v", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != events.KindArgumentsDelta || ev.Tenant != "acme" || ev.Response != "r1" || ev.Item != "i1" || ev.At != 7 || ev.Body != nil {
				t.Fatalf("envelope %+v", ev)
			}
		})
	}
	if _, err := events.DecodeWith(corrupt, kr); !errors.Is(err, events.ErrMalformed) {
		t.Fatalf("DecodeWith of the corrupted body: %v, want ErrMalformed", err)
	}
}
