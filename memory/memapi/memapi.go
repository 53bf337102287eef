// Package memapi holds the messages of the memory service
// (tsv.memory.<verb>, package memory): the requests a client sends (Op)
// and the replies it gets back (WriteReply, RecallOut, Record), as plain
// structs with their JSON names and nothing else of the service. A
// program that writes and recalls memory through a running server
// (package client) links this, not the engine, its index or its storage.
//
// Package memory declares its names for these types from here (aliases,
// and for Op and Record, whose methods the engine needs, types of the same
// fields), so the service and its clients speak one definition.
package memapi

// ServicePrefix is the subject prefix of the memory service's endpoints:
// tsv.memory.recall | list | history | message | observe | correct |
// forget. Requests and replies are JSON; requests are Ops.
const ServicePrefix = "tsv.memory"

// TextBytesMax bounds an observation's or message's text and a recall's
// query; the service refuses a longer one (400), so a client with a
// longer text (a run's user message) cuts its query to it.
const TextBytesMax = 64 * 1024

// Op is one memory operation as JSON: a line of `toolstream memory run`,
// or a request to the memory service.
type Op struct {
	Op              string   `json:"op"`
	Tenant          string   `json:"tenant"`
	User            string   `json:"user"`
	ID              string   `json:"id"`
	Time            string   `json:"time"`
	Kind            string   `json:"kind"`
	Subject         string   `json:"subject"`
	Attribute       string   `json:"attribute"`
	Value           string   `json:"value"`
	Polarity        string   `json:"polarity"`
	Scope           string   `json:"scope"`
	Text            string   `json:"text"`
	ValidUntil      string   `json:"valid_until"`
	TTL             string   `json:"ttl"`
	Confidence      float64  `json:"confidence"`
	Permission      string   `json:"permission"`
	ExpectedVersion int      `json:"expected_version"`
	Query           string   `json:"query"`
	K               int      `json:"k"`
	AsOf            string   `json:"as_of"`
	History         bool     `json:"history"`
	Scopes          []string `json:"scopes"`
	BudgetTokens    int      `json:"budget_tokens,omitempty"`
	// ReplyTo is, for a message, the turn it replies to (the assistant's
	// or another speaker's, as said): the questions it asks are kept as
	// context of the message's records (events.Observation.Context), not
	// as records of their own.
	ReplyTo string `json:"reply_to,omitempty"`
}

// WriteReply answers a write: message, observe, correct or forget.
type WriteReply struct {
	Seq      uint64 `json:"seq"`
	Applied  bool   `json:"applied"`
	Rejected string `json:"rejected,omitempty"`
	// ID is a message's id (given, or made by the service).
	ID string `json:"id,omitempty"`
	// Records are what a message wrote: a record per statement read from
	// it, or its episode.
	Records []RecordReply `json:"records,omitempty"`
	// Erase are the ids a forget tombstoned (Engine.Forgotten): destroying
	// their data keys (erasure.Record) makes their text unreadable in the
	// log.
	Erase []string `json:"erase,omitempty"`
	// EmbedError says why the records written have no vector (the
	// embedder failed); they are written all the same.
	EmbedError string `json:"embed_error,omitempty"`
}

// RecordReply is one record a message wrote.
type RecordReply struct {
	ID       string `json:"id"`
	Seq      uint64 `json:"seq"`
	Applied  bool   `json:"applied"`
	Rejected string `json:"rejected,omitempty"`
}

// RecallOut is a recall's answer as `memory run` and the service print it.
type RecallOut struct {
	Op        string      `json:"op"`
	Query     string      `json:"query"`
	Results   []RecallHit `json:"results"`
	Conflicts []RecallHit `json:"conflicts"`
	Error     string      `json:"error,omitempty"`
}

// RecallHit is one record a recall found.
type RecallHit struct {
	ID      string  `json:"id"`
	Version int     `json:"version"`
	Kind    string  `json:"kind"`
	Status  string  `json:"status"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
	// ReviewAt (RFC 3339) is when an open-ended record ("these days")
	// needs confirmation: from then on its status is needs_confirmation.
	ReviewAt string `json:"review_at,omitempty"`
}
