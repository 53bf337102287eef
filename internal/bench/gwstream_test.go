package bench_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// gwstreamFor is how long each side of TestGatewayStreaming reads: longer
// to profile the gateway's streaming path (go test -cpuprofile).
var gwstreamFor = flag.Duration("gwstream.for", 300*time.Millisecond, "how long each side of TestGatewayStreaming reads")

// gwstreamOnly narrows TestGatewayStreaming to one kind of answer and one
// number of streams, to profile that path alone: "whole-1",
// "streamed-64"; "" runs them all.
var gwstreamOnly = flag.String("gwstream.only", "", "one pair of TestGatewayStreaming to run: streamed-N or whole-N")

// TestGatewayStreaming: the streaming rows' clients read whole answers
// through the gateway and directly, streamed and whole, one client and
// several; every answer read is complete (its StreamEvents chunks and
// [DONE], or a whole answer with its finish), none failed, and the gateway
// kept the frames in TS_GW. It asserts no timing.
func TestGatewayStreaming(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	streams := []int{1, 8}
	if *gwstreamFor > time.Second {
		streams = []int{64}
	}
	if *gwstreamOnly != "" {
		streams = []int{1, 8, 64}
	}
	for _, whole := range []bool{false, true} {
		for _, n := range streams {
			if *gwstreamOnly != "" && *gwstreamOnly != pairName(whole, n) {
				continue
			}
			b := bustest.Start(t)
			res, err := bench.GatewayStreaming(ctx, b, n, whole, *gwstreamFor)
			if err != nil {
				t.Fatalf("whole %t, %d streams: %v", whole, n, err)
			}
			if res.Failures != 0 || res.Gateway.Answers == 0 || res.Direct.Answers == 0 ||
				res.Gateway.Events != res.Gateway.Answers*bench.StreamEvents || len(res.Gateway.FirstByte) != res.Gateway.Answers ||
				res.Gateway.CPU <= 0 || res.Direct.CPU <= 0 {
				t.Errorf("whole %t, %d streams: %+v", whole, n, res)
			}
			// Whole answers have a like-with-like side: a plain proxy
			// that stores each answer it gives, one message each.
			if proxied := res.Proxy.Answers; whole != (proxied > 0) || whole && len(res.Proxy.FirstByte) != proxied {
				t.Errorf("whole %t, %d streams: %d answers through the plain proxy", whole, n, proxied)
			}
			if res.ProxyStored < res.Proxy.Answers {
				t.Errorf("whole %t, %d streams: the plain proxy stored %d messages for %d answers", whole, n, res.ProxyStored, res.Proxy.Answers)
			}
			st, err := b.JS.Stream(ctx, events.StreamGateway)
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.State.Msgs == 0 {
				t.Errorf("whole %t, %d streams: no frame kept", whole, n)
			}
			t.Logf("whole %t, %d streams: %d answers through the gateway (%.0f events/s, %v CPU an answer), %d direct (%.0f events/s, %v CPU an answer), %d through the plain proxy (%.0f events/s, %v CPU an answer); %d messages in %s",
				whole, n, res.Gateway.Answers, res.Gateway.EventsPerSecond(), res.Gateway.CPUPerAnswer(), res.Direct.Answers, res.Direct.EventsPerSecond(), res.Direct.CPUPerAnswer(),
				res.Proxy.Answers, res.Proxy.EventsPerSecond(), res.Proxy.CPUPerAnswer(), info.State.Msgs, events.StreamGateway)
			// The first byte at p50 and p99, both sides of this run: what
			// its target (p99 ≤ 1.2× direct + 2 ms) is read from.
			t.Logf("whole %t, %d streams: first byte p50 %v gateway, %v direct; p99 %v gateway, %v direct",
				whole, n, bench.Percentile(res.Gateway.FirstByte, 50), bench.Percentile(res.Direct.FirstByte, 50),
				bench.Percentile(res.Gateway.FirstByte, 99), bench.Percentile(res.Direct.FirstByte, 99))
		}
	}
}

// pairName is a pair's name for -gwstream.only.
func pairName(whole bool, streams int) string {
	if whole {
		return fmt.Sprintf("whole-%d", streams)
	}
	return fmt.Sprintf("streamed-%d", streams)
}
