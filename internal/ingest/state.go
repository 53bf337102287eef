package ingest

import "github.com/toolstream/toolstream/events"

// The adapter state: what a Normalizer remembers between two raw events,
// and the table of output items of the current response.

// state is everything a Normalizer remembers between events. Fields are
// exported for msgpack only; nothing here is a map, so no output order can
// depend on map iteration.
type state struct {
	V      int      `msgpack:"v"`
	Format Format   `msgpack:"f"`
	Count  int      `msgpack:"n"` // responses started in this stream
	R      response `msgpack:"r"`
}

// response is the state of the current response.
type response struct {
	ID      string `msgpack:"id"`
	Named   bool   `msgpack:"nm,omitempty"` // ID came from the provider
	Started bool   `msgpack:"st,omitempty"` // ResponseStarted emitted
	Ended   bool   `msgpack:"en,omitempty"` // terminal event emitted
	// Held: every choice has finished (Chat Completions) and the verdict
	// waits for the next chunk or the stream's end, so that an in-band
	// error after the finish reason fails the response.
	Held    bool     `msgpack:"hd,omitempty"`
	Items   []item   `msgpack:"it,omitempty"`
	Choices []choice `msgpack:"ch,omitempty"`
	Scans   []scan   `msgpack:"sc,omitempty"`
	Tags    int      `msgpack:"tg,omitempty"` // tagged-text calls opened
	Calls   int      `msgpack:"ca,omitempty"` // calls opened (synthetic item names)
	// Usage is the tokens the provider reported so far, for the terminal
	// event (noteUsage).
	Usage events.Usage `msgpack:"us,omitempty"`
}

// item is one output item of the response that the adapter must remember.
type item struct {
	ID       string          `msgpack:"id"`
	Key      string          `msgpack:"k,omitempty"` // protocol lookup key (Responses item_id, Anthropic block)
	CallID   string          `msgpack:"c,omitempty"`
	Name     string          `msgpack:"n,omitempty"`
	Type     events.ItemType `msgpack:"t"`
	Choice   int             `msgpack:"ch,omitempty"`
	Index    int             `msgpack:"ix,omitempty"`
	NoIndex  bool            `msgpack:"ni,omitempty"` // Chat call that came without a tool index
	Open     bool            `msgpack:"o,omitempty"`  // not completed, aborted or closed
	Stopped  bool            `msgpack:"sp,omitempty"` // Anthropic content_block_stop seen
	Deltas   bool            `msgpack:"d,omitempty"`  // an argument delta was emitted
	Args     string          `msgpack:"a,omitempty"`  // arguments known without deltas
	HasArgs  bool            `msgpack:"ha,omitempty"`
	Pending  bool            `msgpack:"pd,omitempty"` // Responses: done seen, name unknown yet
	Custom   bool            `msgpack:"cu,omitempty"` // Responses custom_tool_call
	Streamed bool            `msgpack:"sm,omitempty"` // Gemini streamed arguments
	LateName bool            `msgpack:"ln,omitempty"` // Chat: name learned after OutputItemAdded
	Tag      bool            `msgpack:"tc,omitempty"` // tagged-text call
	Tree     *node           `msgpack:"tr,omitempty"` // Gemini partialArgs so far
	Touched  bool            `msgpack:"to,omitempty"` // Gemini: some argument text emitted
	NoDelta  bool            `msgpack:"nd,omitempty"` // Gemini: deltas stopped (update was not an append)
	Size     int             `msgpack:"sz,omitempty"` // Gemini: approximate bytes of Tree (ArgsMax)
}

// addItem remembers it and returns its index in r.Items, evicting per
// ItemsMax. Indexes (and pointers) into r.Items are invalid after addItem.
func (n *Normalizer) addItem(it item) int {
	r := &n.st.R
	if len(r.Items) >= ItemsMax {
		victim := 0
		for i := range r.Items {
			if !r.Items[i].Open {
				victim = i
				break
			}
		}
		if v := &r.Items[victim]; v.Open && v.Type == events.ItemFunctionCall {
			v.Open = false
			n.emitItem(v, &events.ItemAborted{Reason: events.ReasonTooLarge, Detail: "too many items in one response"})
		}
		r.Items = append(r.Items[:victim], r.Items[victim+1:]...)
	}
	r.Items = append(r.Items, it)
	return len(r.Items) - 1
}

// findKey returns the index of the most recent item with key k, or -1.
func (n *Normalizer) findKey(k string) int {
	items := n.st.R.Items
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Key == k {
			return i
		}
	}
	return -1
}

// uniqueID returns id, or id with a suffix when an item of the response
// already uses it (providers reuse call ids; items must not share a buffer).
func (n *Normalizer) uniqueID(id string) string {
	taken := func(s string) bool {
		for i := range n.st.R.Items {
			if n.st.R.Items[i].ID == s {
				return true
			}
		}
		return false
	}
	if !taken(id) {
		return id
	}
	for k := 1; ; k++ {
		if s := id + "~" + itoa(k); !taken(s) {
			return s
		}
	}
}

// nextCall returns a fresh per-response call number for synthetic item ids.
func (n *Normalizer) nextCall() int {
	c := n.st.R.Calls
	n.st.R.Calls++
	return c
}
