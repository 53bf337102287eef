package events

// The channels of the log, for readers outside Go: each family of subjects
// with its address (the subject scheme with its parameters in braces), the
// stream that holds it, the headers its messages carry and the kinds of
// event published on it. Package asyncapi writes them, with the catalogue's
// bodies, as the AsyncAPI document docs/asyncapi.yaml; a test here checks
// each address against its builder and that every kind has a channel.

// Channel is one family of subjects of the log.
type Channel struct {
	// Name is the channel's key in the AsyncAPI document.
	Name string
	// Address is the subject with its parameters in braces, e.g.
	// ts.call.{tenant}.{tool}.
	Address string
	// Params describe the address's parameters after {tenant}, in order.
	Params []Param
	// Stream is the JetStream stream that holds the channel.
	Stream string
	// Description says what the channel is for.
	Description string
	// Headers are the NATS headers its messages may carry (besides
	// Nats-Msg-Id, which every event of the log carries: its ID).
	Headers []Header
	// Kinds are the events published on it, in the catalogue's order; none
	// for the raw provider events (JSON as the provider sent it).
	Kinds []Kind
	// Build makes a subject of the channel (the builder Address is
	// written from).
	Build func(tenant string, ids ...string) (string, error)
}

// Param is one parameter of a channel's address.
type Param struct{ Name, Description string }

// Header is a NATS header a channel's messages may carry.
type Header struct{ Name, Description string }

// TenantParam describes the {tenant} of every address.
const TenantParam = "The tenant: 1 to 64 bytes of [A-Za-z0-9_-], not starting with '_' " +
	"(reserved for _system, the tenant of ticks, the registry and tombstones)."

// tokenNote is said of every id parameter.
const tokenNote = " Written by Token: an id that is not printable ASCII without '.', '*', '>' and '~' " +
	"(or is empty) is '~' followed by its unpadded base64url form."

func build2(f func(tenant, a string) (string, error)) func(string, ...string) (string, error) {
	return func(tenant string, ids ...string) (string, error) { return f(tenant, ids[0]) }
}

func build3(f func(tenant, a, b string) (string, error)) func(string, ...string) (string, error) {
	return func(tenant string, ids ...string) (string, error) { return f(tenant, ids[0], ids[1]) }
}

