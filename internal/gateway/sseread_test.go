package gateway

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAReusedReaderCarriesNoOtherStreamsBytes: a stream's 64 KiB reader
// goes back to the gateway once its upstream was read, and the next
// stream takes it. A finished stream's reader is taken by a long one whose
// client hangs up after three events while the relay is still reading
// the upstream (held at its 100th event); two more streams start meanwhile
// and are held at their third. All three go on at once: each client that
// stayed gets its own events byte for byte, and the log holds each
// stream's events and no other's, the hung-up one's all 5,004 (nothing
// lost). A reader given back while its relay still reads it, or twice,
// would hand one stream's bytes to another and fail here.
func TestAReusedReaderCarriesNoOtherStreamsBytes(t *testing.T) {
	hold := make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(let) // however the test ends, the fake's handlers go
	tg := startGateway(t, func(c *Config) { c.File.Heartbeat = time.Hour })
	var made atomic.Int32
	tg.sseReaders.New = func() any { made.Add(1); return newSSEReader(nil) }
	tg.fake.gate = func(model string, pos int) {
		if model == "bulk-responses" && pos == 100 || model != "bulk-responses" && model != "weather-messages" && pos == 2 {
			<-hold
		}
	}
	want := func(api API, model string) []sseEvent {
		w := frames(t, api, model)
		for i := range w {
			w[i].ID = strconv.Itoa(i)
		}
		return w
	}
	full := func(api API, path, model string) []sseEvent {
		resp := tg.request(t, "POST", path, streamBody(model), bearer(clientKey))
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d", model, resp.StatusCode)
			return nil
		}
		evs, _ := readSSE(t, resp.Body, 0)
		return evs
	}

	// A stream read to its end: its reader goes back.
	msgs := passthroughCases[2]
	sameStream(t, "the first client", full(msgs.api, msgs.path, msgs.model), want(msgs.api, msgs.model))

	// The long stream, its client gone after three events.
	bulkWant := want(APIResponses, "bulk-responses")
	resp := tg.request(t, "POST", "/v1/responses", streamBody("bulk-responses"), bearer(clientKey))
	first, _ := readSSE(t, resp.Body, 3)
	resp.Body.Close()
	sameStream(t, "the client that hung up", first, bulkWant[:3])

	// Two more streams, held at their third event until all go on.
	got := make([][]sseEvent, 2)
	var wg sync.WaitGroup
	for i, c := range passthroughCases[:2] {
		wg.Go(func() { got[i] = full(c.api, c.path, c.model) })
	}
	waitFor(t, "the two streams to reach the upstream", func() bool {
		tg.fake.mu.Lock()
		defer tg.fake.mu.Unlock()
		return len(tg.fake.requests) >= 4
	})
	let()
	wg.Wait()
	for i, c := range passthroughCases[:2] {
		sameStream(t, c.model+"'s client", got[i], want(c.api, c.model))
		sameStream(t, c.model+"'s log", resumeAll(t, tg, c.api, c.stream, ""), want(c.api, c.model))
	}
	sameStream(t, msgs.model+"'s log", resumeAll(t, tg, msgs.api, msgs.stream, ""), want(msgs.api, msgs.model))
	sameStream(t, "the hung-up stream's log", resumeAll(t, tg, APIResponses, "resp_bulk", ""), bulkWant)
	t.Logf("%d readers made for 4 streams", made.Load())
}

// sameStream is sameEvents saying only the counts and the first event
// that differs (a stream of 5,004 events is too long to print whole).
func sameStream(t *testing.T, what string, got, want []sseEvent) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: event %d of %d:\ngot  %+v\nwant %+v", what, i, len(got), got[i], want[i])
			return
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d events, want %d", what, len(got), len(want))
	}
}
