package ingest

import (
	"encoding/json"
	"fmt"

	"github.com/toolstream/toolstream/events"
)

// OpenAI Chat Completions and every OpenAI-compatible server.
//
// Identities: the response id is the chunk id (the first one seen: some
// compatible servers change it on every chunk, so a change while the response
// is open is ignored; a new id after the response ended starts a new
// response). Each choice keeps its own calls, so parallel choices (n>1) never
// share a buffer. Within a choice a call is found by tool_calls[].index: a
// fragment whose id differs from the id of the open call at that index starts
// a NEW call; a fragment without id — or with the same id, and with or
// without an (empty) name — continues it. Servers that send no index at all
// (Mistral) start a call with every new id and continue the most recent call
// of the choice otherwise. The legacy delta.function_call is one more call
// of the choice. Item ids are the call id when it is present and unused in
// the response, else "choice<c>.tool<index>.<n>" ("choice<c>.call<n>"
// without index, "choice<c>.function_call.<n>" for the legacy form) where n
// counts the calls of the response: the same call always keeps its item.
//
// Completion (DESIGN invariant 1): only the choice's finish_reason
// "tool_calls", "stop" or "function_call" (and the synonyms some servers use:
// "end_turn", "stop_sequence", "eos", "eos_token") completes the choice's open
// calls — ArgumentsDone for each, or OutputItemDone carrying the name when the
// name only arrived after the call opened. A new index starting is not a
// signal. "length" (and "max_tokens", "model_length",
// "model_context_window_exceeded") ends the response incomplete/truncated
// with the calls left open; "content_filter" (and "safety", "sensitive",
// "refusal") incomplete/content_filter; "cancelled"/"abort" incomplete/
// cancelled; "error" and any finish reason not listed here fail the response
// with the reason as code, so an unknown word never completes a call. A chunk
// with an "error" object (in-band error of an HTTP 200 stream) fails the
// response, also after every choice has finished: the response's verdict is
// held until the next chunk (usually the usage chunk) or the stream's end, so
// an error that follows the finish reason wins; a chunk that only repeats
// the finish reasons keeps it held. The calls complete at the
// finish reason all the same. Reasoning (reasoning_content, reasoning) and refusal text are not
// display text and are dropped. A usage-only chunk with no choices is normal
// and produces nothing. A whole chat.completion (choices[].message instead of
// delta) is read as a single chunk.

type chatChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Model   string          `json:"model"`
	Choices *[]chatChoice   `json:"choices"`
	Error   json.RawMessage `json:"error"`
	Usage   json.RawMessage `json:"usage"`
}

// chatUsage is a Chat Completions usage object.
type chatUsage struct {
	Prompt     *int64 `json:"prompt_tokens"`
	Completion *int64 `json:"completion_tokens"`
}

// chatNoteUsage notes a chunk's usage onto the open response.
func (n *Normalizer) chatNoteUsage(raw json.RawMessage) {
	var u chatUsage
	if isObject(raw) && json.Unmarshal(raw, &u) == nil {
		n.noteUsage(u.Prompt, u.Completion)
	}
}

type chatChoice struct {
	Index        *int       `json:"index"`
	Delta        *chatDelta `json:"delta"`
	Message      *chatDelta `json:"message"` // a whole (non-streamed) completion, read as one delta
	FinishReason *string    `json:"finish_reason"`
}

type chatDelta struct {
	Content      json.RawMessage `json:"content"`
	ToolCalls    []chatToolCall  `json:"tool_calls"`
	FunctionCall *chatFunction   `json:"function_call"`
}

type chatToolCall struct {
	Index    *int          `json:"index"`
	ID       *string       `json:"id"`
	Function *chatFunction `json:"function"`
}

type chatFunction struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (n *Normalizer) decodeChat(raw []byte) (func(), error) {
	var c chatChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%w: chat chunk: %v", ErrUnknownShape, err)
	}
	return n.chatChecked(&c)
}

