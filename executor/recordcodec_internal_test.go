package executor

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

// TestRecordMarshalParity holds record.marshal to msgpack.Marshal, byte
// for byte, over every field set or empty and every string, binary and
// integer width.
func TestRecordMarshalParity(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "a", strings.Repeat("x", 31), strings.Repeat("y", 32), strings.Repeat("z", 255),
		strings.Repeat("w", 256), strings.Repeat("v", 65535), strings.Repeat("u", 65536), "tenant/run/step/call_ü"}
	str := func() string {
		if rnd.IntN(3) == 0 {
			return ""
		}
		return strs[rnd.IntN(len(strs))]
	}
	ints := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	num := func() int64 {
		if rnd.IntN(3) == 0 {
			return 0
		}
		return ints[rnd.IntN(len(ints))]
	}
	bins := [][]byte{nil, {}, []byte("x"), bytes.Repeat([]byte{1}, 255), bytes.Repeat([]byte{2}, 256),
		bytes.Repeat([]byte{3}, 65535), bytes.Repeat([]byte{4}, 65536)}
	for i := range 5000 {
		r := &record{
			Key: str(), State: str(), Name: str(), Version: int(num()), InputSeq: uint64(num()),
			Response: str(), Item: str(), Owner: str(), LeaseUntil: num(), Attempt: int(num()),
			Failed: int(num()), Invoked: rnd.IntN(2) == 0, Takeovers: int(num()),
			Approval: str(), ApprovalBy: str(), ApprovalReason: str(),
		}
		if rnd.IntN(2) == 0 {
			r.Outcome = &outcome{Subject: str(), ID: str(), Data: bins[rnd.IntN(len(bins))],
				Error: events.ErrorType(str()), Message: str()}
		}
		want, err := msgpack.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got := r.marshal()
		if !bytes.Equal(got, want) {
			t.Fatalf("record %d: marshal differs from msgpack.Marshal\n got %x\nwant %x", i, got[:min(len(got), 200)], want[:min(len(want), 200)])
		}
		if len(got) > r.size() {
			t.Fatalf("record %d: %d bytes above the size bound %d", i, len(got), r.size())
		}
	}
}

func BenchmarkRecordMarshal(b *testing.B) {
	r := &record{Key: "t0/run/step/call_1", State: stateDone, Name: "noop", Version: 1, InputSeq: 123456,
		Response: "resp_1", Item: "item_1", Attempt: 1,
		Outcome: &outcome{Subject: "ts.result.t0.abc", ID: "result:t0/run/step/call_1", Data: bytes.Repeat([]byte{7}, 300)}}
	b.Run("msgpack", func(b *testing.B) {
		for b.Loop() {
			msgpack.Marshal(r)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			r.marshal()
		}
	})
}
