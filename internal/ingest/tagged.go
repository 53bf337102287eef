package ingest

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// Tagged text. Some models (Hermes-style templates, many open-weight models
// behind OpenAI-compatible servers) write calls into their display text:
//
//	I'll look that up. <tool_call>{"name":"weather","arguments":{"city":"Paris"}}</tool_call>
//
// With Config.TaggedText every display text stream (Chat delta.content,
// Responses output_text, Anthropic text blocks, Gemini text parts) is scanned:
// text outside the tags stays TextDelta; at "<tool_call>" a call item
// "tag<n>" opens (OutputItemAdded, name unknown yet), the text inside is
// passed on as ArgumentsDelta, and at "</tool_call>" the inner text is parsed
// and OutputItemDone carries the name and the authoritative arguments — the
// close tag is the completion signal (DESIGN invariant 1); nothing else is.
//
// Tags may be split across chunks at any byte. The scanner holds back only
// the longest suffix of the text that could still begin a tag, so no partial
// tag is ever shown as display text, and releases it as soon as the next
// chunk shows it is not a tag (or at the response's end, or Flush). A tag
// still open at the end of the stream leaves its call open.

const (
	openTag  = "<tool_call>"
	closeTag = "</tool_call>"
)

// scan is the tag scanner of one display text stream.
type scan struct {
	Key   string `msgpack:"k"`            // text item id
	Index int    `msgpack:"ix,omitempty"` // TextDelta.Index of the stream
	Hold  string `msgpack:"h,omitempty"`  // held-back possible tag prefix
	In    bool   `msgpack:"in,omitempty"` // inside <tool_call>
	Item  string `msgpack:"it,omitempty"` // the open tag call's item id
	Inner []byte `msgpack:"x,omitempty"`  // inner text so far (≤ ArgsMax); bytes so appends stay linear
	Over  bool   `msgpack:"ov,omitempty"` // the open tag call was aborted; swallow to the close tag
}

// text handles display text s of the text item key.
func (n *Normalizer) text(key string, index int, s string) {
	if s == "" {
		return
	}
	if !n.cfg.TaggedText {
		n.emitText(key, &events.TextDelta{Index: index, Text: s})
		return
	}
	si := n.scanFor(key, index)
	n.scanText(si, s)
}

// scanFor returns the index of key's scanner in r.Scans, adding one if new.
func (n *Normalizer) scanFor(key string, index int) int {
	r := &n.st.R
	for i := range r.Scans {
		if r.Scans[i].Key == key {
			return i
		}
	}
	if len(r.Scans) >= ScansMax {
		n.flushScan(0)
		r.Scans = append(r.Scans[:0], r.Scans[1:]...)
	}
	r.Scans = append(r.Scans, scan{Key: key, Index: index})
	return len(r.Scans) - 1
}

func (n *Normalizer) scanText(si int, s string) {
	sc := &n.st.R.Scans[si]
	buf := sc.Hold + s
	sc.Hold = ""
	for buf != "" {
		tag := openTag
		if sc.In {
			tag = closeTag
		}
		if i := strings.Index(buf, tag); i >= 0 {
			n.scanEmit(sc, buf[:i])
			buf = buf[i+len(tag):]
			if sc.In {
				n.closeTagCall(sc)
			} else {
				n.openTagCall(sc)
			}
			continue
		}
		k := tagPrefixSuffix(buf, tag)
		n.scanEmit(sc, buf[:len(buf)-k])
		sc.Hold = buf[len(buf)-k:]
		return
	}
}

// tagPrefixSuffix returns the length of the longest suffix of s that is a
// proper prefix of tag.
func tagPrefixSuffix(s, tag string) int {
	k := len(tag) - 1
	if k > len(s) {
		k = len(s)
	}
	for ; k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}

