package events

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// gen makes values of every length and width class the wire format
// distinguishes: strings of 0 to 65,536 bytes (ASCII and not), ints from
// MinInt64 to MaxInt64, slices nil, empty and of up to 17 elements.
type gen struct{ rng *rand.Rand }

func (g gen) str() string {
	lens := []int{0, 0, 1, 5, 31, 32, 255, 256, 65535, 65536}
	l := lens[g.rng.IntN(len(lens))]
	if g.rng.IntN(4) == 0 {
		return strings.Repeat("é", l/2) // two bytes a rune
	}
	if g.rng.IntN(8) == 0 {
		return strings.Repeat("调", l/3+1)
	}
	return strings.Repeat("x", l)
}

func (g gen) int() int {
	ints := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	if g.rng.IntN(3) == 0 {
		return int(g.rng.Int64())
	}
	return int(ints[g.rng.IntN(len(ints))])
}

func (g gen) bytes() []byte {
	switch g.rng.IntN(4) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	return []byte(g.str())
}

func (g gen) strs() []string {
	switch g.rng.IntN(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	ss := make([]string, g.rng.IntN(18))
	for i := range ss {
		ss[i] = g.str()
	}
	return ss
}

func (g gen) callCompleted() *CallCompleted {
	return &CallCompleted{Name: g.str(), Index: g.int(), Arguments: g.bytes(), Coerced: g.strs(), Repaired: g.strs(),
		DependsOn: g.strs(), Order: g.int(), After: g.strs(), ClientRuns: g.rng.IntN(2) == 0, Builtin: g.rng.IntN(2) == 0,
		From: Provenance{FirstSeq: g.rng.Uint64() >> g.rng.IntN(64), LastSeq: g.rng.Uint64() >> g.rng.IntN(64),
			Deltas: g.int(), Bytes: g.int(), OpenedAt: int64(g.int())}}
}

func (g gen) callSucceeded() *CallSucceeded {
	s := &CallSucceeded{Name: g.str(), Version: g.int(), Key: g.str(), Result: g.bytes(), Summary: g.str(),
		RawRef: g.str(), Excerpt: g.bytes(), Attempts: g.int(), FreshFor: time.Duration(g.int())}
	switch g.rng.IntN(3) {
	case 0:
	case 1:
		s.Cuts = []ArrayCut{}
	default:
		s.Cuts = make([]ArrayCut, g.rng.IntN(18))
		for i := range s.Cuts {
			s.Cuts[i] = ArrayCut{Pointer: g.str(), Len: g.int(), Kept: g.int()}
		}
	}
	return s
}

// reflective is the body's bytes as Encode wrote them before the codec:
// msgpack's encoder with sorted map keys.
// streamFrames is a StreamFrames of no frames (nil or empty) or up to 20,
// each with or without its event name and data.
func (g gen) streamFrames() *StreamFrames {
	s := &StreamFrames{Pos: int64(g.int())}
	switch g.rng.IntN(5) {
	case 0:
		return s
	case 1:
		s.Frames = []FrameData{}
		return s
	}
	s.Frames = make([]FrameData, 1+g.rng.IntN(20))
	for i := range s.Frames {
		s.Frames[i] = FrameData{Event: g.str(), Data: g.str()}
	}
	return s
}

func reflective(t testing.TB, b Body) []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBodyCodecIsMsgpack: for 3,000 generated bodies of each hand-encoded
// kind (every length and width class, empty and nil slices, zero values
// left out by omitempty), the hand encoder writes msgpack's bytes, and
// Encode and EncodeSealed of an event holding one open to the same body;
// for 3,000 generated CallCompleted, the hand decoder reads msgpack's
// bytes and answers what msgpack.Unmarshal answers.
func TestBodyCodecIsMsgpack(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	g := gen{rand.New(rand.NewPCG(7, 11))}
	kr := testKeyring(t)
	for i := range n {
		bodies := []bodyAppender{
			g.callSucceeded(),
			&CallFailed{Name: g.str(), Version: g.int(), Key: g.str(), Error: ErrorType(g.str()), Message: g.str(), Attempts: g.int()},
			&ExecutionStarted{Name: g.str(), Version: g.int(), Attempt: g.int(), Executor: g.str(), Key: g.str()},
			g.streamFrames(),
			g.callCompleted(),
		}
		if i == 0 {
			bodies = append(bodies, &CallSucceeded{}, &CallFailed{}, &ExecutionStarted{}, &StreamFrames{}, &StreamFrames{Frames: []FrameData{}},
				&CallCompleted{}, &CallCompleted{Arguments: []byte{}, Coerced: []string{}, After: []string{"a"}, ClientRuns: true, Builtin: true})
		}
		for _, b := range bodies {
			want := reflective(t, b.(Body))
			if got := b.appendMsgpack(nil); !bytes.Equal(got, want) {
				t.Fatalf("case %d: %T encodes as\n% x\nmsgpack writes\n% x", i, b, trim(got), trim(want))
			}
			ev := &Event{ID: "e1", Tenant: "acme", User: "u1", At: int64(i), Body: b.(Body)}
			data, err := Encode(ev)
			if err != nil {
				t.Fatal(err)
			}
			if wantEv := append(appendEnvelope(nil, ev), want...); !bytes.Equal(data, wantEv) {
				t.Fatalf("case %d: Encode of %T differs from the envelope and msgpack's body", i, b)
			}
			for _, enc := range []func() ([]byte, error){func() ([]byte, error) { return Encode(ev) },
				func() ([]byte, error) { return EncodeSealed(ev, kr, "") }} {
				data, err := enc()
				if err != nil {
					t.Fatal(err)
				}
				got, err := DecodeWith(data, kr)
				if err != nil {
					t.Fatalf("case %d: %T: %v", i, b, err)
				}
				var back = reflect.New(reflect.TypeOf(b).Elem()).Interface()
				if err := msgpack.Unmarshal(want, back); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Body, back) {
					t.Fatalf("case %d: %T decodes other than msgpack reads it", i, b)
				}
			}
		}
		c := g.callCompleted()
		if i == 0 {
			c = &CallCompleted{}
		}
		data := reflective(t, c)
		got, ok := decodeCallCompleted(data)
		if !ok {
			t.Fatalf("case %d: msgpack's CallCompleted not read by hand:\n% x", i, trim(data))
		}
		want := new(CallCompleted)
		if err := msgpack.Unmarshal(data, want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, Body(want)) {
			t.Fatalf("case %d: CallCompleted read by hand differs from msgpack's:\n% x", i, trim(data))
		}
		for _, enc := range []func(*Event) ([]byte, error){Encode, func(ev *Event) ([]byte, error) { return EncodeSealed(ev, kr, "") }} {
			ev := &Event{ID: "e1", Tenant: "acme", User: "u1", At: int64(i), Body: c}
			data, err := enc(ev)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeWith(data, kr)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if !reflect.DeepEqual(back.Body, Body(want)) {
				t.Fatalf("case %d: DecodeWith's CallCompleted differs from msgpack's", i)
			}
		}
	}
}

