package ingest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/ingest"
)

// BenchmarkStreamEventsOf converts a whole Chat answer of about 1.5 KB of
// text (the gateway streaming rows' answer) and one with a tool call.
func BenchmarkStreamEventsOf(b *testing.B) {
	for name, body := range benchWholeBodies() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ingest.StreamEventsOf(ingest.FormatOpenAIChat, []byte(body)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchWholeBodies is a whole Chat answer of about 1.5 KB of text (the
// gateway streaming rows' answer) and one with a tool call.
func benchWholeBodies() map[string]string {
	text := strings.TrimSpace(strings.Repeat("The forecast for Paris shows light rain in the morning, ", 27))
	return map[string]string{
		"text": fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1764950400,"model":"gpt-4o-mini","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":254,"total_tokens":266}}`, text),
		"call": `{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"location\":\"Paris\",\"unit\":\"celsius\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":20,"total_tokens":32}}`,
	}
}

// BenchmarkWholeModelEvents is what the gateway does to make a whole
// answer's model events, up to the canonical events (no sealing or
// publishing): "json" converts it to its streamed form's JSON events
// (StreamEventsOf) and normalises each (Feed), as the gateway did until
// DecodeWhole; "decoded" reads it once into chunks (DecodeWhole) and
// applies them (FeedWhole). Compare the two in one run: their ratio, not
// their times, is the measurement.
func BenchmarkWholeModelEvents(b *testing.B) {
	for name, body := range benchWholeBodies() {
		for _, way := range []string{"json", "decoded"} {
			b.Run(name+"/"+way, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s := ingest.NewStream(ingest.Config{Format: ingest.FormatOpenAIChat, Stream: "s"})
					n := 0
					if way == "json" {
						evs, err := ingest.StreamEventsOf(ingest.FormatOpenAIChat, []byte(body))
						if err != nil {
							b.Fatal(err)
						}
						for _, ev := range evs {
							outs, err := s.Feed(ev)
							if err != nil {
								b.Fatal(err)
							}
							n += len(outs)
						}
					} else {
						a, err := ingest.DecodeWhole(ingest.FormatOpenAIChat, []byte(body))
						if err != nil {
							b.Fatal(err)
						}
						for i := range a.Len() {
							outs, err := s.FeedWhole(a, i)
							if err != nil {
								b.Fatal(err)
							}
							n += len(outs)
						}
					}
					if n += len(s.End()); n == 0 {
						b.Fatal("no events")
					}
				}
			})
		}
	}
}
