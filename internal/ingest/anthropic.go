package ingest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// Anthropic Messages.
//
// Identities: message_start names the response (message.id); content blocks
// are found by their index within the message; a tool_use block's item is its
// tool_use id (unique), or "block<index>" when it has none; text blocks are
// the text items "block<index>".
//
// Completion (DESIGN invariant 1): a tool_use block is complete when its
// content_block_stop has arrived AND the message's stop_reason (message_delta)
// has arrived and is not a truncation. So a stopped block is remembered, and at
// the stop_reason:
//
//   - "max_tokens" / "model_context_window_exceeded": ResponseIncomplete
//     truncated — stopped and open blocks alike are left to the assembler,
//     which makes them incomplete;
//   - "refusal": ResponseIncomplete content_filter, likewise;
//   - anything else (tool_use, end_turn, stop_sequence, pause_turn…):
//     ArgumentsDone for each stopped tool_use block, then ResponseCompleted.
//     A block still open at that point gets nothing.
//
// The terminal event itself waits for message_stop: an error event after
// message_delta's stop_reason and before message_stop fails the response
// (the error decides, as in Chat), whatever the stop_reason said. A stream
// that ends, or a new message_start, without message_stop releases the held
// verdict as message_stop would.
//
// The arguments are the concatenated input_json_delta fragments. The input of
// content_block_start is a placeholder ({}): it is used as the arguments only
// when no non-empty fragment ever arrived (a call without arguments).
//
// message_stop without any stop_reason ends the response ResponseIncomplete
// with Reason events.ReasonStreamEnded: the message ended but the protocol's
// confirmation never came, so nothing may complete (it is not a truncation
// the provider reported, nor a cancellation). A new message_start while the
// previous message has not ended (spliced streams) aborts every open tool
// block of the old message, stopped-but-unconfirmed ones included, with
// ItemAborted{ReasonDiscarded} before the new response starts. Server-side
// tools (server_tool_use, mcp_tool_use, web_search_tool_result, code
// execution results, …) are ItemServerTool items, never client calls;
// thinking blocks and thinking/signature/citation deltas are dropped; ping
// is ignored wherever it comes, also inside a tool block; an error event
// fails the response.

type anthEvent struct {
	Type         string          `json:"type"`
	Message      *anthMessage    `json:"message"`
	Index        *int            `json:"index"`
	ContentBlock *anthBlock      `json:"content_block"`
	Delta        *anthDelta      `json:"delta"`
	Error        json.RawMessage `json:"error"`
	Usage        *anthUsage      `json:"usage"` // message_delta's running totals
}

type anthMessage struct {
	ID    string     `json:"id"`
	Model string     `json:"model"`
	Usage *anthUsage `json:"usage"`
}

// anthUsage is an Anthropic usage object: the input is input_tokens and
// the tokens written to and read from the prompt cache.
type anthUsage struct {
	Input       *int64 `json:"input_tokens"`
	CacheCreate *int64 `json:"cache_creation_input_tokens"`
	CacheRead   *int64 `json:"cache_read_input_tokens"`
	Output      *int64 `json:"output_tokens"`
}

func (n *Normalizer) anthNoteUsage(u *anthUsage) {
	if u != nil {
		n.noteUsage(sum(u.Input, u.CacheCreate, u.CacheRead), u.Output)
	}
}

type anthBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Text  string          `json:"text"`
	Input json.RawMessage `json:"input"`
}

type anthDelta struct {
	Type        string  `json:"type"`
	PartialJSON string  `json:"partial_json"`
	Text        string  `json:"text"`
	StopReason  *string `json:"stop_reason"`
}

func (n *Normalizer) decodeAnthropic(raw []byte) (func(), error) {
	var env struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Type == nil {
		return nil, fmt.Errorf("%w: anthropic event without \"type\"", ErrUnknownShape)
	}
	if !anthKnown(*env.Type) {
		return unknownAnthType(*env.Type) // ping, and types added after this was written
	}
	var ev anthEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnknownShape, *env.Type, err)
	}
	return n.anthChecked(&ev)
}

// anthTypes are the event types the adapter reads; anthDeltaTypes the
// content_block_delta types it reads (thinking, signature and citation
// deltas, and types added later, are dropped).
var (
	anthTypes = []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "error"}
	anthDeltaTypes = []string{"input_json_delta", "text_delta"}
	// anthBlockTypes are the content block types the adapter reads by
	// name; server tools are also told by their suffix (anthServerTool).
	anthBlockTypes = []string{"tool_use", "text", "thinking", "redacted_thinking",
		"server_tool_use", "mcp_tool_use", "mcp_tool_result", "container_upload"}
)

