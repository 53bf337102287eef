package events

// Call events: what the assembler decides about each call. They live on
// CallSubject(tenant, tool) and are keyed by (Tenant, Response, Item).

const (
	KindCallCompleted   Kind = "call.completed"
	KindCallRejected    Kind = "call.rejected"
	KindCallIncomplete  Kind = "call.incomplete"
	KindResponseOutcome Kind = "call.response_outcome"
)

// Provenance says which log entries a call was built from.
type Provenance struct {
	FirstSeq uint64 `msgpack:"fs"` // stream sequence of the item's first event
	LastSeq  uint64 `msgpack:"ls"` // stream sequence of the completion signal
	Deltas   int    `msgpack:"nd"` // argument deltas received
	Bytes    int    `msgpack:"nb"` // argument bytes received
	OpenedAt int64  `msgpack:"oa"` // event time the call opened, Unix ns
}

// CallCompleted is a call that is complete by its protocol's signal, whose
// arguments parse as one JSON object, and that passed validation. It is the
// only call event an executor acts on.
type CallCompleted struct {
	Name      string     `msgpack:"n"`
	Index     int        `msgpack:"ix"`
	Arguments []byte     `msgpack:"a"`            // canonical JSON object
	Coerced   []string   `msgpack:"co,omitempty"` // JSON pointers coerced by the tool's contract
	Repaired  []string   `msgpack:"rp,omitempty"` // repairs of almost-JSON arguments (the tenant or the contract opted in)
	DependsOn []string   `msgpack:"do,omitempty"` // call ids this call waits for
	Order     int        `msgpack:"o"`            // position among the response's calls, in opening order
	From      Provenance `msgpack:"pv"`
	// After names the call this one runs after, whatever that call's
	// outcome: calls of one response without declared dependencies whose
	// tools have side effects run one after another, in the order the
	// model gave them (a read-only tool's, side_effect none, runs at once).
	After []string `msgpack:"af,omitempty"`
	// ClientRuns: the response's client runs its calls itself
	// (ResponseStarted.ClientRuns); an executor records the call as
	// skipped and runs nothing.
	ClientRuns bool `msgpack:"cr,omitempty"`
	// Builtin: the call names one of the run driver's built-in tools
	// (IsBuiltinTool); ClientRuns is set with it, so no executor runs it,
	// and the driver of the call's run publishes its outcome.
	Builtin bool `msgpack:"bi,omitempty"`
}

// CallRejected is a call that completed but must not run. Reason is typed;
// Detail says what to fix. Arguments keep the raw bytes for audit.
type CallRejected struct {
	Name      string     `msgpack:"n"`
	Index     int        `msgpack:"ix"`
	Reason    Reason     `msgpack:"r"`
	Detail    string     `msgpack:"d,omitempty"`
	Arguments []byte     `msgpack:"a,omitempty"`
	Order     int        `msgpack:"o"`
	From      Provenance `msgpack:"pv"`
}

// CallIncomplete is a call that never received its completion signal:
// truncation, cancellation, failure, silence past the deadline. Partial keeps
// the bytes received for audit; it is never executed.
type CallIncomplete struct {
	Name    string     `msgpack:"n"`
	Index   int        `msgpack:"ix"`
	Reason  Reason     `msgpack:"r"`
	Detail  string     `msgpack:"d,omitempty"`
	Partial []byte     `msgpack:"p,omitempty"`
	Order   int        `msgpack:"o"`
	From    Provenance `msgpack:"pv"`
}

// ResponseStatus is a response's final status.
type ResponseStatus string

const (
	StatusCompleted  ResponseStatus = "completed"
	StatusIncomplete ResponseStatus = "incomplete"
	StatusFailed     ResponseStatus = "failed"
)

// ResponseOutcome is the assembler's one verdict on a whole response.
type ResponseOutcome struct {
	Status       ResponseStatus `msgpack:"s"`
	Reason       Reason         `msgpack:"r,omitempty"`
	ErrorCode    string         `msgpack:"ec,omitempty"`
	ErrorMessage string         `msgpack:"em,omitempty"`
	Calls        int            `msgpack:"nc"`
	// Text is the response's display text: the final answer the verifier
	// checks (completed, no calls), or what the model wrote before its
	// calls (the assistant's turn in a run's history).
	Text string `msgpack:"x,omitempty"`
	// Provider is the format the response was normalised from
	// (ResponseStarted.Provider), when known: the runs projection writes
	// the round's tool results in its shape.
	Provider string `msgpack:"p,omitempty"`
	// Usage is the tokens the provider reported for the response (its end
	// event's); zero when it reported none.
	Usage Usage `msgpack:"us,omitempty"`
}

func (*CallCompleted) Kind() Kind   { return KindCallCompleted }
func (*CallRejected) Kind() Kind    { return KindCallRejected }
func (*CallIncomplete) Kind() Kind  { return KindCallIncomplete }
func (*ResponseOutcome) Kind() Kind { return KindResponseOutcome }
