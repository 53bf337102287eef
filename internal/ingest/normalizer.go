package ingest

import (
	"bytes"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

// Bounds. Every buffer the adapters keep is bounded; what happens at a bound
// is decided by the input alone, so replay reproduces it.
const (
	// EventMax is the largest raw event Feed and ReadEvents accept, in bytes.
	// A larger one is rejected with ErrTooLarge.
	EventMax = 8 << 20
	// ArgsMax bounds the argument bytes ingest itself must hold for one call:
	// the inner text of a <tool_call> tag and the JSON built from Gemini
	// partialArgs. A call that exceeds it is aborted with ItemAborted
	// {Reason: events.ReasonTooLarge}; the rest of its input is dropped.
	// (Provider argument deltas are passed through, not held: the assembler
	// bounds those.)
	ArgsMax = 1 << 20
	// ItemsMax bounds the output items remembered per response. When a new
	// item would exceed it, the oldest finished item is forgotten; if every
	// item is still open, the oldest is aborted (ReasonTooLarge) and
	// forgotten.
	ItemsMax = 1024
	// ChoicesMax bounds the choices (Chat) or candidates (Gemini) of one
	// response; an event that would exceed it is rejected with ErrTooLarge.
	ChoicesMax = 64
	// ScansMax bounds the text streams scanned for tags per response; the
	// oldest is flushed and forgotten beyond it.
	ScansMax = 256
	// PathDepthMax bounds the segments of a Gemini partialArgs jsonPath, and
	// ArrayIndexMax its array indexes; a path beyond either aborts the call
	// (ReasonMalformedEvent).
	PathDepthMax  = 64
	ArrayIndexMax = 1 << 16
	// KeysMax bounds the keys of one object built from Gemini partialArgs
	// (each new key is checked against the others); beyond it the call is
	// aborted (ReasonTooLarge).
	KeysMax = 4096
)

// DefaultStream is the response id used until the provider names one when
// Config.Stream is empty.
const DefaultStream = "stream"

// stateVersion is written into every marshalled state; Restore refuses
// others.
const stateVersion = 1

// Out is one canonical event produced by the adapter: envelope identities and
// body. The caller adds tenant, event id and time to make an events.Event.
type Out struct {
	Response string      // provider response/message id, or the stream id while unknown
	Item     string      // output item identity within the response; "" for response-level events
	CallID   string      // provider call id when known (correlates the result); may be ""
	Body     events.Body // one of the model bodies of package events
}

// Config configures one Normalizer.
type Config struct {
	// Format of the stream; FormatAuto (or "") detects it from the first
	// event that decides it (see Detect).
	Format Format
	// Stream is the producer's stream id, used as the response id until the
	// provider names one (DefaultStream when empty). A later response of the
	// same stream that the provider never names is called Stream#1, #2, ….
	Stream string
	// TaggedText scans display text for <tool_call>{…}</tool_call> calls.
	TaggedText bool
}

// Normalizer holds the adapter state of one stream. It is not safe for
// concurrent use; a stream's events are fed in order by one goroutine.
type Normalizer struct {
	cfg Config
	st  state
	out []Out // events of the Feed in progress; not state

	resp *scannedResp // the Responses scanner's event, reused (scanResponsesInto); not state
}

// New returns a Normalizer for one stream.
func New(cfg Config) *Normalizer {
	if cfg.Format == "" {
		cfg.Format = FormatAuto
	}
	if cfg.Stream == "" {
		cfg.Stream = DefaultStream
	}
	return &Normalizer{cfg: cfg, st: state{V: stateVersion, Format: cfg.Format}}
}

// Format returns the stream's format: the configured one, the detected one,
// or FormatAuto while undecided.
func (n *Normalizer) Format() Format { return n.st.Format }

// MarshalState returns the adapter state in msgpack, for the ingest
// projection to persist between events. The bytes are deterministic.
func (n *Normalizer) MarshalState() ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(&n.st); err != nil {
		return nil, fmt.Errorf("ingest: marshal state: %w", err)
	}
	return buf.Bytes(), nil
}

