package ingest

import (
	"encoding/json"
	"fmt"

	"github.com/toolstream/toolstream/events"
)

// Gemini / Vertex streamGenerateContent.
//
// Identities: the response id is responseId (the stream id when absent; a
// new responseId after the response ended starts a new response). Calls
// rarely have ids: a call's item is "cand<c>.call<n>", n counting the calls of
// the response from 0; CallID is functionCall.id when present.
//
// Calls come in two shapes:
//
//   - whole calls {name, args[, id]}: OutputItemAdded carries the arguments
//     (the compact JSON of args, "{}" when absent) with HasArguments; the call
//     completes when its candidate's finishReason arrives and is not a cut;
//   - streamed calls (streamFunctionCallArguments): {name, willContinue:true}
//     opens the call; parts {partialArgs:[{jsonPath, stringValue | numberValue
//     | boolValue | nullValue, willContinue}]} add values by path (a string
//     may come in pieces, more following while the partial arg's willContinue
//     is true); a part {willContinue:true} alone is a keep-alive; the empty
//     closing part functionCall:{} (no name, no partialArgs, no willContinue)
//     completes the call: ArgumentsDone with the JSON built from the paths.
//     When the closing part never comes, a finishReason that is not a cut
//     completes it instead (DESIGN invariant 1).
//
// finishReason: STOP, OTHER, FINISH_REASON_UNSPECIFIED complete;
// MAX_TOKENS is a truncation (open calls stay open); SAFETY, RECITATION,
// BLOCKLIST, PROHIBITED_CONTENT, SPII and the IMAGE_ variants are
// content_filter; MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL and anything
// else fail the response with the reason as code. A prompt blocked before any
// candidate (promptFeedback.blockReason) is content_filter; an in-band error
// object fails the response, also after every candidate finished: as in
// Chat, the verdict is held until the next chunk (a usage-only one, a new
// response's) or the stream's end, so an error chunk that follows the
// finishReason wins, and a chunk that only says finishReason again keeps
// it held. Text parts are display text; parts with thought:true are
// reasoning and dropped.

type gemChunk struct {
	Candidates     []gemCandidate `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata json.RawMessage `json:"usageMetadata"`
	ModelVersion  string          `json:"modelVersion"`
	ResponseID    string          `json:"responseId"`
	Error         *apiError       `json:"error"`
}

type gemCandidate struct {
	Index   *int `json:"index"`
	Content *struct {
		Parts []gemPart `json:"parts"`
	} `json:"content"`
	FinishReason string `json:"finishReason"`
}

type gemPart struct {
	Text         *string  `json:"text"`
	Thought      bool     `json:"thought"`
	FunctionCall *gemCall `json:"functionCall"`
}

type gemCall struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
	PartialArgs  []gemPartial    `json:"partialArgs"`
	WillContinue bool            `json:"willContinue"`
}

type gemPartial struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  json.RawMessage `json:"numberValue"`
	BoolValue    *bool           `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue bool            `json:"willContinue"`
}

func (n *Normalizer) decodeGemini(raw []byte) (func(), error) {
	var c gemChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%w: gemini chunk: %v", ErrUnknownShape, err)
	}
	return n.gemChecked(&c)
}

// gemChecked checks a decoded chunk and returns what applies it.
func (n *Normalizer) gemChecked(c *gemChunk) (func(), error) {
	if c.Candidates == nil && c.PromptFeedback == nil && c.Error == nil && !present(c.UsageMetadata) &&
		c.ModelVersion == "" && c.ResponseID == "" {
		return nil, fmt.Errorf("%w: gemini chunk without candidates", ErrUnknownShape)
	}
	idxs := make([]int, 0, len(c.Candidates))
	for _, cand := range c.Candidates {
		idxs = append(idxs, deref(cand.Index))
	}
	r := &n.st.R
	fresh := !r.Started || r.Ended && c.ResponseID != "" && c.ResponseID != r.ID
	if len(r.Choices)*boolInt(!fresh)+n.newChoices(idxs, fresh) > ChoicesMax {
		return nil, fmt.Errorf("%w: more than %d candidates", ErrTooLarge, ChoicesMax)
	}
	return func() { n.applyGemini(c) }, nil
}

// gemNoteUsage notes a chunk's usageMetadata (running totals): the output
// is the candidates' tokens and the thinking's.
// Most Gemini chunks carry one, so the scanner reads it (scanInts) and
// encoding/json decides only where the scanner gives up.
func (n *Normalizer) gemNoteUsage(raw json.RawMessage) {
	if !isObject(raw) {
		return
	}
	var prompt, cands, thoughts *int64
	if !scanInts(raw, gemUsageNames, []**int64{&prompt, &cands, &thoughts}) {
		var u struct {
			Prompt     *int64 `json:"promptTokenCount"`
			Candidates *int64 `json:"candidatesTokenCount"`
			Thoughts   *int64 `json:"thoughtsTokenCount"`
		}
		if json.Unmarshal(raw, &u) != nil {
			return
		}
		prompt, cands, thoughts = u.Prompt, u.Candidates, u.Thoughts
	}
	n.noteUsage(prompt, sum(cands, thoughts))
}

