package gateway

import (
	"bytes"
	"encoding/json"
)

// withIncludeUsage returns a streamed Chat request's body asking for the
// stream's usage (stream_options.include_usage: true), which a Chat
// stream reports only when asked: its last chunk then carries usage and
// no choices, as the SDKs expect of a client that asks. A body that asks
// already, or that cannot be read, is returned unchanged.
func withIncludeUsage(body []byte) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body
	}
	var opts map[string]json.RawMessage
	if raw, ok := fields["stream_options"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &opts) != nil {
			return body
		}
	}
	if opts == nil {
		opts = map[string]json.RawMessage{}
	}
	if string(opts["include_usage"]) == "true" {
		return body
	}
	opts["include_usage"] = json.RawMessage("true")
	fields["stream_options"], _ = json.Marshal(opts)
	out, err := json.Marshal(fields)
	if err != nil {
		return body
	}
	return out
}

// Usage is the tokens an answer used, as its provider reported them.
// Input counts every input token, cached ones included (Anthropic's
// cache reads and writes are added to its input_tokens); CachedInput is
// the part read from the provider's cache.
type Usage struct {
	Input, Output, CachedInput int64
}

// minus is u less o, count by count.
func (u Usage) minus(o Usage) Usage {
	return Usage{Input: u.Input - o.Input, Output: u.Output - o.Output, CachedInput: u.CachedInput - o.CachedInput}
}

// Total is the input and output tokens.
func (u Usage) Total() int64 { return u.Input + u.Output }

// read takes the usage an event or a whole answer reports: Chat's usage
// (a stream's last chunk with stream_options.include_usage), Responses'
// response.usage (response.completed, .incomplete, .failed), Anthropic's
// message.usage (message_start) and usage (message_delta: running
// totals). Each count keeps its largest value: the providers' counts in
// one stream only grow. It is the one place usage is read from an
// upstream's answer.
func (u *Usage) read(data []byte) {
	if !bytes.Contains(data, []byte(`"usage"`)) {
		return
	}
	var p usageReport
	if json.Unmarshal(data, &p) != nil {
		return
	}
	take(u, &p)
}

// usageCounts is the counts of one usage object, in any provider's names.
type usageCounts struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheRead           int64 `json:"cache_read_input_tokens"`
	CacheWrite          int64 `json:"cache_creation_input_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

// report is where an event or a whole answer reports usage and its
// response id, in any provider's place: Chat's top level, Responses'
// response, Anthropic's message. ID is string where the id is read
// (answerHead) and noID where it is not (usageReport).
type report[ID any] struct {
	ID       ID             `json:"id"`
	Usage    *usageCounts   `json:"usage"`
	Response reportPart[ID] `json:"response"`
	Message  reportPart[ID] `json:"message"`
}

// reportPart is the response or message object of a report.
type reportPart[ID any] struct {
	ID    ID           `json:"id"`
	Usage *usageCounts `json:"usage"`
}

// noID takes any JSON value and keeps nothing: usage is read whatever the
// id's type.
type noID struct{}

func (*noID) UnmarshalJSON([]byte) error { return nil }

// usageReport is where an event or answer reports usage (read).
type usageReport = report[noID]

// answerHead is what the gateway reads of a stream's first event or of a
// whole answer before it relays it: its response id (responseID) and the
// usage it reports (Usage.read), in one decode instead of one each; the
// first event's is on the way to the client's first byte, a whole
// answer's is over the whole answer.
type answerHead = report[string]

// take keeps the largest of each count p reports and u holds.
func take[ID any](u *Usage, p *report[ID]) {
	for _, c := range []*usageCounts{p.Usage, p.Response.Usage, p.Message.Usage} {
		if c == nil {
			continue
		}
		in := c.PromptTokens + c.InputTokens + c.CacheRead + c.CacheWrite
		cached := c.PromptTokensDetails.CachedTokens + c.InputTokensDetails.CachedTokens + c.CacheRead
		u.Input = max(u.Input, in)
		u.Output = max(u.Output, c.CompletionTokens+c.OutputTokens)
		u.CachedInput = max(u.CachedInput, cached)
	}
}

// readHead returns data's response id and takes its usage into u, as
// responseID and u.read would. Data the one decode does not take whole
// (a member of another type than these) is read by those two apart, so
// either still reads what it can alone.
func readHead(data []byte, u *Usage) (id string) {
	var h answerHead
	if json.Unmarshal(data, &h) != nil {
		u.read(data)
		return responseID(data)
	}
	take(u, &h)
	return firstID(h.Response.ID, h.Message.ID, h.ID)
}