// chatChecked checks a decoded chunk and returns what applies it.
func (n *Normalizer) chatChecked(c *chatChunk) (func(), error) {
	if c.Choices == nil && !present(c.Error) && !present(c.Usage) && c.Object != "chat.completion.chunk" {
		return nil, fmt.Errorf("%w: chat chunk without choices", ErrUnknownShape)
	}
	if c.Choices != nil {
		idxs := make([]int, 0, len(*c.Choices))
		for _, ch := range *c.Choices {
			idxs = append(idxs, deref(ch.Index))
		}
		r := &n.st.R
		fresh := !r.Started || (r.Ended || r.Held) && c.ID != "" && c.ID != r.ID
		if len(r.Choices)*boolInt(!fresh)+n.newChoices(idxs, fresh) > ChoicesMax {
			return nil, fmt.Errorf("%w: more than %d choices", ErrTooLarge, ChoicesMax)
		}
	}
	return func() { n.applyChat(c) }, nil
}

func (n *Normalizer) applyChat(c *chatChunk) {
	hasErr := present(c.Error)
	if present(c.Usage) {
		n.chatNoteUsage(c.Usage) // usually the chunk after the finish reasons: the held response's
	}
	if !hasErr && n.repeatsFinish(c) {
		return // the finish reasons said again: still held, an error may follow
	}
	if !hasErr {
		n.release() // the chunk after the finish reasons is no error
	}
	if (c.Choices == nil || len(*c.Choices) == 0) && !hasErr {
		return // usage-only chunk
	}
	n.restartImplicit(c.ID, c.Model)
	if present(c.Usage) {
		n.chatNoteUsage(c.Usage) // a whole completion, or a chunk with choices and usage
	}
	if c.Choices != nil {
		for _, ch := range *c.Choices {
			n.chatChoice(ch)
		}
	}
	if hasErr {
		code, msg := chatError(c.Error)
		n.finish(&events.ResponseFailed{Code: code, Message: msg})
		return
	}
	if c.Object == "chat.completion" {
		n.settle() // a whole completion: nothing follows it
		return
	}
	n.hold()
}

// repeatsFinish reports whether c only says again what the held
// response's finished choices said (some servers repeat the finish reason
// over several chunks before the stream ends, or before an in-band
// error): every choice of it has finished already and it brings no text,
// no call and no usage.
func (n *Normalizer) repeatsFinish(c *chatChunk) bool {
	r := &n.st.R
	if !r.Held || r.Ended || c.Choices == nil || len(*c.Choices) == 0 || present(c.Usage) || c.ID != "" && c.ID != r.ID {
		return false
	}
	for _, ch := range *c.Choices {
		finished := false
		for _, rc := range r.Choices {
			if rc.Index == deref(ch.Index) {
				finished = rc.Finished
			}
		}
		if !finished {
			return false
		}
		d := ch.Delta
		if d == nil {
			d = ch.Message
		}
		if d != nil && (contentText(d.Content) != "" || len(d.ToolCalls) > 0 || d.FunctionCall != nil) {
			return false
		}
	}
	return true
}

// chatError reads an in-band error: an object, or (some servers) a string.
func chatError(raw json.RawMessage) (code, msg string) {
	var e apiError
	if isObject(raw) && json.Unmarshal(raw, &e) == nil {
		code, msg = e.code(), e.Message
	} else {
		msg = scalarText(raw)
	}
	if code == "" {
		code = "error"
	}
	return code, msg
}

func (n *Normalizer) chatChoice(ch chatChoice) {
	ci := deref(ch.Index)
	n.choiceAt(ci)
	d := ch.Delta
	if d == nil {
		d = ch.Message
	}
	if d != nil {
		n.text(chatTextKey(ci), ci, contentText(d.Content))
		for _, tc := range d.ToolCalls {
			id, name, args := "", "", ""
			if tc.ID != nil {
				id = *tc.ID
			}
			if tc.Function != nil {
				name, args = derefStr(tc.Function.Name), fragmentText(tc.Function.Arguments)
			}
			n.chatFragment(ci, tc.Index != nil, deref(tc.Index), id, name, args)
		}
		if f := d.FunctionCall; f != nil {
			n.chatFragment(ci, true, legacyIndex, "", derefStr(f.Name), fragmentText(f.Arguments))
		}
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		n.chatFinish(ci, *ch.FinishReason)
	}
}

// legacyIndex is the tool index given to the legacy delta.function_call.
const legacyIndex = -1

func chatTextKey(ci int) string { return "choice" + itoa(ci) + ".text" }

