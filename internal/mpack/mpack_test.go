package mpack

import (
	"math"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// TestAgreesWithMsgpack: what the primitives write, msgpack reads as the
// same values, and what msgpack writes, they read back.
func TestAgreesWithMsgpack(t *testing.T) {
	ints := []int64{0, 1, 31, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	for _, n := range ints {
		var got int64
		if err := msgpack.Unmarshal(AppendInt(nil, n), &got); err != nil || got != n {
			t.Errorf("AppendInt(%d) reads as %d (%v)", n, got, err)
		}
		for _, enc := range [][]byte{AppendInt(nil, n), AppendInt64(nil, n), must(msgpack.Marshal(n))} {
			v, next, ok := ReadInt(enc, 0)
			if !ok || v != n || next != len(enc) {
				t.Errorf("ReadInt(% x) = %d, %d, %v; want %d", enc, v, next, ok, n)
			}
		}
		if _, _, ok := ReadInt(AppendInt(nil, n)[:len(AppendInt(nil, n))-1], 0); ok && len(AppendInt(nil, n)) > 1 {
			t.Errorf("ReadInt read a truncated %d", n)
		}
	}
	var u uint64
	if err := msgpack.Unmarshal(AppendUint64(nil, math.MaxUint64), &u); err != nil || u != math.MaxUint64 {
		t.Errorf("AppendUint64 reads as %d (%v)", u, err)
	}
	if _, _, ok := ReadInt(AppendUint64(nil, math.MaxUint64), 0); ok {
		t.Error("ReadInt read a uint64 past int64")
	}
	for _, l := range []int{0, 31, 32, 255, 256, 65535, 65536} {
		s := strings.Repeat("x", l)
		var got string
		if err := msgpack.Unmarshal(AppendStr(nil, s), &got); err != nil || got != s {
			t.Errorf("AppendStr of %d bytes reads as %d bytes (%v)", l, len(got), err)
		}
		for _, enc := range [][]byte{AppendStr(nil, s), must(msgpack.Marshal(s))} {
			v, next, ok := ReadStr(enc, 0)
			if !ok || string(v) != s || next != len(enc) {
				t.Errorf("ReadStr of %d bytes: %d bytes, %d, %v", l, len(v), next, ok)
			}
			if _, _, ok := ReadStr(enc[:len(enc)-1], 0); ok {
				t.Errorf("ReadStr read a truncated str of %d bytes", l)
			}
		}
		b := append(AppendBinLen(nil, l), s...)
		var gotb []byte
		if err := msgpack.Unmarshal(b, &gotb); err != nil || string(gotb) != s {
			t.Errorf("AppendBinLen of %d bytes reads as %d bytes (%v)", l, len(gotb), err)
		}
		for _, enc := range [][]byte{b, must(msgpack.Marshal([]byte(s)))} {
			v, next, ok := ReadBin(enc, 0)
			if !ok || string(v) != s || next != len(enc) {
				t.Errorf("ReadBin of %d bytes: %d bytes, %d, %v", l, len(v), next, ok)
			}
		}
	}
	for _, n := range []int{0, 15, 16, 65535} {
		enc := AppendMapLen(nil, n)
		got, next, ok := ReadMapLen(enc, 0)
		if !ok || got != n || next != len(enc) {
			t.Errorf("ReadMapLen(AppendMapLen(%d)) = %d, %d, %v", n, got, next, ok)
		}
	}
	for _, bad := range [][]byte{nil, {0xc1}, {0xd9}, {0xda, 0}, {0xc6, 0xff, 0xff, 0xff, 0xff}} {
		if _, _, ok := ReadStr(bad, 0); ok {
			t.Errorf("ReadStr(% x) ok", bad)
		}
		if _, _, ok := ReadBin(bad, 0); ok {
			t.Errorf("ReadBin(% x) ok", bad)
		}
		if _, _, ok := ReadInt(bad, 0); ok {
			t.Errorf("ReadInt(% x) ok", bad)
		}
		if _, _, ok := ReadMapLen(bad, 0); ok {
			t.Errorf("ReadMapLen(% x) ok", bad)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
