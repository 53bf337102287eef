package gateway

import (
	"bufio"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkGatewayVsDirect measures, in one run, what the gateway adds to
// a streamed request against a direct connection to the same fake
// upstream: the time to the first event (a 12-event recorded stream) and
// the throughput of streamed events (a synthetic stream of 5,004 events).
// Each iteration makes one request of each kind, alternating which goes
// first; the metrics are medians over the iterations.
//
//	go test -run '^$' -bench GatewayVsDirect -benchtime 50x ./gateway/
func BenchmarkGatewayVsDirect(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	tg := startGateway(b, func(c *Config) { c.File.Heartbeat = time.Hour })
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	// one stream: the time to its first event and to its end, its events.
	one := func(direct bool, model string) (first, total time.Duration, n int) {
		url, auth := tg.srv.URL, "Bearer "+clientKey
		if direct {
			url, auth = tg.fake.srv.URL, "Bearer "+upOpenAIKey
		}
		req, _ := http.NewRequest("POST", url+"/v1/responses", strings.NewReader(streamBody(model)))
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		br := bufio.NewReaderSize(resp.Body, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if len(line) == 1 { // the blank line that ends an event
				if n == 0 {
					first = time.Since(start)
				}
				n++
			}
		}
		return first, time.Since(start), n
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	for _, direct := range []bool{true, false} { // warm both paths
		one(direct, "weather-responses")
	}
	b.ResetTimer()
	var firstD, firstG, totalD, totalG []time.Duration
	var events int
	for i := range b.N {
		for _, direct := range []bool{i%2 == 0, i%2 != 0} {
			f, _, _ := one(direct, "weather-responses")
			_, tot, n := one(direct, "bulk-responses")
			events = n
			if direct {
				firstD, totalD = append(firstD, f), append(totalD, tot)
			} else {
				firstG, totalG = append(firstG, f), append(totalG, tot)
			}
		}
	}
	fd, fg := median(firstD), median(firstG)
	td, tgw := median(totalD), median(totalG)
	b.ReportMetric(float64(fd.Microseconds()), "first-µs-direct")
	b.ReportMetric(float64(fg.Microseconds()), "first-µs-gateway")
	b.ReportMetric(float64(fg)/float64(fd), "first-ratio")
	b.ReportMetric(float64(events)/td.Seconds(), "events/s-direct")
	b.ReportMetric(float64(events)/tgw.Seconds(), "events/s-gateway")
	b.ReportMetric(tgw.Seconds()/td.Seconds(), "stream-time-ratio")
	if fg > time.Duration(1.2*float64(fd))+2*time.Millisecond {
		b.Logf("first event: gateway %v, direct %v: over the target 1.2× direct + 2 ms", fg, fd)
	}
}