// Restore returns a Normalizer that continues from a state written by
// MarshalState. It returns ErrBadState for bytes that are not such a state,
// or when cfg names a format and the state was detected as another.
func Restore(cfg Config, data []byte) (n *Normalizer, err error) {
	defer func() {
		if r := recover(); r != nil { // third-party decoder: never let garbage take us down
			n, err = nil, fmt.Errorf("%w: %v", ErrBadState, r)
		}
	}()
	n = New(cfg)
	var st state
	if err := msgpack.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadState, err)
	}
	if st.V != stateVersion {
		return nil, fmt.Errorf("%w: version %d (want %d)", ErrBadState, st.V, stateVersion)
	}
	if !st.Format.valid() {
		return nil, fmt.Errorf("%w: format %q", ErrBadState, st.Format)
	}
	if n.cfg.Format != FormatAuto && st.Format != n.cfg.Format {
		return nil, fmt.Errorf("%w: state is %s, config says %s", ErrBadState, st.Format, n.cfg.Format)
	}
	n.st = st
	return n, nil
}

// Feed takes one raw provider event (one JSON object, as the provider sent
// it) and returns the canonical events it implies, in order. Bad input returns
// an error wrapping events.ErrBadInput — ErrTooLarge, ErrMalformedInput,
// ErrUnknownShape, ErrUnknownFormat — and leaves the state unchanged: every
// event is decoded and checked before anything is applied, and applying
// cannot fail. Event types a format does not know are ignored (no events, no
// error).
func (n *Normalizer) Feed(raw []byte) ([]Out, error) { return n.feed(raw, true) }

// feed is Feed; fast false decodes with encoding/json alone (the scanner's
// tests compare the two).
func (n *Normalizer) feed(raw []byte, fast bool) ([]Out, error) {
	var apply func()
	var err error
	if fast && n.st.Format == FormatOpenAIResponses && len(raw) <= EventMax {
		if n.resp == nil {
			n.resp = new(scannedResp)
		}
		// A misspelt key (bad) gives up to encoding/json's path, which
		// checks the event is JSON before it refuses the key (misspelt).
		if typ, ev, ok, _ := scanResponsesChecked(raw, n.resp); ok {
			return n.feedResponsesScanned(typ, ev)
		}
	} else if fast {
		apply, err = n.decodeFast(raw)
	}
	if err != nil {
		return nil, err
	}
	if apply != nil {
		n.out = nil
		apply()
		out := n.out
		n.out = nil
		return out, nil
	}
	if err = checkObject(raw); err != nil {
		return nil, err
	}
	f := n.st.Format
	if !f.valid() {
		return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
	}
	if f == FormatAuto {
		d, err := Detect(raw)
		if err != nil {
			return nil, err
		}
		if d == FormatAuto {
			return nil, nil // a ping before anything decides the format
		}
		f = d
	}
	if err := misspelt(f, raw); err != nil {
		return nil, err
	}
	switch f {
	case FormatOpenAIResponses:
		apply, err = n.decodeResponses(raw)
	case FormatOpenAIChat:
		apply, err = n.decodeChat(raw)
	case FormatAnthropic:
		apply, err = n.decodeAnthropic(raw)
	case FormatGemini:
		apply, err = n.decodeGemini(raw)
	}
	if err != nil {
		return nil, err
	}
	n.st.Format = f
	n.out = nil
	apply()
	out := n.out
	n.out = nil
	return out, nil
}

// decodeFast decodes raw with the scanner (jsonscan.go) when the stream's
// format is known and has a scanner's decoder: one pass that checks the
// event and reads its fields. A nil apply and error leave the event to
// the encoding/json path, which decides what the scanner does not.
func (n *Normalizer) decodeFast(raw []byte) (func(), error) {
	if len(raw) > EventMax {
		return nil, nil
	}
	switch n.st.Format { // Responses: feed reads it (feedResponsesScanned)
	case FormatOpenAIChat:
		if c, ok, _ := scanChatChecked(raw); ok {
			return n.chatChecked(c)
		}
	case FormatAnthropic:
		if typ, ev, ok, _ := scanAnthropicChecked(raw); ok {
			return n.anthTyped(typ, ev)
		}
	case FormatGemini:
		if c, ok, _ := scanGeminiChecked(raw); ok {
			return n.gemChecked(c)
		}
	}
	return nil, nil
}

// misspelt reports a key of raw one byte off a field the format's adapter
// reads at its place (scanner.other): the encoding/json path would pass it
// over unread. The scanner is the one judge of it, so that both paths
// refuse the same events.
func misspelt(f Format, raw []byte) error {
	var bad error
	switch f {
	case FormatOpenAIResponses:
		_, _, _, bad = scanResponsesChecked(raw, new(scannedResp))
	case FormatOpenAIChat:
		_, _, bad = scanChatChecked(raw)
	case FormatAnthropic:
		_, _, _, bad = scanAnthropicChecked(raw)
	case FormatGemini:
		_, _, bad = scanGeminiChecked(raw)
	}
	return bad
}

