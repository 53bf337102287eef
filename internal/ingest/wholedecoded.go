package ingest

import "fmt"

// A whole answer read once. StreamEventsOf writes a non-streamed answer
// out as the JSON events its streamed form would have sent, and the
// normaliser then decodes each of them: the answer is parsed, written and
// parsed again. DecodeWhole reads a Chat Completions answer with the
// scanner in one pass instead and builds the chunks those events would
// decode to, which the normaliser applies as it applies a chunk it
// scanned (Stream.FeedWhole): the same canonical events, from one decode.

// wholeDecodedMax is the largest answer read into chunks: no event of its
// streamed form can then exceed EventMax (a chunk repeats the answer's
// top-level members and adds at most 20 bytes to each choice and call, an
// element of at least 3 bytes: under 8 times the answer), so none is
// refused for its size where the JSON events would have been. A larger
// answer goes the way of StreamEventsOf.
const wholeDecodedMax = EventMax / 16

// WholeAnswer is a non-streamed answer ready to normalise: the events its
// streamed form would have sent (StreamEventsOf), as JSON or as the
// decoded chunks of a Chat Completions answer. It refers to the body it
// was read from, which must not change while it is used.
type WholeAnswer struct {
	format Format
	body   []byte
	chat   []*chatChunk // the decoded events; nil when they are JSON
	events [][]byte     // the events as JSON (StreamEventsOf), made when needed
}

// DecodeWhole reads body, a provider's complete answer of format f, as
// StreamEventsOf does and with the same errors. A Chat Completions answer
// the scanner reads whole (jsonscan.go: anything it is not sure of goes
// to StreamEventsOf, which decides) is read once, into chunks, and never
// written out as JSON.
func DecodeWhole(f Format, body []byte) (*WholeAnswer, error) {
	if f == FormatOpenAIChat && len(body) <= wholeDecodedMax {
		if chunks, ok := chatChunksOf(body); ok {
			return &WholeAnswer{format: f, body: body, chat: chunks}, nil
		}
	}
	evs, err := StreamEventsOf(f, body)
	if err != nil {
		return nil, err
	}
	return &WholeAnswer{format: f, body: body, events: evs}, nil
}

// Len is the number of events of the answer's streamed form.
func (a *WholeAnswer) Len() int {
	if a.chat != nil {
		return len(a.chat)
	}
	return len(a.events)
}

// Decoded reports whether the answer was read into chunks (no JSON events).
func (a *WholeAnswer) Decoded() bool { return a.chat != nil }

// Events returns the events as JSON: those StreamEventsOf made, or, for a
// decoded answer, StreamEventsOf's now.
func (a *WholeAnswer) Events() ([][]byte, error) {
	if a.events == nil {
		evs, err := StreamEventsOf(a.format, a.body)
		if err != nil {
			return nil, fmt.Errorf("ingest: events of a decoded answer: %w", err)
		}
		a.events = evs
	}
	return a.events, nil
}

// chatChunksOf reads a chat.completion into the chunks chatEventsOf's
// events decode to: one with every choice's message as its delta (its
// tool calls numbered by their place), one with the finish reasons, and
// one with the usage when there is one, each with the answer's id, model
// and error. ok false leaves the answer to StreamEventsOf: the scanner
// gave up or found a misspelt key, or the answer is not one chatEventsOf
// converts (it decides the error).
func chatChunksOf(body []byte) (chunks []*chatChunk, ok bool) {
	c, ok, bad := scanChatChecked(body)
	if !ok || bad != nil || c.Choices == nil || c.Object != "" && c.Object != "chat.completion" {
		return nil, false
	}
	chs := *c.Choices
	deltas, finishes := make([]chatChoice, len(chs)), make([]chatChoice, len(chs))
	indexes := make([]int, len(chs))
	for i, ch := range chs {
		if ch.Message == nil {
			return nil, false
		}
		idx := ch.Index
		if idx == nil {
			indexes[i] = i
			idx = &indexes[i]
		}
		d := *ch.Message
		if len(d.ToolCalls) > 0 {
			calls := make([]chatToolCall, len(d.ToolCalls))
			places := make([]int, len(d.ToolCalls))
			for k, tc := range d.ToolCalls {
				places[k] = k
				calls[k] = chatToolCall{Index: &places[k], ID: tc.ID, Function: tc.Function}
			}
			d.ToolCalls = calls
		}
		deltas[i] = chatChoice{Index: idx, Delta: &d}
		finishes[i] = chatChoice{Index: idx, Delta: &chatDelta{}, FinishReason: ch.FinishReason}
	}
	chunk := func(choices []chatChoice) *chatChunk {
		return &chatChunk{ID: c.ID, Object: "chat.completion.chunk", Model: c.Model, Choices: &choices, Error: c.Error}
	}
	chunks = []*chatChunk{chunk(deltas), chunk(finishes)}
	if present(c.Usage) {
		u := chunk([]chatChoice{})
		u.Usage = c.Usage
		chunks = append(chunks, u)
	}
	return chunks, true
}

// feedChat is feed of a Chat chunk already decoded: what feed does with
// the JSON of c on a stream of Chat Completions.
func (n *Normalizer) feedChat(c *chatChunk) ([]Out, error) {
	apply, err := n.chatChecked(c)
	if err != nil {
		return nil, err
	}
	n.out = nil
	apply()
	out := n.out
	n.out = nil
	return out, nil
}
