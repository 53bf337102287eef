package events

// Memory events: observations, corrections and deletions of long-term
// memory, and the user messages the built-in extractor reads. They live on
// MemorySubject(tenant, user).

const (
	KindMemoryObserved  Kind = "memory.observed"
	KindMemoryCorrected Kind = "memory.corrected"
	KindMemoryForgotten Kind = "memory.forgotten"
	KindMemoryEmbedded  Kind = "memory.embedded"
	KindMemoryRecalled  Kind = "memory.recalled"
	KindUserMessage     Kind = "memory.user_message"
)

// Observation is one statement about a user, as a producer or the extractor
// saw it. Only ID and Text are required; the slot (Subject, Attribute,
// Value) may be filled by the extractor.
type Observation struct {
	ID         string  `msgpack:"id" json:"id"`
	Kind       string  `msgpack:"k,omitempty" json:"kind,omitempty"` // preference | constraint | fact | episode
	Subject    string  `msgpack:"su,omitempty" json:"subject,omitempty"`
	Attribute  string  `msgpack:"at,omitempty" json:"attribute,omitempty"`
	Value      string  `msgpack:"va,omitempty" json:"value,omitempty"`
	Polarity   string  `msgpack:"po,omitempty" json:"polarity,omitempty"` // positive | negative
	Scope      string  `msgpack:"sc,omitempty" json:"scope,omitempty"`
	Text       string  `msgpack:"x" json:"text"`
	ValidFrom  int64   `msgpack:"vf,omitempty" json:"-"`  // Unix ns; 0 = from the event time
	ValidUntil int64   `msgpack:"vu,omitempty" json:"-"`  // Unix ns; 0 = open
	TTL        int64   `msgpack:"ttl,omitempty" json:"-"` // nanoseconds; 0 = none
	Confidence float64 `msgpack:"cf,omitempty" json:"confidence,omitempty"`
	Permission string  `msgpack:"pm,omitempty" json:"permission,omitempty"`
	// OpenEnded marks a temporary statement said without an end ("these
	// days", 最近): it holds until the user says otherwise, and is to be
	// confirmed again once the tenant's review time has passed since it
	// was last said.
	OpenEnded bool `msgpack:"oe,omitempty" json:"open_ended,omitempty"`
	// Sentence groups the observations read from one sentence of a user's
	// message (it names the first of them): they carry the same text, so
	// forgetting one forgets them all. Empty for a statement of its own.
	Sentence string `msgpack:"se,omitempty" json:"sentence,omitempty"`
	// Message names the user's message the statement was read from (its
	// provenance) when memory's writer split one into statements. Records
	// of one message are forgotten one by one: it does not tie them.
	Message string `msgpack:"ms,omitempty" json:"message,omitempty"`
	// Speaker is the label a message opened with ("Caroline: …", a
	// transcript's "张伟：…"), carried to every statement read from it:
	// only the first sentence says it. Empty when the message opened
	// with none.
	Speaker string `msgpack:"sp,omitempty" json:"speaker,omitempty"`
	// Context is the question the turn before asked when the message this
	// statement was read from answers it ("What inspired you?" before "I
	// painted it after a walk by the sea."): kept with the statement, to
	// be found and read with it, never a record of its own. It is in this
	// event only, sealed under the record's key, so forgetting the record
	// forgets it. Empty when the message answers no question.
	Context string `msgpack:"cx,omitempty" json:"context,omitempty"`
}

// MemoryObserved adds an observation.
type MemoryObserved struct {
	Observation `msgpack:",inline"`
}

// MemoryCorrected replaces record ID with a new version; ExpectedVersion is
// the version the corrector read (a stale one is a conflict).
type MemoryCorrected struct {
	Observation     `msgpack:",inline"`
	ExpectedVersion int `msgpack:"ev"`
}

// MemoryForgotten is a tombstone. It carries no copy of the forgotten text.
type MemoryForgotten struct {
	ID string `msgpack:"id"`
}

// MemoryEmbedded is the vector of one version of a memory record, made by
// Model from that version's text at the writer (an embedding service's
// answer is not a function of the log, so it is recorded). A vector of
// another version than the record's current one is ignored: one that
// arrives after a correction is late. It is sealed under the record's
// key, like the text it comes from.
type MemoryEmbedded struct {
	ID      string    `msgpack:"id"`
	Version int       `msgpack:"v"`
	Model   string    `msgpack:"m"`
	Vector  []float32 `msgpack:"vec"`
}

// MemoryRecalled counts recall hits of one user, in a batch: each record
// version a recall returned, as many times as it was returned. Recalls
// read a snapshot and write nothing; the service records what they
// returned as these events, so that use feeds decay and replay stays
// exact. It carries ids only, never text.
type MemoryRecalled struct {
	Hits []MemoryHit `msgpack:"h"`
}

// MemoryHit is one record version a recall returned, N times.
type MemoryHit struct {
	ID      string `msgpack:"id"`
	Version int    `msgpack:"v"`
	N       int    `msgpack:"n"`
}

// UserMessage is a user's message, for the built-in extractor.
type UserMessage struct {
	ID   string `msgpack:"id"`
	Text string `msgpack:"x"`
}

func (*MemoryObserved) Kind() Kind  { return KindMemoryObserved }
func (*MemoryCorrected) Kind() Kind { return KindMemoryCorrected }
func (*MemoryForgotten) Kind() Kind { return KindMemoryForgotten }
func (*MemoryEmbedded) Kind() Kind  { return KindMemoryEmbedded }
func (*MemoryRecalled) Kind() Kind  { return KindMemoryRecalled }
func (*UserMessage) Kind() Kind     { return KindUserMessage }