func trim(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

func testKeyring(t testing.TB) Keyring {
	t.Helper()
	block, err := aes.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return oneKey{aead}
}

// checkFastAgainstMsgpack holds the hand decoder to msgpack's on data:
// where it answers, msgpack reads the same value, whole, and nothing
// after it.
func checkFastAgainstMsgpack(t *testing.T, data []byte) (fast bool) {
	t.Helper()
	got, ok := decodeCallCompleted(data)
	if !ok {
		return false
	}
	if !checkBounds(data) { // DecodeWith walks no body the hand decoder reads
		t.Fatalf("read by hand past the decoding budget:\n% x", trim(data))
	}
	want := new(CallCompleted)
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(want); err != nil {
		t.Fatalf("read by hand, refused by msgpack (%v):\n% x", err, trim(data))
	}
	if rest, _ := dec.Buffered().(*bytes.Reader); rest != nil && rest.Len() != 0 {
		t.Fatalf("read by hand with %d bytes after the body msgpack leaves", rest.Len())
	}
	if !reflect.DeepEqual(got, Body(want)) {
		t.Fatalf("read by hand other than msgpack reads it:\n% x", trim(data))
	}
	return true
}

// TestBodyDecoderIsMsgpack: bodies in other layouts than the encoder's —
// keys reordered, unknown, repeated; nil strings, a str for a bin, empty
// and nil arrays, nil for a struct; truncated and with bytes after — are
// either read by hand as msgpack reads them or left to msgpack, and
// DecodeWith answers for each exactly what msgpack's decoder answers.
func TestBodyDecoderIsMsgpack(t *testing.T) {
	type kv struct {
		k string
		v any
	}
	enc := func(fields ...kv) []byte {
		var buf bytes.Buffer
		e := msgpack.NewEncoder(&buf)
		_ = e.EncodeMapLen(len(fields))
		for _, f := range fields {
			_ = e.EncodeString(f.k)
			_ = e.Encode(f.v)
		}
		return buf.Bytes()
	}
	pv := map[string]any{"fs": uint64(1), "ls": uint64(2), "nd": 3, "nb": 4, "oa": int64(5)}
	cases := []struct {
		name string
		data []byte
		fast bool
	}{
		{"reordered", enc(kv{"pv", pv}, kv{"o", 2}, kv{"a", []byte(`{}`)}, kv{"n", "get"}, kv{"ix", 1}), true},
		{"unicode", enc(kv{"n", "查询天气"}, kv{"a", []byte(`{"城市":"北京"}`)}, kv{"co", []string{"/é"}}), true},
		{"empty arrays", enc(kv{"co", []string{}}, kv{"af", []string{}}), true},
		{"nil arrays", enc(kv{"co", nil}, kv{"rp", nil}, kv{"do", nil}, kv{"af", nil}), true},
		{"nil arguments", enc(kv{"a", nil}), true},
		{"unknown key", enc(kv{"n", "get"}, kv{"zz", 1}), false},
		{"unknown key in provenance", enc(kv{"pv", map[string]any{"fs": 1, "zz": "x"}}), false},
		{"repeated key", enc(kv{"n", "a"}, kv{"n", "b"}), false},
		{"nil name", enc(kv{"n", nil}), false},
		{"str arguments", enc(kv{"a", "{}"}), false},
		{"bin name", enc(kv{"n", []byte("get")}), false},
		{"nil provenance", enc(kv{"pv", nil}), false},
		{"negative seq", enc(kv{"pv", map[string]any{"fs": -1}}), false},
		{"bool as int", enc(kv{"cr", 1}), false},
		{"int as bool", enc(kv{"ix", true}), false},
		{"float index", enc(kv{"ix", 1.5}), false},
		{"nil bool", enc(kv{"cr", nil}), false},
		{"array body", []byte{0x92, 0xa3, 'g', 'e', 't', 0x01}, false},
		{"nil body", []byte{0xc0}, false},
		{"trailing", append(enc(kv{"n", "get"}), 0x01), false},
		{"truncated", enc(kv{"n", "get"})[:4], false},
		{"empty", nil, false},
		{"array32 of strs", []byte{0x81, 0xa2, 'c', 'o', 0xdd, 0, 0, 0, 1, 0xa1, 'x'}, true},
		{"array32 past the end", []byte{0x81, 0xa2, 'c', 'o', 0xdd, 0xff, 0xff, 0xff, 0xff}, false},
		{"map16", []byte{0xde, 0, 1, 0xa1, 'n', 0xa1, 'x'}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if fast := checkFastAgainstMsgpack(t, c.data); fast != c.fast {
				t.Errorf("read by hand: %v, want %v", fast, c.fast)
			}
			sameAsReflective(t, c.data)
		})
	}
}