// Channels returns the channels of the log, in the order of the data flow.
func Channels() []Channel {
	return []Channel{
		{Name: "raw", Address: "ts.in.{tenant}.{format}.{stream}", Stream: StreamIn, Build: build3(IngestSubject),
			Params: []Param{{"format", "The provider format: openai-responses, openai-chat, anthropic, gemini (+tagged to scan text for <tool_call> tags)."},
				{"stream", "The producer's stream: one model response." + tokenNote}},
			Description: "Raw provider events, published verbatim by producers that do not normalise (any language): each message is one provider " +
				"streaming event as JSON, not a msgpack event. Ingest copies it sealed (ts.raw) and deletes it; what ingest has not read yet is kept for a bounded time (24 h by default). Ticks (" + InClockSubject + ") and erasure " +
				"tombstones are written here on the system tenant's subjects.",
			Headers: []Header{{"Ts-Format", "Overrides the subject's format token."}, {"Ts-Tagged", "\"1\": scan text for <tool_call> tags."},
				{"Ts-End", "\"1\": the stream ended (empty body)."}, {"Ts-User", "The envelope's user."}, {"Ts-Session", "The envelope's session."},
				{"Ts-Run", "The envelope's run."}, {"Ts-Step", "The envelope's step."},
				{"Ts-Seq", "The event's position in its stream (0, 1, 2…): ingest puts events in order and sees what went missing."}}},
		{Name: "raw sealed", Address: "ts.raw.{tenant}.{stream}", Stream: StreamIn, Build: build2(RawSubject),
			Params: []Param{{"stream", "The producer's stream, as on the raw subject." + tokenNote}},
			Description: "Raw provider events at rest: ingest's sealed copy of each raw event (under the key of the user its Ts-User header names, " +
				"else of the tenant's user-less scope), made before it normalises it; the clear message is then deleted. Only the assembler role writes here.",
			Kinds: []Kind{KindRawSealed}},
		{Name: "model", Address: "ts.model.{tenant}.{response}.{item}", Stream: StreamModel, Build: build3(ModelSubject),
			Params:      []Param{{"response", "The model response id." + tokenNote}, {"item", "The output item (a call's item id, or \"\" for response-level events)." + tokenNote}},
			Description: "Canonical model events: every provider stream normalised (by ingest, or at the edge by Toolstream's own producers).",
			Kinds: []Kind{KindResponseStarted, KindOutputItemAdded, KindArgumentsDelta, KindArgumentsDone, KindOutputItemDone, KindItemAborted,
				KindTextDelta, KindResponseCompleted, KindResponseIncomplete, KindResponseFailed, KindInputRejected}},
		{Name: "control", Address: "ts.ctl.{tenant}.{what}", Stream: StreamModel, Build: build2(ControlSubject),
			Params: []Param{{"what", "registry, clock or erase."}},
			Description: "Control events of the system tenant (_system): the signed tool registry (" + RegistrySubject + "), clock ticks (" +
				ModelClockSubject + ") and erasure tombstones. Ticks are also written to " + InClockSubject + "; a tombstone to the erase subject of every stream.",
			Kinds: []Kind{KindRegistryChanged, KindTick, KindErased}},
		{Name: "calls", Address: "ts.call.{tenant}.{tool}", Stream: StreamCalls, Build: build2(CallSubject),
			Params:      []Param{{"tool", "The tool the call names." + tokenNote}},
			Description: "Calls the assembler decided: completed (complete by the protocol's signal, valid JSON, a known tool, valid arguments, granted), rejected with a typed reason, or incomplete. Only a completed call is ever executed.",
			Kinds:       []Kind{KindCallCompleted, KindCallRejected, KindCallIncomplete}},
		{Name: "exec", Address: "ts.exec.{tenant}.{call}", Stream: StreamCalls, Build: build2(ExecSubject),
			Params:      []Param{{"call", "The call's idempotency key (tenant/run/step/call id, IdempotencyKey)." + tokenNote}},
			Description: "Execution progress: an attempt taken under a lease, a call waiting for approval.",
			Kinds:       []Kind{KindExecutionStarted, KindApprovalRequested}},
		{Name: "approvals", Address: "ts.approval.{tenant}.{call}", Stream: StreamCalls, Build: build2(ApprovalSubject),
			Params:      []Param{{"call", "The call's idempotency key." + tokenNote}},
			Description: "An operator's decision on a call waiting for approval.",
			Kinds:       []Kind{KindApprovalGranted, KindApprovalDenied}},
		{Name: "responses", Address: "ts.resp.{tenant}.{response}", Stream: StreamOut, Build: build2(ResponseSubject),
			Params:      []Param{{"response", "The model response id." + tokenNote}},
			Description: "A response's outcome: how it ended, how many calls it made, its text.",
			Kinds:       []Kind{KindResponseOutcome}},
		{Name: "results", Address: "ts.result.{tenant}.{call}", Stream: StreamOut, Build: build2(ResultSubject),
			Params:      []Param{{"call", "The call's idempotency key." + tokenNote}},
			Description: "A call's outcome from the executor: its result, or a typed error the model can act on.",
			Headers: []Header{{"Ts-Input-Seq", "On an outcome decided in the log alone: the TS_CALLS sequence of the CallCompleted it answers."},
				{"Ts-Call-Name", "On an outcome decided in the log alone: the tool name the call gave (name or name@version)."}},
			Kinds: []Kind{KindCallSucceeded, KindCallFailed}},
		{Name: "answers", Address: "ts.answer.{tenant}.{response}", Stream: StreamOut, Build: build2(AnswerSubject),
			Params: []Param{{"response", "The model response id." + tokenNote}},
			Description: "Final answers submitted for checking and the verifier's verdicts on their claims (and, in logs written before " +
				"constraint checks had the checks channel, the checks: still read).",
			Kinds: []Kind{KindAnswerSubmitted, KindAnswerVerified, KindJudgeVerdict}},
		{Name: "checks", Address: "ts.check.{tenant}.{response}", Stream: StreamOut, Build: build2(ConstraintCheckSubject),
			Params: []Param{{"response", "The model response id whose answer was checked." + tokenNote}},
			Description: "Run mode's driver's record of an answer checked against its user's constraints in force, which the verifier applies " +
				"to its verdict. Only the driver role writes here, and nothing but a check of the response the subject names is accepted " +
				"(wrong_subject): the driver may not publish verdicts.",
			Kinds: []Kind{KindConstraintsChecked}},
		{Name: "runs", Address: "ts.run.{tenant}.{run}", Stream: StreamOut, Build: build2(RunSubject),
			Params:      []Param{{"run", "The run (the Ts-Run header; a response without one is its own run)." + tokenNote}},
			Description: "The loop back to the model: rounds settled with their tool-result messages, degradation, replan suggestions, plans and input turns.",
			Kinds:       []Kind{KindRunCall, KindRoundSettled, KindRunDegraded, KindReplanSuggested, KindPlanWritten, KindRunMessage, KindRunEnded}},
		{Name: "gateway", Address: "ts.gw.{tenant}.{api}.{stream}", Stream: StreamGateway, Build: build3(GatewaySubject),
			Params: []Param{{"api", "The gateway's API: chat, responses or messages."},
				{"stream", "The provider's response id (or the gateway's request id when the provider named none)." + tokenNote}},
			Description: "The server-sent events the HTTP gateway relayed from a provider, byte for byte, so a client can read a stream again, and before them the prompt a passthrough request sent. Read by no projection.",
			Kinds:       []Kind{KindStreamPrompt, KindStreamFrames, KindStreamFrame, KindStreamAnswer}},
		{Name: "memory", Address: "ts.mem.{tenant}.{user}", Stream: StreamMemory, Build: build2(MemorySubject),
			Params:      []Param{{"user", "The end user." + tokenNote}},
			Description: "Long-term memory: observations, corrections, forgetting, user messages, records' vectors, recall hits.",
			Kinds:       []Kind{KindMemoryObserved, KindMemoryCorrected, KindMemoryForgotten, KindUserMessage, KindMemoryEmbedded, KindMemoryRecalled}},
	}
}

// NewBody returns a new, empty body of kind (what Decode fills), and false
// for a kind this reader does not know.
func NewBody(kind Kind) (Body, bool) {
	e, ok := catalogue[kind]
	if !ok {
		return nil, false
	}
	return e.new(), true
}