// gemUsageNames are the usageMetadata fields gemNoteUsage reads.
var gemUsageNames = []string{"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount"}

func (n *Normalizer) applyGemini(c *gemChunk) {
	blocked := c.PromptFeedback != nil && c.PromptFeedback.BlockReason != ""
	if len(c.Candidates) == 0 && !blocked && c.Error == nil {
		if present(c.UsageMetadata) {
			n.gemNoteUsage(c.UsageMetadata) // onto the open response, if any
		}
		n.release() // the chunk after the finish reasons is no error
		return      // usage-only chunk
	}
	if c.Error == nil && !n.gemRepeatsFinish(c) {
		if present(c.UsageMetadata) {
			n.gemNoteUsage(c.UsageMetadata) // the held response's
		}
		n.release()
	}
	n.restartImplicit(c.ResponseID, c.ModelVersion)
	if present(c.UsageMetadata) {
		n.gemNoteUsage(c.UsageMetadata)
	}
	for i := range c.Candidates {
		n.gemCandidate(&c.Candidates[i])
	}
	switch {
	case c.Error != nil:
		code := c.Error.code()
		if code == "" {
			code = "error"
		}
		n.finish(&events.ResponseFailed{Code: code, Message: c.Error.Message})
	case blocked:
		n.finish(&events.ResponseIncomplete{Reason: events.ReasonContentFilter, StopReason: c.PromptFeedback.BlockReason})
	default:
		n.hold() // every candidate finished: ended by the next chunk, unless it is an error
	}
}

// gemRepeatsFinish reports whether c only says again what the held
// response's finished candidates said: every candidate of it has finished
// already and it brings no part.
func (n *Normalizer) gemRepeatsFinish(c *gemChunk) bool {
	r := &n.st.R
	if !r.Held || r.Ended || len(c.Candidates) == 0 || c.ResponseID != "" && c.ResponseID != r.ID {
		return false
	}
	for _, cand := range c.Candidates {
		finished := false
		for _, rc := range r.Choices {
			if rc.Index == deref(cand.Index) {
				finished = rc.Finished
			}
		}
		if !finished || cand.Content != nil && len(cand.Content.Parts) > 0 {
			return false
		}
	}
	return true
}

func gemTextKey(ci int) string { return "cand" + itoa(ci) + ".text" }

func (n *Normalizer) gemCandidate(cand *gemCandidate) {
	ci := deref(cand.Index)
	n.choiceAt(ci)
	if cand.Content != nil {
		for i := range cand.Content.Parts {
			p := &cand.Content.Parts[i]
			switch {
			case p.FunctionCall != nil:
				n.gemCall(ci, p.FunctionCall)
			case p.Text != nil && !p.Thought:
				n.text(gemTextKey(ci), ci, *p.Text)
			}
		}
	}
	if cand.FinishReason != "" {
		n.gemFinish(ci, cand.FinishReason)
	}
}

// gemStreamed returns the most recent open streamed call of candidate ci, or -1.
func (n *Normalizer) gemStreamed(ci int) int {
	items := n.st.R.Items
	for i := len(items) - 1; i >= 0; i-- {
		if it := &items[i]; !it.Tag && it.Streamed && it.Open && it.Choice == ci {
			return i
		}
	}
	return -1
}

func (n *Normalizer) gemCall(ci int, fc *gemCall) {
	switch {
	case fc.Name != "" && !fc.WillContinue && len(fc.PartialArgs) == 0:
		args := "{}"
		if present(fc.Args) {
			args = compactJSON(fc.Args)
		}
		j := n.gemOpen(ci, fc, false, args)
		n.emitItem(&n.st.R.Items[j], &events.OutputItemAdded{Type: events.ItemFunctionCall,
			Index: n.st.R.Items[j].Index, Name: fc.Name, Arguments: args, HasArguments: true})
	case fc.Name != "":
		j := n.gemOpen(ci, fc, true, "")
		n.emitItem(&n.st.R.Items[j], &events.OutputItemAdded{Type: events.ItemFunctionCall,
			Index: n.st.R.Items[j].Index, Name: fc.Name})
		n.gemPartials(j, fc.PartialArgs)
	case len(fc.PartialArgs) > 0:
		j := n.gemStreamed(ci)
		if j < 0 { // values for a call whose opening part we never saw
			j = n.gemOpen(ci, fc, true, "")
			n.emitItem(&n.st.R.Items[j], &events.OutputItemAdded{Type: events.ItemFunctionCall,
				Index: n.st.R.Items[j].Index})
		}
		n.gemPartials(j, fc.PartialArgs)
	case !fc.WillContinue && !present(fc.Args):
		if j := n.gemStreamed(ci); j >= 0 {
			n.gemClose(j)
		}
	}
}

