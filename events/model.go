package events

// Model events: the canonical form every provider stream is normalised to.
// They live on ModelSubject(tenant, response, item) and are keyed by the
// envelope's Response and Item. Response-level events use Item "" (subject
// token "_").

const (
	KindResponseStarted    Kind = "model.response_started"
	KindOutputItemAdded    Kind = "model.item_added"
	KindArgumentsDelta     Kind = "model.arguments_delta"
	KindArgumentsDone      Kind = "model.arguments_done"
	KindOutputItemDone     Kind = "model.item_done"
	KindItemAborted        Kind = "model.item_aborted"
	KindTextDelta          Kind = "model.text_delta"
	KindResponseCompleted  Kind = "model.response_completed"
	KindResponseIncomplete Kind = "model.response_incomplete"
	KindResponseFailed     Kind = "model.response_failed"
	KindTick               Kind = "clock.tick"
	KindInputRejected      Kind = "model.input_rejected"
)

// ItemType says what an output item is.
type ItemType string

const (
	ItemFunctionCall ItemType = "function_call" // a client tool call: the assembler's business
	ItemServerTool   ItemType = "server_tool"   // executed by the provider itself; never a client call
	ItemText         ItemType = "text"
	ItemReasoning    ItemType = "reasoning"
	ItemOther        ItemType = "other"
)

// ResponseStarted opens a response.
type ResponseStarted struct {
	Provider string `msgpack:"p,omitempty"` // format the events were normalised from
	Model    string `msgpack:"m,omitempty"`
	// ClientRuns says the producer's client runs the response's calls
	// itself (the gateway's passthrough): they are recorded and assembled,
	// and their CallCompleted say so, so no executor runs them.
	ClientRuns bool `msgpack:"cr,omitempty"`
	// ToolsOnly says the response's calls may name only Tools (and the
	// run driver's built-in tools): a child run's response, whose parent
	// gave it these tools. A call naming another is rejected
	// permission_denied, so it never runs. It only narrows what the
	// registry allows.
	ToolsOnly bool     `msgpack:"to,omitempty"`
	Tools     []string `msgpack:"tl,omitempty"`
}

// OutputItemAdded opens an output item. For a function call it names the
// tool; CallID is in the envelope.
type OutputItemAdded struct {
	Type  ItemType `msgpack:"ty"`
	Index int      `msgpack:"ix"` // provider position (output_index, block index, tool index)
	Name  string   `msgpack:"n,omitempty"`
	// Arguments carries arguments that came with the opening itself (Gemini
	// whole-call parts, Groq single-chunk calls) when HasArguments is set.
	Arguments    string `msgpack:"a,omitempty"`
	HasArguments bool   `msgpack:"ha,omitempty"`
}

// ArgumentsDelta appends bytes to a call's arguments.
type ArgumentsDelta struct {
	Delta string `msgpack:"d"`
}

// ArgumentsDone is the protocol's signal that a call's arguments are
// complete. When HasArguments is set, Arguments is the provider's full
// argument text and is authoritative over the concatenated deltas.
type ArgumentsDone struct {
	Arguments    string `msgpack:"a,omitempty"`
	HasArguments bool   `msgpack:"ha,omitempty"`
}

// OutputItemDone closes an output item; for a function call it is a
// completion signal as strong as ArgumentsDone.
type OutputItemDone struct {
	Type         ItemType `msgpack:"ty,omitempty"`
	Name         string   `msgpack:"n,omitempty"`
	Arguments    string   `msgpack:"a,omitempty"`
	HasArguments bool     `msgpack:"ha,omitempty"`
	Status       string   `msgpack:"s,omitempty"` // provider's item status, e.g. "incomplete"
}

// ItemAborted says the provider abandoned an open item (for example a new
// message started while a block was open). The item is never completed.
type ItemAborted struct {
	Reason Reason `msgpack:"r"`
	Detail string `msgpack:"d,omitempty"`
}

// TextDelta is display text of the model's answer.
type TextDelta struct {
	Index int    `msgpack:"ix,omitempty"`
	Text  string `msgpack:"x"`
}

// ResponseCompleted is the provider's normal end of a response.
type ResponseCompleted struct {
	StopReason string `msgpack:"sr,omitempty"` // provider's own word: tool_use, stop, end_turn…
	Usage      Usage  `msgpack:"us,omitempty"` // the tokens the provider reported (zero: none)
}

// Usage is the tokens a provider reported for one response: OpenAI Chat's
// usage chunk (prompt_tokens, completion_tokens), Responses'
// response.usage (input_tokens, output_tokens), Anthropic's message_start
// and message_delta usage (input_tokens with the cache's tokens,
// output_tokens), Gemini's usageMetadata (promptTokenCount;
// candidatesTokenCount with thoughtsTokenCount).
type Usage struct {
	Input  int64 `msgpack:"in,omitempty" json:"input_tokens"`
	Output int64 `msgpack:"out,omitempty" json:"output_tokens"`
}

// ResponseIncomplete ends a response that was cut: truncation (max_tokens,
// length), content filter, cancellation. Open calls become CallIncomplete.
type ResponseIncomplete struct {
	Reason     Reason `msgpack:"r"`
	StopReason string `msgpack:"sr,omitempty"`
	Usage      Usage  `msgpack:"us,omitempty"`
}

// ResponseFailed ends a response with a provider error, including in-band
// error objects in a stream that returned HTTP 200.
type ResponseFailed struct {
	Code    string `msgpack:"co,omitempty"`
	Message string `msgpack:"m,omitempty"`
	Usage   Usage  `msgpack:"us,omitempty"`
}

// Tick carries the time into the log so that deadlines are decided by event
// time, deterministically on replay. Only At matters.
type Tick struct{}

// InputRejected says a raw provider event was refused (not JSON, not an
// object, not of its format). The raw event stays in the log at Seq.
type InputRejected struct {
	Seq    uint64 `msgpack:"q"`
	Reason Reason `msgpack:"r"`
	Detail string `msgpack:"d,omitempty"`
}

func (*InputRejected) Kind() Kind { return KindInputRejected }

func (*ResponseStarted) Kind() Kind    { return KindResponseStarted }
func (*OutputItemAdded) Kind() Kind    { return KindOutputItemAdded }
func (*ArgumentsDelta) Kind() Kind     { return KindArgumentsDelta }
func (*ArgumentsDone) Kind() Kind      { return KindArgumentsDone }
func (*OutputItemDone) Kind() Kind     { return KindOutputItemDone }
func (*ItemAborted) Kind() Kind        { return KindItemAborted }
func (*TextDelta) Kind() Kind          { return KindTextDelta }
func (*ResponseCompleted) Kind() Kind  { return KindResponseCompleted }
func (*ResponseIncomplete) Kind() Kind { return KindResponseIncomplete }
func (*ResponseFailed) Kind() Kind     { return KindResponseFailed }
func (*Tick) Kind() Kind               { return KindTick }
