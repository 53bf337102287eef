package gateway

import (
	"strings"
	"testing"
)

// TestReadHeadReadsWhatResponseIDAndUsageRead: the one decode of a first
// event or whole answer (readHead) gives the id responseID gives and the
// usage Usage.read takes, for each provider's shapes and for data the one
// decode cannot take whole (a member of another type), where each of the
// two reads what it can alone.
func TestReadHeadReadsWhatResponseIDAndUsageRead(t *testing.T) {
	for _, data := range []string{
		`{"id":"chatcmpl-1","object":"chat.completion","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":4}}}`,
		`{"id":"chatcmpl-2","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`,
		`{"type":"response.completed","response":{"id":"resp_1","usage":{"input_tokens":30,"output_tokens":5,"input_tokens_details":{"cached_tokens":10}}}}`,
		`{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":9,"cache_read_input_tokens":3,"cache_creation_input_tokens":2,"output_tokens":1}}}`,
		`{"id":"msg_2","type":"message","content":[],"usage":{"input_tokens":5,"output_tokens":8}}`,
		`{"id":"chatcmpl-3","usage":"many"}`,                                       // usage of another type: no usage, the id still read
		`{"id":7,"response":{"id":"resp_2"},"usage":{"prompt_tokens":1}}`,          // an id of another type
		`{"response":{"id":"` + strings.Repeat("a", 300) + `"},"id":"chatcmpl-5"}`, // an id too long
		`{"id":"chatcmpl-4"`, // cut short
		`[DONE]`,
		``,
	} {
		var want Usage
		want.read([]byte(data))
		wantID := responseID([]byte(data))
		var got Usage
		gotID := readHead([]byte(data), &got)
		if gotID != wantID || got != want {
			t.Errorf("%.60s: readHead = %q %+v, responseID and read = %q %+v", data, gotID, got, wantID, want)
		}
	}
	// Counts only grow: a later report of less keeps the larger.
	u := Usage{Input: 100, Output: 50}
	readHead([]byte(`{"id":"x","usage":{"prompt_tokens":10,"completion_tokens":60}}`), &u)
	if u != (Usage{Input: 100, Output: 60}) {
		t.Errorf("readHead over a running count: %+v", u)
	}
}
