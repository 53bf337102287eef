package assembler_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/projector"
)

// TestIngestStateDoesNotDependOnBatches: ingest keeps a stream's state in
// memory during a batch and writes it once when the batch ends (Flush).
// The same raw events — recorded streams interleaved, numbered, some
// arriving early, repeated, refused, a restart between batches — applied
// in batches cut at random give the view, rejections and emitted events of
// applying them one by one.
func TestIngestStateDoesNotDependOnBatches(t *testing.T) {
	msgs := batchWorkload(t)
	ref := applyInBatches(t, msgs, func(int) int { return 1 }, -1)
	for round := range 6 {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		restartAt := -1
		if round%2 == 1 {
			restartAt = rng.IntN(len(msgs))
		}
		got := applyInBatches(t, msgs, func(left int) int { return 1 + rng.IntN(min(left, 64)) }, restartAt)
		if got.digest != ref.digest {
			t.Fatalf("round %d: view %s, one by one %s", round, got.digest, ref.digest)
		}
		if got.rejections != ref.rejections {
			t.Fatalf("round %d: rejections\n%s\none by one\n%s", round, got.rejections, ref.rejections)
		}
		if got.emitted != ref.emitted {
			t.Fatalf("round %d: emitted events differ from one by one", round)
		}
	}
}

type batchResult struct {
	digest              projector.Digest
	rejections, emitted string
}

// batchWorkload interleaves three recorded streams of two tenants, numbers
// their events, swaps some neighbours (an early arrival is held), repeats
// some and puts a line that is not JSON into one.
func batchWorkload(t *testing.T) []*projector.Msg {
	t.Helper()
	files := []struct{ tenant, format, file string }{
		{"acme", "openai-responses", "openai-responses-reasoning-three-calculator-calls.jsonl"},
		{"acme", "openai-chat", "openai-chat-deepseek-weather.jsonl"},
		{"globex", "gemini", "other-gemini-two-getweather-streamed-args.jsonl"},
	}
	type raw struct {
		subject string
		pos     int
		data    []byte
		end     bool
	}
	var streams [][]raw
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "streams", f.file))
		if err != nil {
			t.Fatal(err)
		}
		subj, err := events.IngestSubject(f.tenant, f.format, fmt.Sprint("s", i))
		if err != nil {
			t.Fatal(err)
		}
		var evs []raw
		err = ingest.ReadEvents(bytes.NewReader(b), func(line []byte) error {
			evs = append(evs, raw{subject: subj, pos: len(evs), data: bytes.Clone(line)})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			evs = append(evs[:5], append([]raw{{subject: subj, data: []byte("not json")}}, evs[5:]...)...)
			for j := range evs {
				evs[j].pos = j
			}
		}
		evs = append(evs, raw{subject: subj, pos: len(evs), end: true})
		streams = append(streams, evs)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var order []raw
	for left := true; left; {
		left = false
		for i := range streams {
			if len(streams[i]) == 0 {
				continue
			}
			left = true
			n := min(len(streams[i]), 1+rng.IntN(4))
			chunk := streams[i][:n]
			streams[i] = streams[i][n:]
			if n > 1 && rng.IntN(3) == 0 {
				chunk[0], chunk[1] = chunk[1], chunk[0] // the second arrives first: held
			}
			order = append(order, chunk...)
			if rng.IntN(5) == 0 {
				order = append(order, chunk[0]) // a repeat
			}
		}
	}
	msgs := make([]*projector.Msg, len(order))
	for i, r := range order {
		h := nats.Header{}
		h.Set(assembler.HeaderSeq, strconv.Itoa(r.pos))
		h.Set(assembler.HeaderUser, "u1")
		if r.end {
			h.Set(assembler.HeaderEnd, "1")
		}
		msgs[i] = &projector.Msg{Seq: uint64(i + 1), Subject: r.subject, Time: int64(i+1) * 1e6, Header: h, Data: r.data}
	}
	return msgs
}

// applyInBatches applies msgs to a fresh ingest view in batches of
// next(left) messages, reopening the view (a new projection, nothing
// cached) at the batch that holds message restartAt.
func applyInBatches(t *testing.T, msgs []*projector.Msg, next func(left int) int, restartAt int) batchResult {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ingest")
	open := func() *projector.Local {
		l, err := projector.NewLocal(dir, assembler.NewIngest(assembler.IngestConfig{}))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open()
	defer func() { l.Close() }()
	var emitted bytes.Buffer
	for i := 0; i < len(msgs); {
		n := next(len(msgs) - i)
		if restartAt >= i && restartAt < i+n {
			l.Close()
			l = open()
		}
		batch := make([]*projector.Msg, n)
		for j, m := range msgs[i : i+n] {
			c := *m // a Msg caches its decoded event: each run gets its own
			batch[j] = &c
		}
		out, err := l.Apply(context.Background(), batch...)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			fmt.Fprintf(&emitted, "%s %s %s %+v\n", e.Subject, e.Event.ID, e.Event.Kind, e.Event.Body)
		}
		i += n
	}
	d, err := l.Runner().Digest()
	if err != nil {
		t.Fatal(err)
	}
	rj, err := l.Runner().Rejections()
	if err != nil {
		t.Fatal(err)
	}
	return batchResult{digest: d, rejections: fmt.Sprint(rj), emitted: emitted.String()}
}
