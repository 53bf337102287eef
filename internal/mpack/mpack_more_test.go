package mpack

import (
	"math"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// TestArraysBoolsBytesAgreeWithMsgpack: array headers, bools, byte slices
// and unsigned integers are written as msgpack writes them and read back.
func TestArraysBoolsBytesAgreeWithMsgpack(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 65535, 65536} {
		ss := make([]string, n)
		want := must(msgpack.Marshal(ss))
		got := AppendArrayLen(nil, n)
		if string(want[:len(got)]) != string(got) {
			t.Errorf("AppendArrayLen(%d) = % x, msgpack % x", n, got, want[:len(got)])
		}
		l, next, ok := ReadArrayLen(want, 0)
		if !ok || l != n || next != len(got) {
			t.Errorf("ReadArrayLen of %d: %d, %d, %v", n, l, next, ok)
		}
	}
	if l, next, ok := ReadArrayLen([]byte{0xc0}, 0); !ok || l != -1 || next != 1 {
		t.Errorf("ReadArrayLen(nil) = %d, %d, %v", l, next, ok)
	}
	for _, bad := range [][]byte{nil, {0xdc, 0}, {0xdd, 0xff, 0xff, 0xff, 0xff}, {0xa1}} {
		if _, _, ok := ReadArrayLen(bad, 0); ok {
			t.Errorf("ReadArrayLen(% x) ok", bad)
		}
	}
	for _, v := range []bool{false, true} {
		if got, want := AppendBool(nil, v), must(msgpack.Marshal(v)); string(got) != string(want) {
			t.Errorf("AppendBool(%v) = % x, msgpack % x", v, got, want)
		}
		if got, next, ok := ReadBool(AppendBool(nil, v), 0); !ok || got != v || next != 1 {
			t.Errorf("ReadBool(%v) = %v, %d, %v", v, got, next, ok)
		}
	}
	if _, _, ok := ReadBool([]byte{0xc0}, 0); ok {
		t.Error("ReadBool read a nil")
	}
	for _, p := range [][]byte{nil, {}, {1, 2, 3}, make([]byte, 300), make([]byte, 70000)} {
		if got, want := AppendBytes(nil, p), must(msgpack.Marshal(p)); string(got) != string(want) {
			t.Errorf("AppendBytes(%d bytes, nil %v) differs from msgpack", len(p), p == nil)
		}
	}
	for _, u := range []uint64{0, 1, 127, 255, 65535, math.MaxUint32, math.MaxInt64, math.MaxUint64} {
		for _, enc := range [][]byte{AppendUint64(nil, u), AppendInt(nil, int64(u))} {
			if u > math.MaxInt64 && enc[0] != 0xcf {
				continue
			}
			got, next, ok := ReadUint(enc, 0)
			if !ok || got != u || next != len(enc) {
				t.Errorf("ReadUint(% x) = %d, %d, %v; want %d", enc, got, next, ok, u)
			}
		}
	}
	if _, _, ok := ReadUint(AppendInt(nil, -1), 0); ok {
		t.Error("ReadUint read a negative")
	}
}

// TestFixMapSetLaterIsMsgpacks: a fixmap header written first and counted
// after its entries (AppendFixMap, SetFixMapLen) is msgpack's header of a
// map of those entries, after bytes already in the buffer.
func TestFixMapSetLaterIsMsgpacks(t *testing.T) {
	for n := range 16 {
		m := make(map[string]int, n)
		for i := range n {
			m[string(rune('a'+i))] = i
		}
		want := must(msgpack.Marshal(m))
		b, at := AppendFixMap([]byte{0xc3})
		SetFixMapLen(b, at, n)
		if at != 1 || len(b) != 2 || b[0] != 0xc3 || b[1] != want[0] {
			t.Errorf("n=%d: % x at %d, msgpack's header %x", n, b, at, want[0])
		}
	}
}
