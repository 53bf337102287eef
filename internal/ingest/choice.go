package ingest

import (
	"sort"

	"github.com/toolstream/toolstream/events"
)

// Chat Completions choices and Gemini candidates are parallel answers inside
// one response. Each finishes on its own (finish_reason / finishReason); the
// response ends when every choice seen so far has finished. The response's
// terminal event is then derived from the choices in index order: the first
// failed choice fails it, else the first cut choice makes it incomplete, else
// it completed with the first choice's stop reason. Calls of a choice that
// completed were already completed by their own ArgumentsDone, so a sibling's
// truncation never touches them.

// outcome kinds.
const (
	outCompleted  = 'c'
	outIncomplete = 'i'
	outFailed     = 'f'
)

// verdict is how a choice (or a response) ended.
type verdict struct {
	Kind    byte          `msgpack:"k"`
	Reason  events.Reason `msgpack:"r,omitempty"`
	Stop    string        `msgpack:"s,omitempty"`
	Code    string        `msgpack:"co,omitempty"`
	Message string        `msgpack:"m,omitempty"`
}

func completed(stop string) verdict { return verdict{Kind: outCompleted, Stop: stop} }
func incomplete(r events.Reason, stop string) verdict {
	return verdict{Kind: outIncomplete, Reason: r, Stop: stop}
}
func failed(code, msg string) verdict { return verdict{Kind: outFailed, Code: code, Message: msg} }

// body returns the terminal event of a verdict.
func (v verdict) body() events.Body {
	switch v.Kind {
	case outIncomplete:
		return &events.ResponseIncomplete{Reason: v.Reason, StopReason: v.Stop}
	case outFailed:
		return &events.ResponseFailed{Code: v.Code, Message: v.Message}
	}
	return &events.ResponseCompleted{StopReason: v.Stop}
}

// choice is one Chat choice or Gemini candidate of the current response.
type choice struct {
	Index    int     `msgpack:"ix"`
	Finished bool    `msgpack:"f,omitempty"`
	V        verdict `msgpack:"v"`
}

// choiceAt returns the index in r.Choices of choice idx, adding it if new.
func (n *Normalizer) choiceAt(idx int) int {
	r := &n.st.R
	for i := range r.Choices {
		if r.Choices[i].Index == idx {
			return i
		}
	}
	r.Choices = append(r.Choices, choice{Index: idx})
	return len(r.Choices) - 1
}

// newChoices counts the indexes in idxs that the response does not know yet
// (all of them when the next event starts a new response).
func (n *Normalizer) newChoices(idxs []int, fresh bool) int {
	seen := make([]int, 0, len(idxs))
	count := 0
outer:
	for _, x := range idxs {
		for _, s := range seen {
			if s == x {
				continue outer
			}
		}
		seen = append(seen, x)
		if !fresh {
			known := false
			for _, c := range n.st.R.Choices {
				if c.Index == x {
					known = true
					break
				}
			}
			if known {
				continue
			}
		}
		count++
	}
	return count
}

// settle ends the response once every choice seen has finished.
func (n *Normalizer) settle() {
	if b := n.verdict(); b != nil {
		n.finish(b)
	}
}

// hold notes that every choice has finished without ending the response:
// release (or an in-band error, which wins) ends it.
func (n *Normalizer) hold() {
	if n.verdict() != nil {
		n.st.R.Held = true
	}
}

// release ends a held response with its choices' verdict.
func (n *Normalizer) release() {
	if r := &n.st.R; r.Held && !r.Ended {
		r.Held = false
		n.settle()
	}
}

// verdict is the terminal event of a response whose choices have all
// finished (a failure first, then an incompletion, else the first choice's
// verdict); nil while one has not, or once the response has ended.
func (n *Normalizer) verdict() events.Body {
	r := &n.st.R
	if r.Ended || len(r.Choices) == 0 {
		return nil
	}
	cs := make([]choice, len(r.Choices))
	copy(cs, r.Choices)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Index < cs[j].Index })
	for _, c := range cs {
		if !c.Finished {
			return nil
		}
	}
	pick := cs[0].V
	for _, want := range []byte{outFailed, outIncomplete} {
		found := false
		for _, c := range cs {
			if c.V.Kind == want {
				pick, found = c.V, true
				break
			}
		}
		if found {
			break
		}
	}
	return pick.body()
}