// anthKnown reports whether the adapter reads events of type typ.
func anthKnown(typ string) bool {
	return slices.Contains(anthTypes, typ)
}

// unknownAnthType ignores an event of a type the adapter does not read,
// unless the type is one byte off one it reads.
func unknownAnthType(typ string) (func(), error) {
	if err := corruptedType("anthropic event type", typ, anthTypes); err != nil {
		return nil, err
	}
	return func() {}, nil
}

// anthTyped takes an event the scanner decoded whole: its "type" (nil when
// absent or null) and the event.
func (n *Normalizer) anthTyped(typ *string, ev *anthEvent) (func(), error) {
	if typ == nil {
		return nil, fmt.Errorf("%w: anthropic event without \"type\"", ErrUnknownShape)
	}
	if !anthKnown(*typ) {
		return unknownAnthType(*typ)
	}
	return n.anthChecked(ev)
}

// anthChecked checks a decoded event of a known type and returns what
// applies it.
func (n *Normalizer) anthChecked(ev *anthEvent) (func(), error) {
	bad := ""
	switch ev.Type {
	case "message_start":
		if ev.Message == nil {
			bad = "message"
		}
	case "content_block_start":
		if ev.Index == nil || ev.ContentBlock == nil {
			bad = "index and content_block"
		} else if err := corruptedType("anthropic content block type", ev.ContentBlock.Type, anthBlockTypes); err != nil {
			return nil, err
		}
	case "content_block_delta":
		if ev.Index == nil || ev.Delta == nil {
			bad = "index and delta"
		} else if err := corruptedType("anthropic delta type", ev.Delta.Type, anthDeltaTypes); err != nil {
			return nil, err
		}
	case "content_block_stop":
		if ev.Index == nil {
			bad = "index"
		}
	}
	if bad != "" {
		return nil, fmt.Errorf("%w: %s without %s", ErrUnknownShape, ev.Type, bad)
	}
	return func() { n.applyAnthropic(ev) }, nil
}

func (n *Normalizer) applyAnthropic(ev *anthEvent) {
	switch ev.Type {
	case "message_start":
		n.anthStart(ev.Message)
	case "content_block_start":
		n.begin("", "")
		n.anthBlockStart(*ev.Index, ev.ContentBlock)
	case "content_block_delta":
		n.begin("", "")
		n.anthDelta(*ev.Index, ev.Delta)
	case "content_block_stop":
		n.begin("", "")
		n.anthBlockStop(*ev.Index)
	case "message_delta":
		n.begin("", "")
		n.anthNoteUsage(ev.Usage)
		if ev.Delta != nil && ev.Delta.StopReason != nil && *ev.Delta.StopReason != "" {
			n.anthStopReason(*ev.Delta.StopReason)
		}
	case "message_stop":
		n.release() // the stop_reason's verdict, held for an error that may come first
		n.finish(&events.ResponseIncomplete{Reason: events.ReasonStreamEnded})
	case "error":
		code, msg := chatError(ev.Error)
		n.finish(&events.ResponseFailed{Code: code, Message: msg})
	}
}

func (n *Normalizer) anthStart(m *anthMessage) {
	r := &n.st.R
	if r.Started && m.ID != "" && m.ID == r.ID {
		return // the same message announced again
	}
	n.release() // a new message without message_stop: the old one ended at its stop_reason
	if r.Started && !r.Ended {
		n.abortOpen(events.ReasonDiscarded, "a new message started")
	}
	n.start(m.ID, m.Model)
	n.anthNoteUsage(m.Usage)
}

func blockKey(idx int) string { return "block" + itoa(idx) }

