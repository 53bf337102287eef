package events_test

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

// envelopeOf returns the encoded envelope of an event with body, to which
// a hand-made body is appended.
func envelopeOf(t *testing.T, body events.Body) []byte {
	t.Helper()
	data, err := events.Encode(&events.Event{ID: "x", Tenant: "acme", At: 1, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	b, err := msgpack.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return data[:len(data)-len(b)]
}

func be32(op byte, n uint32) []byte { return binary.BigEndian.AppendUint32([]byte{op}, n) }

// Declared lengths are checked against the bytes that remain before the
// decoder allocates anything: an event that declares four billion claims,
// entries or bytes in a few bytes is malformed, and refusing it allocates
// next to nothing.
func TestDecodeBudget(t *testing.T) {
	answer := envelopeOf(t, &events.AnswerVerified{})
	claimsKey := append([]byte{0x81, 0xa2}, "cl"...)
	deep := append([]byte{}, answer...)
	deep = append(deep, claimsKey...)
	for range 200 {
		deep = append(deep, 0x91) // an array of one array of one…
	}
	deep = append(deep, 0xc0)
	wide := append(append([]byte{}, answer...), claimsKey...)
	wide = append(wide, be32(0xdd, 1<<17)...)
	for range 1 << 17 {
		wide = append(wide, 0xc0) // present, but more values than an event holds
	}
	for name, data := range map[string][]byte{
		"array32 of claims":    append(append(append([]byte{}, answer...), claimsKey...), be32(0xdd, 0xffffffff)...),
		"array32, 1 MiB given": append(append(append(append([]byte{}, answer...), claimsKey...), be32(0xdd, 0xffffffff)...), make([]byte, 1<<20)...),
		"map32 body":           append(append([]byte{}, answer...), be32(0xdf, 0xffffffff)...),
		"str32":                append(append(append([]byte{}, answer...), 0x81), be32(0xdb, 0xffffffff)...),
		"bin32":                append(append(append([]byte{}, answer...), 0x81), be32(0xc6, 0xffffffff)...),
		"ext32":                append(append(append([]byte{}, answer...), 0x81), be32(0xc9, 0xffffffff)...),
		"map32 envelope":       be32(0xdf, 0xffffffff),
		"nested 200 deep":      deep,
		"131072 values":        wide,
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ev, err := events.Decode(data)
		runtime.ReadMemStats(&after)
		if ev != nil || !errors.Is(err, events.ErrMalformed) {
			t.Errorf("%s: %v %v, want ErrMalformed", name, ev, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
			t.Errorf("%s: %d bytes allocated to refuse it", name, alloc)
		}
	}
	// What every event of the catalogue looks like passes.
	for _, ev := range sample() {
		b, _ := events.Encode(ev)
		if _, err := events.Decode(b); err != nil {
			t.Errorf("%s: %v", ev.Kind, err)
		}
	}
}