// sameAsReflective: DecodeWith of an event with body data answers what
// msgpack's decoder answers for the body (the same value, or an error).
func sameAsReflective(t *testing.T, body []byte) {
	t.Helper()
	env := appendEnvelope(nil, &Event{ID: "e1", Kind: KindCallCompleted, V: 1, Tenant: "acme"})
	got, err := DecodeWith(append(env, body...), nil)
	want := new(CallCompleted)
	rd := bytes.NewReader(body)
	werr := msgpack.NewDecoder(rd).Decode(want)
	if werr == nil && rd.Len() != 0 {
		werr = ErrMalformed
	}
	if !checkBounds(body) {
		werr = errOverBudget
	}
	switch {
	case (err == nil) != (werr == nil):
		t.Fatalf("DecodeWith: %v; msgpack: %v", err, werr)
	case err == nil && !reflect.DeepEqual(got.Body, Body(want)):
		t.Fatalf("DecodeWith reads other than msgpack:\n% x", trim(body))
	}
}

// FuzzBodyDecoder: whatever the bytes, the hand decoder never panics, and
// where it answers it answers what msgpack's decoder does. Seeded by
// generated bodies of every class and the layouts TestBodyDecoderIsMsgpack
// names. Under -short (go test ./events) only the seeds run.
func FuzzBodyDecoder(f *testing.F) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	for range 40 {
		c := g.callCompleted()
		for _, p := range []*string{&c.Name} {
			if len(*p) > 300 {
				*p = (*p)[:300]
			}
		}
		c.Arguments, c.Coerced, c.Repaired, c.DependsOn, c.After = []byte(`{"q":"é"}`), []string{"/a"}, nil, []string{"c1"}, []string{}
		f.Add(reflective(f, c))
	}
	f.Add(reflective(f, &CallCompleted{}))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastAgainstMsgpack(t, data)
		sameAsReflective(t, data)
	})
}