func (n *Normalizer) anthBlockStart(idx int, b *anthBlock) {
	key := blockKey(idx)
	if j := n.findKey(key); j >= 0 {
		// A second start for an index still open: the first block was abandoned.
		if it := &n.st.R.Items[j]; it.Open {
			it.Open = false
			if it.Type == events.ItemFunctionCall {
				n.emitItem(it, &events.ItemAborted{Reason: events.ReasonDiscarded, Detail: "content block index started again"})
			}
		}
	}
	switch b.Type {
	case "tool_use":
		id := b.ID
		if id == "" {
			id = key
		}
		it := item{ID: n.uniqueID(id), Key: key, CallID: b.ID, Name: b.Name, Type: events.ItemFunctionCall,
			Index: idx, Open: true}
		if present(b.Input) {
			it.Args, it.HasArgs = compactJSON(b.Input), true
		}
		j := n.addItem(it)
		n.emitItem(&n.st.R.Items[j], &events.OutputItemAdded{Type: events.ItemFunctionCall, Index: idx, Name: b.Name})
	case "text":
		n.addItem(item{ID: key, Key: key, Type: events.ItemText, Index: idx, Open: true})
		n.text(key, idx, b.Text)
	case "thinking", "redacted_thinking":
		n.addItem(item{ID: key, Key: key, Type: events.ItemReasoning, Index: idx, Open: true})
	default:
		kind := events.ItemOther
		if anthServerTool(b.Type) {
			kind = events.ItemServerTool
		}
		id := b.ID
		if id == "" {
			id = key
		}
		name := b.Name
		if name == "" {
			name = b.Type
		}
		j := n.addItem(item{ID: n.uniqueID(id), Key: key, CallID: b.ID, Name: name, Type: kind, Index: idx, Open: true})
		n.emitItem(&n.st.R.Items[j], &events.OutputItemAdded{Type: kind, Index: idx, Name: name})
	}
}

// anthServerTool reports whether a content block type is a tool the provider
// runs (or its result).
func anthServerTool(typ string) bool {
	return typ == "server_tool_use" || typ == "mcp_tool_use" || typ == "mcp_tool_result" ||
		typ == "container_upload" || strings.HasSuffix(typ, "_tool_use") || strings.HasSuffix(typ, "_tool_result")
}

func (n *Normalizer) anthDelta(idx int, d *anthDelta) {
	j := n.findKey(blockKey(idx))
	if j < 0 {
		return // a delta for a block that never started cannot become a call
	}
	it := &n.st.R.Items[j]
	if !it.Open || it.Stopped {
		return
	}
	switch {
	case d.Type == "input_json_delta" && it.Type == events.ItemFunctionCall:
		if d.PartialJSON != "" {
			it.Deltas = true
			n.emitItem(it, &events.ArgumentsDelta{Delta: d.PartialJSON})
		}
	case d.Type == "text_delta" && it.Type == events.ItemText:
		n.text(it.ID, idx, d.Text)
	}
}

func (n *Normalizer) anthBlockStop(idx int) {
	j := n.findKey(blockKey(idx))
	if j < 0 {
		return
	}
	it := &n.st.R.Items[j]
	if !it.Open || it.Stopped {
		return
	}
	switch it.Type {
	case events.ItemFunctionCall:
		it.Stopped = true // complete only once the stop_reason confirms it
	case events.ItemServerTool, events.ItemOther:
		it.Open = false
		n.emitItem(it, &events.OutputItemDone{Type: it.Type})
	case events.ItemText:
		it.Open = false
		n.endScan(it.ID)
	default:
		it.Open = false
	}
}

func (n *Normalizer) anthStopReason(stop string) {
	if n.st.R.Ended || n.st.R.Held {
		return // the first stop_reason decides
	}
	switch stop {
	case "max_tokens", "model_context_window_exceeded":
		n.anthHold(incomplete(events.ReasonTruncated, stop))
		return
	case "refusal":
		n.anthHold(incomplete(events.ReasonContentFilter, stop))
		return
	}
	for i := range n.st.R.Items {
		it := &n.st.R.Items[i]
		if it.Tag || it.Type != events.ItemFunctionCall || !it.Open || !it.Stopped {
			continue
		}
		it.Open = false
		done := &events.ArgumentsDone{}
		if !it.Deltas {
			done.Arguments, done.HasArguments = "{}", true
			if it.HasArgs {
				done.Arguments = it.Args
			}
		}
		n.emitItem(it, done)
	}
	n.anthHold(completed(stop))
}

// anthHold notes the verdict of the stop_reason without ending the
// response: message_stop (or a new message_start, or the stream's end)
// releases it, and an error event before that fails the response instead.
// The message is one choice, index 0, for the shared hold (choice.go).
func (n *Normalizer) anthHold(v verdict) {
	r := &n.st.R
	r.Choices = append(r.Choices[:0], choice{Index: 0, Finished: true, V: v})
	n.hold()
}