// contentText returns delta.content: a string, or the text parts of an array
// of content parts (some compatible servers).
func contentText(raw json.RawMessage) string {
	if !present(raw) {
		return ""
	}
	if raw[0] == '"' {
		return scalarText(raw)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	s := ""
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			s += p.Text
		}
	}
	return s
}

// chatCurrent returns the call a fragment of choice ci continues, or -1.
func (n *Normalizer) chatCurrent(ci int, hasIdx bool, idx int) int {
	items := n.st.R.Items
	for i := len(items) - 1; i >= 0; i-- {
		it := &items[i]
		if it.Tag || it.Type != events.ItemFunctionCall || it.Choice != ci {
			continue
		}
		if !hasIdx || (!it.NoIndex && it.Index == idx) {
			return i
		}
	}
	return -1
}

func (n *Normalizer) chatFragment(ci int, hasIdx bool, idx int, id, name, args string) {
	j := n.chatCurrent(ci, hasIdx, idx)
	if j < 0 || !n.st.R.Items[j].Open || (id != "" && id != n.st.R.Items[j].CallID) {
		j = n.chatOpen(ci, hasIdx, idx, id, name)
	} else if it := &n.st.R.Items[j]; name != "" && it.Name == "" {
		it.Name, it.LateName = name, true
	}
	if args == "" {
		return
	}
	it := &n.st.R.Items[j]
	it.Deltas = true
	n.emitItem(it, &events.ArgumentsDelta{Delta: args})
}

func (n *Normalizer) chatOpen(ci int, hasIdx bool, idx int, id, name string) int {
	num := n.nextCall()
	var synthetic string
	switch {
	case hasIdx && idx == legacyIndex:
		synthetic = "choice" + itoa(ci) + ".function_call." + itoa(num)
	case hasIdx:
		synthetic = "choice" + itoa(ci) + ".tool" + itoa(idx) + "." + itoa(num)
	default:
		synthetic = "choice" + itoa(ci) + ".call" + itoa(num)
		idx = num
	}
	itemID := synthetic
	if id != "" && n.uniqueID(id) == id {
		itemID = id
	}
	j := n.addItem(item{ID: n.uniqueID(itemID), CallID: id, Name: name, Type: events.ItemFunctionCall,
		Choice: ci, Index: idx, NoIndex: !hasIdx, Open: true})
	it := &n.st.R.Items[j]
	n.emitItem(it, &events.OutputItemAdded{Type: events.ItemFunctionCall, Index: idx, Name: name})
	return j
}

func (n *Normalizer) chatFinish(ci int, reason string) {
	k := n.choiceAt(ci)
	if n.st.R.Choices[k].Finished {
		return
	}
	v := chatVerdict(reason)
	if v.Kind == outCompleted {
		for i := range n.st.R.Items {
			it := &n.st.R.Items[i]
			if it.Tag || it.Type != events.ItemFunctionCall || it.Choice != ci || !it.Open {
				continue
			}
			it.Open = false
			n.emitItem(it, completion(it))
		}
	}
	n.endScan(chatTextKey(ci))
	n.st.R.Choices[k].Finished = true
	n.st.R.Choices[k].V = v
}

// completion is the completion signal of a call whose arguments came as
// deltas: ArgumentsDone, with "{}" when no argument text arrived at all, or
// OutputItemDone when the call's name arrived after it opened.
func completion(it *item) events.Body {
	args, has := "", false
	if !it.Deltas {
		args, has = "{}", true
	}
	if it.LateName {
		return &events.OutputItemDone{Type: events.ItemFunctionCall, Name: it.Name, Arguments: args, HasArguments: has}
	}
	return &events.ArgumentsDone{Arguments: args, HasArguments: has}
}

func chatVerdict(reason string) verdict {
	switch reason {
	case "stop", "tool_calls", "function_call", "end_turn", "stop_sequence", "eos", "eos_token":
		return completed(reason)
	case "length", "max_tokens", "model_length", "model_context_window_exceeded":
		return incomplete(events.ReasonTruncated, reason)
	case "content_filter", "safety", "sensitive", "refusal":
		return incomplete(events.ReasonContentFilter, reason)
	case "cancelled", "canceled", "abort":
		return incomplete(events.ReasonCancelled, reason)
	}
	return failed(reason, "finish_reason "+quoteJSON(reason))
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