// TestHandDecoderKeepsTheBudget: DecodeWith walks a hand-decoded body once,
// without checkBounds before it, so the hand decoder keeps the budget
// itself. Bodies that declare lengths far past their bytes, nest deeper
// than nestingMax or hold more than containerValuesMax values are refused
// by hand before anything is made for them (a few small allocations, never
// one the size of what they declare; a body of more than
// containerValuesMax bytes is walked by checkBounds first), and DecodeWith refuses each with
// ErrMalformed (checkBounds, as before) allocating next to nothing.
func TestHandDecoderKeepsTheBudget(t *testing.T) {
	key := func(k string) []byte { return append([]byte{byte(0xa0 | len(k))}, k...) }
	be32 := func(op byte, n uint32) []byte { return binary.BigEndian.AppendUint32([]byte{op}, n) }
	body := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	deep := body([]byte{0x81}, key("co"), bytes.Repeat([]byte{0x91}, 200), []byte{0xa1, 'x'})
	wide := body([]byte{0x81}, key("co"), be32(0xdd, containerValuesMax+1), bytes.Repeat([]byte{0xa0}, containerValuesMax+1))
	split := body([]byte{0x82}, key("co"), be32(0xdd, containerValuesMax/2+1), bytes.Repeat([]byte{0xa0}, containerValuesMax/2+1),
		key("af"), be32(0xdd, containerValuesMax/2+1), bytes.Repeat([]byte{0xa0}, containerValuesMax/2+1))
	cases := map[string][]byte{
		"array32 of four billion strs": body([]byte{0x81}, key("co"), be32(0xdd, 0xffffffff)),
		"array32, 1 MiB given":         body([]byte{0x81}, key("co"), be32(0xdd, 0xffffffff), make([]byte, 1<<20)),
		"array16 past the end":         body([]byte{0x81}, key("af"), []byte{0xdc, 0xff, 0xff, 0xa0}),
		"map16 of 65535 entries":       body([]byte{0xde, 0xff, 0xff}, key("n"), []byte{0xa0}),
		"provenance map16":             body([]byte{0x81}, key("pv"), []byte{0xde, 0xff, 0xff, 0xa2, 'f', 's', 0}),
		"str32 name":                   body([]byte{0x81}, key("n"), be32(0xdb, 0xffffffff)),
		"bin32 arguments":              body([]byte{0x81}, key("a"), be32(0xc6, 0xffffffff), []byte("{}")),
		"nested 200 deep":              deep,
		"one array over the values":    wide,
		"two arrays over the values":   split,
	}
	env := appendEnvelope(nil, &Event{ID: "e1", Kind: KindCallCompleted, V: 1, Tenant: "acme"})
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if checkBounds(b) {
				t.Fatalf("checkBounds passes it: not a budget case")
			}
			var ok bool
			if allocs := testing.AllocsPerRun(10, func() { _, ok = decodeCallCompleted(b) }); ok || allocs > 2 {
				t.Errorf("read by hand: ok %v after %v allocations, want refused after at most 2", ok, allocs)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, ok = decodeCallCompleted(b)
			runtime.ReadMemStats(&after)
			// A body over containerValuesMax bytes is walked by checkBounds
			// before the hand decoder sees it (DecodeWith): alone, the hand
			// decoder may make one array of it before the next is refused.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<10 && len(b) <= containerValuesMax {
				t.Errorf("read by hand: %d bytes allocated to refuse it", alloc)
			}
			data := append(append([]byte{}, env...), b...)
			runtime.GC()
			runtime.ReadMemStats(&before)
			ev, err := DecodeWith(data, nil)
			runtime.ReadMemStats(&after)
			if ev != nil || !errors.Is(err, ErrMalformed) {
				t.Fatalf("DecodeWith: %v %v, want ErrMalformed", ev, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
				t.Errorf("DecodeWith: %d bytes allocated to refuse it", alloc)
			}
		})
	}
	// Just under the budget the same arrays are read by hand, as msgpack
	// reads them.
	under := body([]byte{0x81}, key("co"), be32(0xdd, containerValuesMax-2), bytes.Repeat([]byte{0xa0}, containerValuesMax-2))
	if !checkFastAgainstMsgpack(t, under) {
		t.Fatalf("%d empty strs: not read by hand", containerValuesMax-2)
	}
}