// scanEmit passes on text outside (TextDelta) or inside (ArgumentsDelta) a tag.
func (n *Normalizer) scanEmit(sc *scan, s string) {
	if s == "" {
		return
	}
	if !sc.In {
		n.emitText(sc.Key, &events.TextDelta{Index: sc.Index, Text: s})
		return
	}
	if sc.Over {
		return
	}
	ref := n.tagItem(sc.Item)
	if len(sc.Inner)+len(s) > ArgsMax {
		sc.Over, sc.Inner = true, nil
		n.closeItem(sc.Item)
		n.emitItem(ref, &events.ItemAborted{Reason: events.ReasonTooLarge, Detail: "tagged call exceeds ArgsMax"})
		return
	}
	sc.Inner = append(sc.Inner, s...)
	n.emitItem(ref, &events.ArgumentsDelta{Delta: s})
}

func (n *Normalizer) openTagCall(sc *scan) {
	num := n.st.R.Tags
	n.st.R.Tags++
	id := n.uniqueID("tag" + itoa(num))
	i := n.addItem(item{ID: id, Type: events.ItemFunctionCall, Index: num, Open: true, Tag: true})
	sc.In, sc.Item, sc.Inner, sc.Over = true, id, nil, false
	n.emitItem(&n.st.R.Items[i], &events.OutputItemAdded{Type: events.ItemFunctionCall, Index: num})
}

func (n *Normalizer) closeTagCall(sc *scan) {
	over, inner, id := sc.Over, string(sc.Inner), sc.Item
	sc.In, sc.Item, sc.Inner, sc.Over = false, "", nil, false
	if over {
		return
	}
	ref := n.tagItem(id)
	n.closeItem(id)
	name, args, ok := parseTagged(inner)
	if !ok {
		// Not a {"name","arguments"} wrapper: pass the text on nameless so
		// the assembler rejects it with a typed reason.
		name, args = "", inner
	}
	n.emitItem(ref, &events.OutputItemDone{Type: events.ItemFunctionCall, Name: name, Arguments: args, HasArguments: true})
}

// tagItem returns an item to emit for tag call id (the remembered one, or a
// stand-in when ItemsMax made us forget it).
func (n *Normalizer) tagItem(id string) *item {
	for i := range n.st.R.Items {
		if n.st.R.Items[i].ID == id {
			return &n.st.R.Items[i]
		}
	}
	return &item{ID: id}
}

func (n *Normalizer) closeItem(id string) {
	for i := range n.st.R.Items {
		if n.st.R.Items[i].ID == id {
			n.st.R.Items[i].Open = false
		}
	}
}

// flushScan releases what scanner si holds back.
func (n *Normalizer) flushScan(si int) {
	sc := &n.st.R.Scans[si]
	h := sc.Hold
	sc.Hold = ""
	n.scanEmit(sc, h)
}

// flushScans releases every scanner's held-back text.
func (n *Normalizer) flushScans() {
	for i := range n.st.R.Scans {
		n.flushScan(i)
	}
}

// endScan flushes and forgets the scanner of text item key (its text ended).
func (n *Normalizer) endScan(key string) {
	r := &n.st.R
	for i := range r.Scans {
		if r.Scans[i].Key == key {
			n.flushScan(i)
			r.Scans = append(r.Scans[:i], r.Scans[i+1:]...)
			return
		}
	}
}

// parseTagged reads the inner text of a tag as {"name": …, "arguments": …}.
// Arguments may be an object or a JSON string holding one; "parameters" is an
// alias seen in the wild; missing or null arguments are {}. Any other
// arguments value is passed on as its JSON text for the assembler to judge.
func parseTagged(inner string) (name, args string, ok bool) {
	t := strings.TrimSpace(inner)
	if !strings.HasPrefix(t, "{") {
		return "", "", false
	}
	var w struct {
		Name       json.RawMessage `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal([]byte(t), &w) != nil {
		return "", "", false
	}
	if len(w.Name) == 0 || w.Name[0] != '"' {
		return "", "", false
	}
	if json.Unmarshal(w.Name, &name) != nil || name == "" {
		return "", "", false
	}
	a := w.Arguments
	if !present(a) {
		a = w.Parameters
	}
	switch {
	case !present(a):
		args = "{}"
	case a[0] == '"':
		var s string
		if json.Unmarshal(a, &s) != nil {
			return "", "", false
		}
		args = strings.TrimSpace(s)
	default:
		args = compactJSON(a)
	}
	return name, args, true
}
