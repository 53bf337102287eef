package memapi

// Kind is what a record says about its user.
type Kind string

const (
	KindPreference Kind = "preference" // likes and dislikes
	KindConstraint Kind = "constraint" // what must or must not be: allergies, diets, "can't … these days"
	KindFact       Kind = "fact"       // where the user lives, works, …
	KindEpisode    Kind = "episode"    // a turn of conversation kept as it is; never takes a slot
)

// Polarity says whether a statement affirms or denies its slot.
type Polarity string

const (
	Positive Polarity = "positive"
	Negative Polarity = "negative"
)

// Status is where a record version stands.
type Status string

const (
	StatusActive            Status = "active"             // in force; recalled by default
	StatusSuperseded        Status = "superseded"         // replaced by a newer version or statement
	StatusExpired           Status = "expired"            // its validity ended (event time)
	StatusForgotten         Status = "forgotten"          // never stored: what Get reports for a tombstoned id
	StatusNeedsConfirmation Status = "needs_confirmation" // contradicted at the same event time
	StatusCold              Status = "cold"               // moved out of the quota; kept, not recalled by default
)

// Record is one version of one memory of one user, as the service lists
// it (list, history) and the memory view stores it: the JSON names are the
// service's, the msgpack names the view's (package memory's Record is this
// type with the engine's methods).
//
// A record id names a statement; each correction writes a new version of
// it. Times are Unix nanoseconds of event time, never of a wall clock.
type Record struct {
	Tenant       string   `msgpack:"t" json:"tenant"`
	User         string   `msgpack:"u" json:"user"`
	ID           string   `msgpack:"id" json:"id"`
	Version      int      `msgpack:"v" json:"version"`
	Origin       string   `msgpack:"o,omitempty" json:"origin,omitempty"`    // user message the record was extracted from
	Sentence     string   `msgpack:"se,omitempty" json:"sentence,omitempty"` // first record of the sentence it shares (events.Observation.Sentence)
	Message      string   `msgpack:"ms,omitempty" json:"message,omitempty"`  // user message the writer read the statement from (events.Observation.Message); provenance only
	Speaker      string   `msgpack:"sp,omitempty" json:"speaker,omitempty"`  // the label its message opened with (events.Observation.Speaker); indexed and embedded with the text
	Context      string   `msgpack:"cx,omitempty" json:"context,omitempty"`  // the question its message answered (events.Observation.Context); indexed and embedded with the text, forgotten with it
	Source       string   `msgpack:"src" json:"source"`                      // event that wrote this version
	ObservedAt   int64    `msgpack:"ob" json:"observed_at"`                  // latest statement of it (reinforcement moves it)
	LearnedAt    int64    `msgpack:"ln" json:"learned_at"`                   // when this version was learnt
	Kind         Kind     `msgpack:"k" json:"kind"`
	Subject      string   `msgpack:"su,omitempty" json:"subject,omitempty"`
	Attribute    string   `msgpack:"at,omitempty" json:"attribute,omitempty"`
	Value        string   `msgpack:"va,omitempty" json:"value,omitempty"`
	Polarity     Polarity `msgpack:"po" json:"polarity"`
	Scope        string   `msgpack:"sc,omitempty" json:"scope,omitempty"`
	Permission   string   `msgpack:"pm,omitempty" json:"permission,omitempty"`
	ValidFrom    int64    `msgpack:"vf" json:"valid_from"`
	ValidUntil   int64    `msgpack:"vu,omitempty" json:"valid_until,omitempty"` // 0 = open
	EndedAt      int64    `msgpack:"end,omitempty" json:"ended_at,omitempty"`   // event time it stopped holding (superseded)
	Confidence   float64  `msgpack:"cf" json:"confidence"`
	Status       Status   `msgpack:"s" json:"status"`
	Supersedes   []string `msgpack:"sup,omitempty" json:"supersedes,omitempty"` // refs "id@version" it replaced
	SupersededBy string   `msgpack:"by,omitempty" json:"superseded_by,omitempty"`
	UseCount     int      `msgpack:"use" json:"use_count"`                  // statements of it and recall hits
	UsedAt       int64    `msgpack:"ua,omitempty" json:"used_at,omitempty"` // the latest recall hit (events.MemoryRecalled)
	Text         string   `msgpack:"x" json:"text"`
	// OpenEnded: temporary without an end ("these days", 最近); it holds
	// until the user says otherwise and needs confirmation from ReviewAt
	// on (ObservedAt plus the tenant's review time; set by reads, never
	// stored).
	OpenEnded bool  `msgpack:"oe,omitempty" json:"open_ended,omitempty"`
	ReviewAt  int64 `msgpack:"-" json:"review_at,omitempty"`
	// MergedFrom are the observations consolidated into this record: said
	// again (another message, the same slot, kind, value and polarity),
	// each reinforced it instead of becoming a record of its own. Its
	// provenance, filled by Get; never stored here.
	MergedFrom []string `msgpack:"-" json:"merged_from,omitempty"`
	// From: a record consolidated from episodes (one user's turns that
	// stated nothing but named the same thing) names them; its provenance.
	From []string `msgpack:"fr,omitempty" json:"from,omitempty"`
}