// Flush returns the events implied by the end of the input: text held back
// because it might have begun a <tool_call> tag is released (as display text,
// or as argument text inside an open tag), and a response whose choices had
// all finished ends with their verdict (Chat Completions holds it for an
// in-band error). Flush completes no call and ends no other response;
// feeding may go on afterwards.
func (n *Normalizer) Flush() []Out {
	n.out = nil
	n.release()
	n.flushScans()
	out := n.out
	n.out = nil
	return out
}

// AbortOpen returns ItemAborted{reason, detail} for every call of the current
// response that is still open, and forgets them. A caller that rejected a
// raw event of a stream (Feed returned an error) may use it so that no call
// whose bytes may be missing is ever completed.
func (n *Normalizer) AbortOpen(reason events.Reason, detail string) []Out {
	n.out = nil
	n.abortOpen(reason, detail)
	out := n.out
	n.out = nil
	return out
}

// --- emission -------------------------------------------------------------

func (n *Normalizer) emitResponse(b events.Body) {
	n.out = append(n.out, Out{Response: n.st.R.ID, Body: b})
}

func (n *Normalizer) emitItem(it *item, b events.Body) {
	n.out = append(n.out, Out{Response: n.st.R.ID, Item: it.ID, CallID: it.CallID, Body: b})
}

func (n *Normalizer) emitText(key string, b events.Body) {
	n.out = append(n.out, Out{Response: n.st.R.ID, Item: key, Body: b})
}

// --- response lifecycle ---------------------------------------------------

// begin makes sure a response is open, starting one named id (or the stream
// id when id is "") if none has started.
func (n *Normalizer) begin(id, model string) {
	if !n.st.R.Started {
		n.start(id, model)
	}
}

// start opens a new response, forgetting the previous one.
func (n *Normalizer) start(id, model string) {
	named := id != ""
	if !named {
		id = n.cfg.Stream
		if n.st.Count > 0 {
			id += "#" + itoa(n.st.Count)
		}
	}
	n.st.R = response{ID: id, Named: named, Started: true}
	n.st.Count++
	n.emitResponse(&events.ResponseStarted{Provider: string(n.st.Format), Model: model})
}

// restartImplicit handles a provider id that arrives on every event (Chat
// chunk id, Gemini responseId) rather than in a start event: it starts the
// first response, and a new one only once the current response has ended and
// the id changed. Some compatible servers change the id on every chunk, so a
// change while the response is open is not a new response.
func (n *Normalizer) restartImplicit(id, model string) {
	r := &n.st.R
	switch {
	case !r.Started:
		n.start(id, model)
	case r.Ended && id != "" && id != r.ID:
		n.start(id, model)
	}
}

// finish emits the response's terminal event once: held-back text is flushed
// first, and a second terminal event for the same response is dropped.
func (n *Normalizer) finish(b events.Body) {
	n.begin("", "")
	r := &n.st.R
	if r.Ended {
		return
	}
	n.flushScans()
	r.Ended = true
	switch x := b.(type) {
	case *events.ResponseCompleted:
		x.Usage = r.Usage
	case *events.ResponseIncomplete:
		x.Usage = r.Usage
	case *events.ResponseFailed:
		x.Usage = r.Usage
	}
	n.emitResponse(b)
}

// noteUsage records the tokens a provider reported for the open response
// (a count it did not report is nil and keeps what was noted): the
// terminal event carries them. Providers report running totals, so the
// last report wins.
func (n *Normalizer) noteUsage(input, output *int64) {
	r := &n.st.R
	if !r.Started || r.Ended || input == nil && output == nil {
		return
	}
	if input != nil {
		r.Usage.Input = max(*input, 0)
	}
	if output != nil {
		r.Usage.Output = max(*output, 0)
	}
}

// sum adds counts of which some may be missing (nil when all are).
func sum(xs ...*int64) *int64 {
	var total *int64
	for _, x := range xs {
		if x != nil {
			if total == nil {
				total = new(int64)
			}
			*total += *x
		}
	}
	return total
}

// abortOpen aborts every open client call of the current response.
func (n *Normalizer) abortOpen(reason events.Reason, detail string) {
	r := &n.st.R
	for i := range r.Items {
		it := &r.Items[i]
		if it.Open && it.Type == events.ItemFunctionCall {
			it.Open = false
			n.emitItem(it, &events.ItemAborted{Reason: reason, Detail: detail})
		}
	}
	for i := range r.Scans {
		if r.Scans[i].In {
			r.Scans[i].Over = true // swallow the rest of an aborted tag
		}
	}
}
