package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
)

// floorVariant is bench.FloorCalls (one message stored and one input
// acknowledged per call) with one of two changes that would send the log
// fewer messages per call: fast, a fetch's messages published as one fast
// batch (ADR-50: reply subjects <inbox>.<id>.<flow>.fail.<seq>.<op>.$FI,
// one acknowledgement for the batch at its commit, flow acknowledgements
// now and then, the stream set to allow batches) instead of one
// acknowledgement each; ackAll, a consumer of its own acknowledging the
// last input of each fetch (AckAll) instead of each input.
func floorVariant(ctx context.Context, b *bus.Bus, n int, fast, ackAll bool) (time.Duration, error) {
	pol := jetstream.AckExplicitPolicy
	if ackAll {
		pol = jetstream.AckAllPolicy
	}
	c, err := b.JS.CreateConsumer(ctx, events.StreamCalls, jetstream.ConsumerConfig{
		Durable: fmt.Sprintf("bench-floor-fast-%t-%t", fast, ackAll), FilterSubjects: []string{executor.CallFilter}, AckPolicy: pol,
		MaxAckPending: 4000, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return 0, err
	}
	nc := b.JS.Conn()
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox + ".>")
	if err != nil {
		return 0, err
	}
	defer sub.Unsubscribe()
	start := time.Now()
	done := 0
	var batch []jetstream.Msg
	for done < n {
		msgs, err := c.Fetch(min(256, n-done), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return 0, err
		}
		batch = batch[:0]
		var all []jetstream.Msg
		for m := range msgs.Messages() {
			all = append(all, m)
		}
		id := nuid.Next()
		for i, m := range all {
			md, err := m.Metadata()
			if err != nil {
				return 0, err
			}
			tenant := strings.Split(m.Subject(), ".")[2]
			seq := strconv.FormatUint(md.Sequence.Stream, 10)
			subj, _ := events.ResultSubject(tenant, fmt.Sprintf("ff%t%t-", fast, ackAll)+seq)
			op := 1
			if i == 0 {
				op = 0
			}
			if i == len(all)-1 {
				op = 2
			}
			reply := fmt.Sprintf("%s.%s.%d.fail.%d.%d.$FI", inbox, id, 500, i+1, op)
			if !fast {
				reply = inbox + ".p." + strconv.Itoa(i)
			}
			out := &nats.Msg{Subject: subj, Reply: reply, Data: m.Data(), Header: nats.Header{
				jetstream.MsgIDHeader:               []string{subj},
				jetstream.ExpectedLastSubjSeqHeader: []string{"0"},
				"Ts-Input-Seq":                      []string{seq},
				"Ts-Call-Name":                      []string{"noop"},
			}}
			if err := nc.PublishMsg(out); err != nil {
				return 0, err
			}
			batch = append(batch, m)
		}
		for k := 0; ; k++ {
			if !fast && k == len(all) {
				break
			}
			a, err := sub.NextMsg(10 * time.Second)
			if err != nil {
				return 0, fmt.Errorf("floor fast: %d: %w", done, err)
			}
			if bytes.HasPrefix(a.Data, []byte(`{"type"`)) {
				if !bytes.Contains(a.Data, []byte(`"ack"`)) {
					return 0, fmt.Errorf("floor fast: %s", a.Data)
				}
				continue
			}
			if !fast {
				if bytes.Contains(a.Data, []byte(`"error"`)) {
					return 0, fmt.Errorf("floor: %s", a.Data)
				}
				continue
			}
			if !bytes.Contains(a.Data, []byte(fmt.Sprintf(`"count":%d`, len(all)))) {
				return 0, fmt.Errorf("floor fast: %s", a.Data)
			}
			break
		}
		for i, m := range batch {
			if !ackAll || i == len(batch)-1 {
				if err := m.Ack(); err != nil {
					return 0, err
				}
			}
			done++
		}
	}
	return time.Since(start), nil
}

// BenchmarkFloorVariants weighs what the executor's floor would cost with
// fewer messages per call: the floor as it is (an acknowledgement per
// publish and per input), a window's publishes as one fast batch, one
// AckAll per fetch, and both; each over the same 10,000 stored calls on
// one server, in turns, reporting the process's CPU per call (median of
// the iterations):
// go test ./internal/bench -run '^$' -bench FloorVariants -benchtime 9x
// Neither change is the executor's (docs/speed.md says why): a fast batch
// reports no duplicate, and an AckAll is exact only for a consumer of one
// executor's.
func BenchmarkFloorVariants(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 10_000
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	var res [2][2][]float64
	ix := map[bool]int{false: 0, true: 1}
	for i := range b.N {
		bs, err := bus.Open(ctx, bus.Config{DataDir: filepath.Join(b.TempDir(), "d"), Listen: "127.0.0.1:-1", Logger: log, Name: fmt.Sprint("ff", i)})
		if err != nil {
			b.Fatal(err)
		}
		s, err := bs.JS.Stream(ctx, events.StreamOut)
		if err != nil {
			b.Fatal(err)
		}
		cfg := s.CachedInfo().Config
		cfg.AllowBatchPublish = true
		if _, err := bs.JS.UpdateStream(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		if _, err := bench.PublishCalls(ctx, bs.JS, "exec", n); err != nil {
			b.Fatal(err)
		}
		type variant struct{ fast, all bool }
		vs := []variant{{false, false}, {true, false}, {false, true}, {true, true}}
		for k := range vs {
			v := vs[(k+i)%len(vs)]
			c0 := bench.ProcessCPU()
			if _, err := floorVariant(ctx, bs, n, v.fast, v.all); err != nil {
				b.Fatal(err)
			}
			res[ix[v.fast]][ix[v.all]] = append(res[ix[v.fast]][ix[v.all]], float64((bench.ProcessCPU()-c0).Microseconds())/n)
		}
		bs.Close()
	}
	median := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(median(res[0][0]), "floor-cpu-µs/call")
	b.ReportMetric(median(res[1][0]), "fast-batch-cpu-µs/call")
	b.ReportMetric(median(res[0][1]), "ackall-cpu-µs/call")
	b.ReportMetric(median(res[1][1]), "both-cpu-µs/call")
}
