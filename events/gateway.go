package events

import "strconv"

// Gateway stream frames. The HTTP gateway (package gateway) keeps every
// server-sent event it relays from a model provider, byte for byte, so a
// client that lost its connection can read the stream again from the log
// (Last-Event-ID, starting_after) and get exactly the events it missed.
// They live in their own stream, TS_GW, which no projection reads, on
//
//	ts.gw.<tenant>.<api>.<stream>
//
// where api is the gateway's API (chat, responses, messages) and stream the
// provider's response id (or the gateway's request id when the provider
// named none). A frame's body is the provider's text: it is sealed under
// the user's data key like every personal field (invariant 8), so erasing
// the user makes the frames unreadable. A passthrough stream's subject
// also holds, before its first frame, the prompt the client sent for it
// (StreamPrompt), sealed the same way. A non-streamed answer is one
// message (StreamAnswer): its prompt, its one frame and its end together.

// StreamGateway holds the gateway's stream frames.
const StreamGateway = "TS_GW"

// KindStreamFrame is one server-sent event of a provider stream as the
// gateway relayed it, or the stream's end.
const KindStreamFrame Kind = "gw.frame"

// StreamFrame is one server-sent event: its event name (empty when the
// provider sent none) and its data, as received. The last frame of a
// stream has End set and no data. Pos is the frame's position in its
// stream, 0, 1, 2…: the SSE id the gateway gives it, and part of its event
// id (StreamFrameID).
type StreamFrame struct {
	Pos   int64  `msgpack:"p"`
	Event string `msgpack:"e,omitempty"`
	Data  string `msgpack:"d,omitempty"`
	End   bool   `msgpack:"end,omitempty"`
	// Upstream and Attempts, on the end frame, name the upstream that
	// served the stream and how many attempts the gateway made (its
	// pool's retries and fallbacks); empty from a gateway before them, and
	// Upstream empty for an answer the gateway gave for the pool.
	Upstream string `msgpack:"u,omitempty"`
	Attempts int    `msgpack:"n,omitempty"`
}

func (*StreamFrame) Kind() Kind { return KindStreamFrame }

// KindStreamFrames is a run of consecutive frames of one stream kept as
// one message: what the gateway writes since it keeps a stream's frames
// per flush window instead of one message each (StreamFrame is still read
// from older logs, and is still the stream's end).
const KindStreamFrames Kind = "gw.frames"

// StreamFrames is the frames at Pos, Pos+1, … of a stream, in order, each
// as received. Its event id is StreamFrameID of Pos, the first frame's:
// the same run published twice is stored once. Like StreamFrame it is
// sealed under the user's data key.
type StreamFrames struct {
	Pos    int64       `msgpack:"p"`
	Frames []FrameData `msgpack:"f"`
}

// FrameData is one server-sent event of a StreamFrames: its event name
// (empty when the provider sent none) and its data.
type FrameData struct {
	Event string `msgpack:"e,omitempty"`
	Data  string `msgpack:"d,omitempty"`
}

func (*StreamFrames) Kind() Kind { return KindStreamFrames }

// KindStreamAnswer is a non-streamed answer the gateway relayed, kept as
// one message: its prompt, its one frame and its end. A gateway before it
// kept the three as a StreamPrompt and two StreamFrames, which are still
// read.
const KindStreamAnswer Kind = "gw.answer"

// StreamAnswer is a whole (non-streamed) answer as received (Data): the
// frame at position 0 of its stream, which ends after it. Prompt is the
// request's prompt when the gateway records it (nil when not), Upstream and
// Attempts what a stream's end frame says (StreamFrame). Its event id is
// StreamFrameID of position 0, and it is the only message on its subject
// (the gateway stores it only where none is). Sealed under the user's data
// key like the frames.
type StreamAnswer struct {
	Data     string        `msgpack:"d"`
	Prompt   *StreamPrompt `msgpack:"q,omitempty"`
	Upstream string        `msgpack:"u,omitempty"`
	Attempts int           `msgpack:"n,omitempty"`
}

func (*StreamAnswer) Kind() Kind { return KindStreamAnswer }

// KindStreamPrompt is the prompt a relayed stream answers.
const KindStreamPrompt Kind = "gw.prompt"

// PromptBytesMax bounds StreamPrompt.Prompt.
const PromptBytesMax = 256 << 10

// StreamPrompt is the prompt of the request a relayed stream answers, as
// the client sent it: the request body's members that make the prompt
// (model, messages, input, instructions, system, tools, tool_choice), as
// one JSON object of at most PromptBytesMax bytes. Bytes is that object's
// whole size; a larger one is Truncated: its members are kept whole in
// that order while they fit, the others named in Left.
type StreamPrompt struct {
	Prompt    string   `msgpack:"p"`
	Bytes     int      `msgpack:"b"`
	Truncated bool     `msgpack:"t,omitempty"`
	Left      []string `msgpack:"l,omitempty"`
}

func (*StreamPrompt) Kind() Kind { return KindStreamPrompt }

// StreamPromptID is the id of a stream's prompt: kept twice, stored once.
func StreamPromptID(tenant, api, stream string) string {
	return id("gw", tenant, api, stream, "prompt")
}

// GatewaySubject is where the frames of one relayed stream live.
func GatewaySubject(tenant, api, stream string) (string, error) {
	return subject("gw", tenant, api, stream)
}

// StreamFrameID is the id of a stream's frame at pos: a frame published
// twice is stored once.
func StreamFrameID(tenant, api, stream string, pos int64) string {
	return id("gw", tenant, api, stream, strconv.FormatInt(pos, 10))
}
