package events

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// general decodes the envelope with the reflection decoder, as Decode does
// when the fast path declines.
func general(data []byte) (Event, int, error) {
	var ev Event
	rd := bytes.NewReader(data)
	dec := msgpack.NewDecoder(rd)
	err := dec.Decode(&ev)
	return ev, len(data) - rd.Len(), err
}

// TestEnvelopeFastPathAgreesWithTheGeneralDecoder: for envelopes of every
// kind with empty, short and long (str8, str16, str32) strings and extreme
// times, the fast path reads what the general decoder reads and ends where
// it ends.
func TestEnvelopeFastPathAgreesWithTheGeneralDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lens := []int{0, 1, 31, 32, 255, 256, 65535, 65536}
	s := func() string {
		if rng.IntN(3) == 0 {
			return ""
		}
		return strings.Repeat("x", lens[rng.IntN(len(lens))])
	}
	ats := []int64{0, 1, -1, 127, 128, -33, 255, 65535, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, 1_700_000_000_000_000_000}
	kinds := Kinds()
	for i := range 2000 {
		ev := &Event{ID: "id" + s(), Tenant: "acme", User: s(), Session: s(), Run: s(), Step: s(), Response: s(),
			Item: s(), CallID: s(), Causation: s(), At: ats[rng.IntN(len(ats))]}
		kind := kinds[rng.IntN(len(kinds))]
		ev.Body = catalogue[kind].new()
		data, err := Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		var fast Event
		off, ok := decodeEnvelope(data, &fast)
		if !ok {
			t.Fatalf("case %d: the fast path declined Encode's own output", i)
		}
		want, wantOff, err := general(data)
		if err != nil {
			t.Fatal(err)
		}
		if fast != want || off != wantOff {
			t.Fatalf("case %d: fast %+v at %d, general %+v at %d", i, fast, off, want, wantOff)
		}
	}
	for i := range 500 {
		d := s()
		data, err := Encode(&Event{ID: "e", Tenant: "acme", Item: s(), At: int64(i), Body: &ArgumentsDelta{Delta: d}})
		if err != nil {
			t.Fatal(err)
		}
		var env Event
		off, ok := decodeEnvelope(data, &env)
		body, bok := decodeDelta(&env, data[off:])
		if !ok || !bok || body.(*ArgumentsDelta).Delta != d {
			t.Fatalf("delta of %d bytes: fast path %v %v", len(d), ok, bok)
		}
	}
}

// FuzzEnvelopeFastPath: whatever bytes the fast path accepts, the general
// decoder reads the same envelope from them.
func FuzzEnvelopeFastPath(f *testing.F) {
	for _, k := range Kinds() {
		data, _ := Encode(&Event{ID: "e", Tenant: "acme", Response: "r", At: 5, Body: catalogue[k].new()})
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Event
		off, ok := decodeEnvelope(data, &fast)
		if !ok {
			return
		}
		want, wantOff, err := general(data)
		if err != nil {
			t.Fatalf("fast path accepted what the general decoder refuses: %v", err)
		}
		if fast != want || off != wantOff {
			t.Fatalf("fast %+v at %d, general %+v at %d", fast, off, want, wantOff)
		}
		if body, ok := decodeDelta(&fast, data[off:]); ok {
			var d ArgumentsDelta
			if err := msgpack.Unmarshal(data[off:], &d); err != nil || d != *body.(*ArgumentsDelta) {
				t.Fatalf("delta fast path read %+v, general %+v (%v)", body, d, err)
			}
		}
	})
}

// BenchmarkDecodeDelta: decoding an argument delta, the log's most common
// event, with the envelope fast path against the general decoder alone.
//
//	go test -run '^$' -bench DecodeDelta ./events/
func BenchmarkDecodeDelta(b *testing.B) {
	data, err := Encode(&Event{ID: "model/acme/s1/1234/0", Tenant: "acme", Response: "resp_1", Item: "fc_1",
		CallID: "call_1", Causation: "seq:1234", At: 1_700_000_000_000_000_000, Body: &ArgumentsDelta{Delta: `{"city":`}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) { // Decode before the fast path
		rd := new(bytes.Reader)
		for b.Loop() {
			rd.Reset(data)
			dec := msgpack.GetDecoder()
			dec.Reset(rd)
			var ev Event
			var body ArgumentsDelta
			if err := dec.Decode(&ev); err != nil {
				b.Fatal(err)
			}
			if err := dec.Decode(&body); err != nil {
				b.Fatal(err)
			}
			msgpack.PutDecoder(dec)
		}
	})
}

// TestEnvelopeFastEncoderAgreesWithTheGeneralEncoder: for envelopes with
// empty, short and long strings, every kind, extreme times and versions,
// appendEnvelope writes the bytes the reflection encoder writes for the
// Event struct, so the log's bytes (and the ids and digests over them) do
// not depend on which encoder wrote them.
func TestEnvelopeFastEncoderAgreesWithTheGeneralEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lens := []int{0, 1, 31, 32, 255, 256, 65535, 65536}
	s := func() string {
		if rng.IntN(3) == 0 {
			return ""
		}
		return strings.Repeat("é", lens[rng.IntN(len(lens))]/2)
	}
	ats := []int64{0, 1, -1, 127, 128, -33, 255, 65535, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, 1_700_000_000_000_000_000}
	vs := []uint16{0, 1, 127, 128, 255, 256, math.MaxUint16}
	kinds := Kinds()
	for i := range 3000 {
		ev := &Event{ID: s(), Kind: kinds[rng.IntN(len(kinds))], V: vs[rng.IntN(len(vs))], Tenant: s(), User: s(), Session: s(),
			Run: s(), Step: s(), Response: s(), Item: s(), CallID: s(), Causation: s(), At: ats[rng.IntN(len(ats))], Sealed: s()}
		var want bytes.Buffer
		enc := msgpack.NewEncoder(&want)
		enc.SetSortMapKeys(true)
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
		if got := appendEnvelope(nil, ev); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("case %d %+v:\nfast    %x\ngeneral %x", i, ev, got, want.Bytes())
		}
	}
}

// BenchmarkEncode: encoding a call's outcome, the executor's event.
//
//	go test -run '^$' -bench Encode ./events/
func BenchmarkEncode(b *testing.B) {
	ev := &Event{ID: "result/acme/k/1", Tenant: "acme", Response: "resp_1", Item: "fc_1", CallID: "call_1",
		Causation: "completed/acme/resp_1/fc_1", At: 1_700_000_000_000_000_000, Body: &CallSucceeded{Name: "noop", Result: []byte(`{}`)}}
	for b.Loop() {
		if _, err := Encode(ev); err != nil {
			b.Fatal(err)
		}
	}
}
