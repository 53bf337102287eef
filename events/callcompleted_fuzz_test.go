package events

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzCallCompletedEncoder: the hand encoder of CallCompleted
// (appendMsgpack) writes the bytes msgpack's reflective encoder writes for
// any field values: ints and sequences of every width and sign, strings
// and argument bytes of any length and content (invalid UTF-8 included),
// nil, empty and filled string lists, each flag set or not. The seeds are
// the edges of msgpack's width classes; go test runs them, go test -fuzz
// explores from them.
func FuzzCallCompletedEncoder(f *testing.F) {
	for _, v := range []int64{0, 1, -1, -32, -33, 127, 128, 255, 256, -128, -129, 65535, 65536, -32768, -32769,
		math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxInt64, math.MinInt64} {
		for _, s := range []string{"", "x", strings.Repeat("a", 31), strings.Repeat("b", 32), strings.Repeat("c", 256), "\xff\x00é"} {
			f.Add(s, v, []byte(s), s, v, uint64(v), uint64(-v), v, uint8(v))
		}
	}
	f.Add(strings.Repeat("n", 70000), int64(3), bytes.Repeat([]byte("{"), 70000), "a\x00b\x00c", int64(-5), uint64(math.MaxUint64), uint64(0), int64(-1), uint8(0xff))
	f.Fuzz(func(t *testing.T, name string, index int64, args []byte, list string, order int64, first, last uint64, opened int64, flags uint8) {
		strs := func(bit uint8) []string { // nil, empty, or list split at NULs
			switch {
			case flags&bit == 0:
				return nil
			case list == "":
				return []string{}
			}
			return strings.Split(list, "\x00")
		}
		c := &CallCompleted{Name: name, Index: int(index), Arguments: args, Coerced: strs(1), Repaired: strs(2), DependsOn: strs(4),
			Order: int(order), After: strs(8), ClientRuns: flags&16 != 0, Builtin: flags&32 != 0,
			From: Provenance{FirstSeq: first, LastSeq: last, Deltas: int(order ^ index), Bytes: int(index), OpenedAt: opened}}
		if flags&64 != 0 && args == nil {
			c.Arguments = []byte{}
		}
		want := reflective(t, c)
		if got := c.appendMsgpack(nil); !bytes.Equal(got, want) {
			t.Fatalf("%+v encodes as\n% x\nmsgpack writes\n% x", c, trim(got), trim(want))
		}
	})
}
