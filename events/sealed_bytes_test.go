package events

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// oneKey is a keyring of one AES-256-GCM key for every scope.
type oneKey struct{ aead cipher.AEAD }

func (k oneKey) SealKey(string, string) (string, cipher.AEAD, error) { return "k1", k.aead, nil }
func (k oneKey) OpenKey(_, _, id string) (cipher.AEAD, error) {
	if id != "k1" {
		return nil, ErrErased
	}
	return k.aead, nil
}

// TestEncodeSealedIsEncodeOfTheSealedForm: EncodeSealed writes, in one
// buffer, exactly what Encode writes for the envelope with its key
// reference and the sealed bytes as a msgpack bin (the form every reader
// decodes), for every sealed kind, envelopes of every string length class
// and bodies on both sides of the bin8, bin16 and bin32 headers; and it
// opens to the body it was given.
func TestEncodeSealedIsEncodeOfTheSealedForm(t *testing.T) {
	block, err := aes.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	kr := oneKey{aead}
	rng := rand.New(rand.NewPCG(3, 4))
	lens := []int{0, 1, 31, 32, 255, 256, 65535, 65536}
	s := func() string {
		if rng.IntN(3) == 0 {
			return ""
		}
		return strings.Repeat("x", lens[rng.IntN(len(lens))])
	}
	texts := []int{0, 200, 226, 227, 300, 65500, 65600, 70000}
	cases := 0
	for i := range 600 {
		kinds := Kinds()
		kind := kinds[rng.IntN(len(kinds))]
		if !Sealed(kind) {
			continue
		}
		ev := &Event{ID: "id" + s(), Tenant: "acme", User: s(), Session: s(), Run: s(), Response: s(), Item: s(), At: int64(rng.Uint64())}
		ev.Body = catalogue[kind].new()
		if i%3 == 0 {
			ev.Body = &TextDelta{Text: strings.Repeat("y", texts[rng.IntN(len(texts))])}
		}
		data, err := EncodeSealed(ev, kr, "")
		if err != nil {
			t.Fatal(err)
		}
		var env Event
		off, ok := decodeEnvelope(data, &env)
		if !ok {
			t.Fatalf("case %d: envelope not decoded", i)
		}
		var sealed []byte
		switch rest := data[off:]; rest[0] {
		case 0xc4:
			sealed = rest[2:]
		case 0xc5:
			sealed = rest[3:]
		case 0xc6:
			sealed = rest[5:]
		default:
			t.Fatalf("case %d: body is no bin (%#x)", i, rest[0])
		}
		if n := binaryLen(data[off:]); n != len(sealed) {
			t.Fatalf("case %d: bin of %d bytes holds %d", i, n, len(sealed))
		}
		env.Body = sealedBody(sealed)
		want, err := Encode(&env)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != string(data) {
			t.Fatalf("case %d (%s): EncodeSealed wrote\n%x\nEncode of its sealed form writes\n%x", i, kind, data, want)
		}
		got, err := DecodeWith(data, kr)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !reflect.DeepEqual(got.Body, ev.Body) {
			t.Fatalf("case %d: opened %+v, sealed %+v", i, got.Body, ev.Body)
		}
		cases++
	}
	if cases < 300 {
		t.Fatalf("only %d sealed cases", cases)
	}
}

// binaryLen is the length a msgpack bin header declares.
func binaryLen(b []byte) int {
	switch b[0] {
	case 0xc4:
		return int(b[1])
	case 0xc5:
		return int(binary.BigEndian.Uint16(b[1:]))
	}
	return int(binary.BigEndian.Uint32(b[1:]))
}
