package assembler

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

// TestRowCodecIsMsgpack: the hand-encoded call and response rows are the
// bytes msgpack.Marshal writes, for values across every length and width
// class of msgpack's forms (empty and set omitempty fields, strings of
// 0-31, 32-255, 256-65535 and more bytes, negative and large numbers,
// 0-15 and 16+ tools), and msgpack.Unmarshal reads them back equal.
func TestRowCodecIsMsgpack(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 31, 32, 255, 256, 65535, 65536}
	str := func() string {
		if rng.IntN(3) == 0 {
			return ""
		}
		return strings.Repeat("x", lengths[rng.IntN(len(lengths))])
	}
	ints := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, -1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	num := func() int64 { return ints[rng.IntN(len(ints))] }
	env := func() envelope { return envelope{User: str(), Session: str(), Run: str(), Step: str()} }
	for i := range 1000 {
		c := call{Name: str(), CallID: str(), Index: int(num()), Order: int(num()), State: callState(rng.IntN(256)), Outcome: str(),
			Overflow: rng.IntN(2) == 0, Env: env(), Serial: rng.IntN(2) == 0,
			From: events.Provenance{FirstSeq: uint64(num()), LastSeq: uint64(num()), Deltas: int(num()), Bytes: int(num()), OpenedAt: num()}}
		checkRow(t, i, &c, &call{})
		r := response{Status: str(), Calls: int(num()), Decided: int(num()), Env: env(), TextBytes: int(num()), Provider: str(),
			ClientRuns: rng.IntN(2) == 0, ToolsOnly: rng.IntN(2) == 0}
		switch rng.IntN(4) {
		case 0:
			r.Tools = []string{}
		case 1:
			for range 15 + rng.IntN(3) {
				r.Tools = append(r.Tools, str())
			}
		case 2:
			r.Tools = []string{str()}
		}
		checkRow(t, i, &r, &response{})
	}
}

func checkRow[T any, P interface {
	*T
	rowAppender
}](t *testing.T, i int, v P, back *T) {
	t.Helper()
	want, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got := v.appendMsgpack(nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("value %d, %T: hand-encoded\n%x\nmsgpack\n%x", i, v, got, want)
	}
	if err := msgpack.Unmarshal(got, back); err != nil {
		t.Fatalf("value %d: %v", i, err)
	}
	w := *(*T)(v)
	if r, ok := any(&w).(*response); ok && len(r.Tools) == 0 {
		r.Tools = nil // omitted when empty: read back as none
	}
	if !reflect.DeepEqual(back, &w) {
		t.Fatalf("value %d: read back %+v, want %+v", i, back, w)
	}
}
