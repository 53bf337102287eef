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
	text := strings.TrimSpace(strings.Repeat("The forecast for Paris shows light rain in the morning, ", 27))
	bodies := map[string]string{
		"text": fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1764950400,"model":"gpt-4o-mini","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":254,"total_tokens":266}}`, text),
		"call": `{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"location\":\"Paris\",\"unit\":\"celsius\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":20,"total_tokens":32}}`,
	}
	for name, body := range bodies {
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