func (n *Normalizer) gemOpen(ci int, fc *gemCall, streamed bool, args string) int {
	num := n.nextCall()
	it := item{ID: n.uniqueID("cand" + itoa(ci) + ".call" + itoa(num)), CallID: fc.ID, Name: fc.Name,
		Type: events.ItemFunctionCall, Choice: ci, Index: num, Open: true, Streamed: streamed}
	if streamed {
		it.Tree = &node{K: 'o'}
	} else {
		it.Args, it.HasArgs = args, true
	}
	return n.addItem(it)
}

// gemPartials applies partial arguments to streamed call j.
func (n *Normalizer) gemPartials(j int, pas []gemPartial) {
	for i := range pas {
		it := &n.st.R.Items[j]
		if !it.Open || it.Tree == nil {
			return
		}
		v, ok, bad := valueOf(&pas[i])
		if !ok && !bad {
			continue // a partial arg without a value
		}
		path, pathOK := parsePath(pas[i].JSONPath)
		if bad || !pathOK {
			n.gemAbort(it, events.ReasonMalformedEvent, "bad partialArgs value or jsonPath "+quoteJSON(pas[i].JSONPath))
			return
		}
		if it.Size+pathCost(path)+len(v.s) > ArgsMax {
			// Checked before building: an index like [65535] at every level
			// would otherwise allocate the padding first.
			n.gemAbort(it, events.ReasonTooLarge, "partialArgs exceed ArgsMax")
			return
		}
		delta, appended, grew, why := it.Tree.set(path, v)
		if why == events.ReasonTooLarge {
			n.gemAbort(it, why, "partialArgs object has more than KeysMax keys")
			return
		}
		if why != "" {
			n.gemAbort(it, why, "partialArgs path conflicts with earlier values: "+quoteJSON(pas[i].JSONPath))
			return
		}
		it.Size += grew
		if it.Size > ArgsMax {
			n.gemAbort(it, events.ReasonTooLarge, "partialArgs exceed ArgsMax")
			return
		}
		if !it.Touched && appended {
			delta = "{" + delta
		}
		it.Touched = true
		switch {
		case it.NoDelta:
		case !appended:
			it.NoDelta = true
		case delta != "":
			n.emitItem(it, &events.ArgumentsDelta{Delta: delta})
		}
	}
}

func (n *Normalizer) gemAbort(it *item, why events.Reason, detail string) {
	it.Open, it.Tree = false, nil
	n.emitItem(it, &events.ItemAborted{Reason: why, Detail: detail})
}

// gemClose completes streamed call j with the arguments built so far.
func (n *Normalizer) gemClose(j int) {
	it := &n.st.R.Items[j]
	if it.Tree == nil {
		it.Tree = &node{K: 'o'}
	}
	full := string(it.Tree.appendJSON(nil, false))
	if !it.NoDelta {
		tail := "{}"
		if it.Touched {
			tail = string(closers(it.Tree, nil))
		}
		n.emitItem(it, &events.ArgumentsDelta{Delta: tail})
	}
	it.Open, it.Tree = false, nil
	n.emitItem(it, &events.ArgumentsDone{Arguments: full, HasArguments: true})
}

func (n *Normalizer) gemFinish(ci int, reason string) {
	k := n.choiceAt(ci)
	if n.st.R.Choices[k].Finished {
		return
	}
	v := gemVerdict(reason)
	if v.Kind == outCompleted {
		for i := range n.st.R.Items {
			it := &n.st.R.Items[i]
			if it.Tag || it.Type != events.ItemFunctionCall || it.Choice != ci || !it.Open {
				continue
			}
			if it.Streamed {
				n.gemClose(i)
				continue
			}
			it.Open = false
			n.emitItem(it, &events.ArgumentsDone{Arguments: it.Args, HasArguments: true})
		}
	}
	n.endScan(gemTextKey(ci))
	n.st.R.Choices[k].Finished = true
	n.st.R.Choices[k].V = v
}

func gemVerdict(reason string) verdict {
	switch reason {
	case "STOP", "OTHER", "FINISH_REASON_UNSPECIFIED":
		return completed(reason)
	case "MAX_TOKENS":
		return incomplete(events.ReasonTruncated, reason)
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return incomplete(events.ReasonContentFilter, reason)
	}
	return failed(reason, "finishReason "+reason)
}
