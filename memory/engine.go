package memory

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory/memapi"
	"github.com/toolstream/toolstream/projector"
)

// Limits. Bad input beyond them is refused with ErrInvalid.
const (
	IDBytesMax   = 256                 // a record, observation or event id
	UserBytesMax = 256                 // a user id
	TextBytesMax = memapi.TextBytesMax // an observation's or message's text, a query
	KMax         = 100                 // records one recall returns at most
)

// QuotaPerUserDefault is the quota of a user's active records when the
// configuration names none. The quota protects the store and recall from
// one user's flood (recall by meaning reads each active record of the
// user), not a user's ordinary memory from itself: the writer splits a
// message into statements, and a long conversation at ordinary length —
// LoCoMo's, up to 35 sessions over months and about 700 turns — writes up
// to 1,928 records, which the earlier 1,000 turned cold oldest first.
// 5,000 holds more than two such conversations and keeps the cost of a
// recall within five times that of the old default. Changing it changes
// the view of a user past 1,000 records: rebuild by replay.
const QuotaPerUserDefault = 5000

// Config tunes an Engine. The zero value is usable. The quota and the decay
// half-life are part of the projection's definition: changing them changes
// what Apply writes, so a projection that changes them must be rebuilt by
// replay.
type Config struct {
	// QuotaPerUser is how many active records one user of one tenant
	// keeps; beyond it the least valuable (confidence, age, use) turn cold.
	// 0 means QuotaPerUserDefault; a negative value means no quota.
	QuotaPerUser int
	// QuotaPerTenant, if positive, is how many active records all the
	// users of one tenant keep together; beyond it the tenant's least
	// valuable turn cold, in the per-user quota's order, whichever user
	// they belong to. TenantQuota overrides it per tenant (the tenant's
	// policy): a positive value is the tenant's quota, a negative one
	// exempts it. 0 means none. Like QuotaPerUser, both are part of the
	// projection: change them, then replay.
	QuotaPerTenant int
	TenantQuota    map[string]int
	// RecallBudgetBytes bounds the text bytes of Result.Records (the first
	// record is always returned). 0 means 16 KiB; negative, no budget.
	RecallBudgetBytes int
	// HalfLife is the age at which a record's recency has decayed half way
	// (recall: a quarter of its weight at most; quota: half its value). 0
	// means 30 days.
	HalfLife time.Duration
	// DefaultConfidence is given to observations without one. 0 means 0.7.
	DefaultConfidence float64
	// K is how many records a recall returns when the query does not say.
	// 0 means 10.
	K int
	// ReviewAfter is how long an open-ended statement ("I can't eat spicy
	// food these days", 最近不能吃辣) holds after it was last said before
	// recall marks it needs_confirmation; TenantReviewAfter overrides it
	// per tenant (the tenant's policy). 0 means 30 days. Both are read at
	// query time: changing them needs no replay.
	ReviewAfter       time.Duration
	TenantReviewAfter map[string]time.Duration
	// ColdAfter, if positive, is how long a record other than a
	// constraint stays active without being said again or recalled
	// (events.MemoryRecalled); then reads show it cold and default recall
	// leaves it out, as the quota's cold records. Saying it again or a
	// recall with history that returns it warms it. Read at query time:
	// changing it needs no replay.
	ColdAfter time.Duration
}

func (c *Config) setDefaults() {
	if c.QuotaPerUser == 0 {
		c.QuotaPerUser = QuotaPerUserDefault
	}
	if c.RecallBudgetBytes == 0 {
		c.RecallBudgetBytes = 16 * 1024
	}
	if c.HalfLife <= 0 {
		c.HalfLife = 30 * 24 * time.Hour
	}
	if c.DefaultConfidence <= 0 || c.DefaultConfidence > 1 {
		c.DefaultConfidence = 0.7
	}
	if c.K <= 0 {
		c.K = 10
	}
	if c.K > KMax {
		c.K = KMax
	}
	if c.ReviewAfter <= 0 {
		c.ReviewAfter = 30 * 24 * time.Hour
	}
}

// ReviewAfter is the review time of tenant's open-ended statements: its
// policy, or Config.ReviewAfter.
func (e *Engine) ReviewAfter(tenant string) time.Duration {
	if d, ok := e.cfg.TenantReviewAfter[tenant]; ok && d > 0 {
		return d
	}
	return e.cfg.ReviewAfter
}

// TenantQuota is how many active records tenant's users keep together:
// its policy (Config.TenantQuota) or Config.QuotaPerTenant; 0 is none.
func (e *Engine) TenantQuota(tenant string) int {
	q, ok := e.cfg.TenantQuota[tenant]
	if !ok || q == 0 {
		q = e.cfg.QuotaPerTenant
	}
	return max(q, 0)
}

// Engine applies memory events to state kept in a projector.Writer and
// answers queries from a projector.Reader. It holds no state of its own:
// everything is in the store, keyed by tenant and user.
type Engine struct {
	cfg     Config
	ex      Extractor
	vectors *wordVectors // the shipped word vectors, for lifts said in other words (lift_meaning.go)
}

// NewEngine returns an engine. A nil extractor means RuleExtractor.
func NewEngine(cfg Config, ex Extractor) *Engine {
	cfg.setDefaults()
	if ex == nil {
		ex = RuleExtractor{}
	}
	return &Engine{cfg: cfg, ex: ex, vectors: &wordVectors{}}
}

// Config returns the engine's configuration, defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

// Apply applies one memory event — events.MemoryObserved, MemoryCorrected,
// MemoryForgotten or UserMessage — to the state in w. Time comes only from
// ev.At; the same events in the same order always write the same bytes.
//
// Bad input (no tenant, user or event id; a body that is not a memory event;
// a missing record id or text; an unknown kind or polarity; …) returns an
// error wrapping ErrInvalid and events.ErrBadInput and writes nothing. So do
// an observation reusing an existing id with other content
// (ErrDuplicateID), a correction of an unknown id (ErrNotFound) or a
// forgotten one (ErrForgotten), and a correction whose ExpectedVersion is
// not the record's current version (ErrVersionConflict). Observations of a
// forgotten id and repeats of an observation already applied are no-ops.
// Any other error comes from w.
func (e *Engine) Apply(w projector.Writer, ev *events.Event) error {
	if ev == nil {
		return fmt.Errorf("memory: apply nil event: %w", ErrInvalid)
	}
	if err := checkEnvelope(ev); err != nil {
		return err
	}
	x := &tx{e: e, w: w, k: keysFor(ev.Tenant, ev.User), tenant: ev.Tenant, user: ev.User, at: ev.At, event: ev.ID}
	var mutate func() error
	var err error
	switch b := ev.Body.(type) {
	case *events.MemoryObserved:
		mutate, err = x.prepareObserve(b)
	case *events.MemoryCorrected:
		mutate, err = x.prepareCorrect(b)
	case *events.MemoryForgotten:
		mutate, err = x.prepareForget(b)
	case *events.UserMessage:
		mutate, err = x.prepareMessage(b)
	case *events.MemoryEmbedded:
		mutate, err = x.prepareEmbedded(b)
	case *events.MemoryRecalled:
		mutate, err = x.prepareRecalled(b)
	default:
		return fmt.Errorf("memory: apply %s %q: not a memory event: %w", ev.Kind, ev.ID, ErrInvalid)
	}
	if err != nil || mutate == nil {
		return err
	}
	if err := x.begin(); err != nil {
		return err
	}
	x.saves = 0 // the sweep's are not the event's
	if err := mutate(); err != nil {
		return err
	}
	x.quotaSnapshot()
	if err := x.enforceQuota(); err != nil {
		return err
	}
	if err := x.enforceTenantQuota(); err != nil {
		return err
	}
	if err := x.keepSnapshot(); err != nil {
		return err
	}
	return x.end()
}

func checkEnvelope(ev *events.Event) error {
	if err := events.ValidTenant(ev.Tenant); err != nil {
		return fmt.Errorf("memory: apply %q: %w (%w)", ev.ID, ErrInvalid, err)
	}
	switch {
	case ev.User == "" || len(ev.User) > UserBytesMax:
		return fmt.Errorf("memory: apply %q for tenant %s: user missing or too long: %w", ev.ID, ev.Tenant, ErrInvalid)
	case ev.ID == "" || len(ev.ID) > IDBytesMax:
		return fmt.Errorf("memory: apply event for tenant %s: event id missing or too long: %w", ev.Tenant, ErrInvalid)
	case ev.At < 0:
		return fmt.Errorf("memory: apply %q: negative event time: %w", ev.ID, ErrInvalid)
	}
	return nil
}

// stmt is a validated, normalised statement, ready to become a record.
type stmt struct {
	id, origin, sentence      string
	message, speaker          string
	context                   string // the question its message answered (events.Observation.Context)
	kind                      Kind
	subject, attribute, value string
	polarity                  Polarity
	scope, permission         string
	text                      string
	validFrom, validUntil     int64
	confidence                float64
	openEnded                 bool
}

// statement validates and normalises an observation made at time at. With
// extract, a statement without a slot that is not an episode gets one from
// the extractor; inherit (a correction's record) fills what the observation
// leaves empty.
func (e *Engine) statement(o events.Observation, at int64, extract bool, inherit *Record) (stmt, error) {
	bad := func(why string) (stmt, error) {
		return stmt{}, fmt.Errorf("memory: observation %q: %s: %w", o.ID, why, ErrInvalid)
	}
	switch {
	case o.ID == "" || len(o.ID) > IDBytesMax:
		return bad("id missing or too long")
	case strings.TrimSpace(o.Text) == "" || len(o.Text) > TextBytesMax:
		return bad("text missing or too long")
	case o.Kind != "" && !slices.Contains([]Kind{KindPreference, KindConstraint, KindFact, KindEpisode}, Kind(o.Kind)):
		return bad("unknown kind " + strconv.Quote(o.Kind))
	case o.Polarity != "" && o.Polarity != string(Positive) && o.Polarity != string(Negative):
		return bad("unknown polarity " + strconv.Quote(o.Polarity))
	case math.IsNaN(o.Confidence) || o.Confidence < 0 || o.Confidence > 1:
		return bad("confidence outside [0, 1]")
	case o.TTL < 0 || o.ValidFrom < 0 || o.ValidUntil < 0:
		return bad("negative time or ttl")
	}
	s := stmt{id: o.ID, kind: Kind(o.Kind), subject: norm(o.Subject), attribute: norm(o.Attribute),
		value: strings.TrimSpace(o.Value), polarity: Polarity(o.Polarity), scope: strings.TrimSpace(o.Scope),
		permission: strings.TrimSpace(o.Permission), text: o.Text, confidence: o.Confidence,
		sentence: strings.TrimSpace(o.Sentence), openEnded: o.OpenEnded, message: strings.TrimSpace(o.Message),
		speaker: strings.TrimSpace(o.Speaker), context: strings.TrimSpace(o.Context)}
	if len(s.message) > IDBytesMax {
		return bad("message id too long")
	}
	if len(s.speaker) > speakerBytesMax {
		return bad("speaker too long")
	}
	if len(s.context) > contextBytesMax {
		return bad("context too long")
	}
	if extract && s.kind != KindEpisode && (s.subject == "" || s.attribute == "") {
		for _, x := range e.extract(o.Text, at) {
			if x.Subject == "" || x.Attribute == "" {
				continue
			}
			s.subject, s.attribute = norm(x.Subject), norm(x.Attribute)
			if s.value == "" {
				s.value = strings.TrimSpace(x.Value)
			}
			if s.polarity == "" && (x.Polarity == string(Positive) || x.Polarity == string(Negative)) {
				s.polarity = Polarity(x.Polarity)
			}
			if s.kind == "" && x.Kind != string(KindEpisode) && slices.Contains([]Kind{KindPreference, KindConstraint, KindFact}, Kind(x.Kind)) {
				s.kind = Kind(x.Kind)
			}
			if s.confidence == 0 && x.Confidence > 0 && x.Confidence <= 1 {
				s.confidence = x.Confidence
			}
			if o.ValidUntil == 0 && o.TTL == 0 && s.kind == Kind(x.Kind) {
				// an end the text says ("until March 20"), unless the caller gave one
				o.ValidUntil, o.TTL = x.ValidUntil, x.TTL
				s.openEnded = s.openEnded || x.OpenEnded
			}
			break
		}
	}
	if inherit != nil {
		if s.kind == "" {
			s.kind = inherit.Kind
		}
		if s.kind != KindEpisode && (s.subject == "" || s.attribute == "") && inherit.Slotted() {
			s.subject, s.attribute = inherit.Subject, inherit.Attribute
		}
		if s.scope == "" {
			s.scope = inherit.Scope
		}
		if s.permission == "" {
			s.permission = inherit.Permission
		}
	}
	if s.kind == "" {
		s.kind = KindEpisode
		if s.subject != "" && s.attribute != "" {
			s.kind = KindFact
		}
	}
	if s.kind == KindEpisode || s.subject == "" || s.attribute == "" {
		s.subject, s.attribute, s.value = "", "", ""
	}
	if s.polarity == "" {
		s.polarity = Positive
	}
	if s.confidence == 0 {
		s.confidence = e.cfg.DefaultConfidence
	}
	s.validFrom, s.validUntil = o.ValidFrom, o.ValidUntil
	if s.validFrom == 0 {
		s.validFrom = at
	}
	if o.TTL > 0 {
		if at > math.MaxInt64-o.TTL {
			return bad("ttl overflows")
		}
		if u := at + o.TTL; s.validUntil == 0 || u < s.validUntil {
			s.validUntil = u
		}
	}
	if s.validUntil != 0 && s.validUntil <= s.validFrom {
		return bad("valid_until not after valid_from")
	}
	return s, nil
}

func norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// sameContent reports whether s says what r's first version said: a repeat
// of the same observation.
func sameContent(r *Record, s stmt) bool {
	return r.Kind == s.kind && r.Subject == s.subject && r.Attribute == s.attribute &&
		strings.EqualFold(r.Value, s.value) && r.Polarity == s.polarity && r.Scope == s.scope &&
		r.Permission == s.permission && r.Text == s.text
}

// messageRecordID is the id of the n-th (from 1) record extracted from the
// user message msg: msg, then msg#2, msg#3… In msg, '%' is written %25 and
// '#' %23, so the records of two messages never share an id (the first
// record of message m1#2 and the second of message m1 were one: the later
// message was refused as a duplicate id, or skipped once m1 was
// forgotten). Message ids without those characters are written as they
// are.
func messageRecordID(msg string, n int) string {
	if strings.ContainsAny(msg, "%#") {
		msg = strings.NewReplacer("%", "%25", "#", "%23").Replace(msg)
	}
	if n == 1 {
		return msg
	}
	return msg + "#" + strconv.Itoa(n)
}

// tx is one Apply: the event's identity and the user's state it changes.
type tx struct {
	e            *Engine
	w            projector.Writer
	k            keys
	tenant, user string
	at           int64
	event        string
	meta         meta
	// tenantDelta is how this tx changed the count of its user's active
	// records (the tenant's counter follows it); others are the other
	// users of the tenant whose records the tenant's quota turned cold.
	tenantDelta int
	others      []*tx
	// saves counts the event's saves; snap is the snapshot of a merge
	// that is not plain (merge.go)
	saves int
	snap  *snapshot
	swept int64 // the expiry watermark before the event's sweep
}

func (x *tx) begin() error {
	v, ok, err := x.w.Get(x.k.meta())
	if err != nil {
		return err
	}
	if ok {
		if err := decodeInto(v, &x.meta); err != nil {
			return err
		}
	}
	x.swept = x.meta.Expiry
	return x.sweep()
}

func (x *tx) end() error {
	if x.at > x.meta.Clock {
		x.meta.Clock = x.at
	}
	return x.w.Set(x.k.meta(), encode(&x.meta))
}

func (x *tx) record(st stmt, version int) *Record {
	return &Record{Tenant: x.tenant, User: x.user, ID: st.id, Version: version, Origin: st.origin, Sentence: st.sentence, Message: st.message, Speaker: st.speaker, Context: st.context,
		Source: x.event, ObservedAt: x.at, LearnedAt: x.at, Kind: st.kind, Subject: st.subject,
		Attribute: st.attribute, Value: st.value, Polarity: st.polarity, Scope: st.scope,
		Permission: st.permission, ValidFrom: st.validFrom, ValidUntil: st.validUntil,
		Confidence: st.confidence, Status: StatusActive, UseCount: 1, Text: st.text, OpenEnded: st.openEnded}
}

// --- observations and messages

// check says what to do with a statement: apply it (true), skip it (a
// forgotten id or a repeat), or refuse it. An id whose earlier events were
// erased is free: what they said is gone.
func (x *tx) check(st stmt) (bool, error) {
	if first := messageRecordID(st.origin, 1); st.origin != "" && first != st.id {
		e, err := x.idEntry(first) // the message was forgotten
		if err != nil || e != nil && e.Tomb {
			return false, err
		}
	}
	e, err := x.idEntry(st.id)
	switch {
	case err != nil:
		return false, err
	case e == nil || e.Erased:
		return true, nil
	case e.Tomb || e.Alias != "":
		return false, nil
	}
	first, err := x.load(st.id, 1)
	if err != nil {
		return false, err
	}
	if first != nil && sameContent(first, st) {
		return false, nil
	}
	return false, fmt.Errorf("memory: observation %q of tenant %s: %w", st.id, x.tenant, ErrDuplicateID)
}

func (x *tx) prepareObserve(b *events.MemoryObserved) (func() error, error) {
	st, err := x.e.statement(b.Observation, x.at, true, nil)
	if err != nil {
		return nil, err
	}
	if ok, err := x.check(st); !ok || err != nil {
		return nil, err
	}
	return func() error { return x.observe(st) }, nil
}

func (x *tx) prepareMessage(b *events.UserMessage) (func() error, error) {
	switch {
	case b.ID == "" || len(b.ID) > IDBytesMax:
		return nil, fmt.Errorf("memory: message of tenant %s: id missing or too long: %w", x.tenant, ErrInvalid)
	case strings.TrimSpace(b.Text) == "" || len(b.Text) > TextBytesMax:
		return nil, fmt.Errorf("memory: message %q: text missing or too long: %w", b.ID, ErrInvalid)
	}
	obs := x.e.extract(b.Text, x.at)
	if len(obs) > observationsMax {
		obs = obs[:observationsMax]
	}
	var sts []stmt
	for i, o := range obs {
		o.ID = messageRecordID(b.ID, i+1)
		if i == 0 || strings.TrimSpace(o.Text) == "" {
			o.Text = b.Text
		}
		if o.Subject == "" || o.Attribute == "" {
			o.Kind = string(KindEpisode)
		}
		st, err := x.e.statement(o, x.at, false, nil)
		if err != nil {
			continue // the extractor's fault, not the message's: drop that statement
		}
		st.origin = b.ID
		sts = append(sts, st)
	}
	if len(sts) == 0 {
		st, err := x.e.statement(events.Observation{ID: messageRecordID(b.ID, 1), Kind: string(KindEpisode), Text: b.Text}, x.at, false, nil)
		if err != nil {
			return nil, err
		}
		st.origin = b.ID
		sts = append(sts, st)
	}
	var todo []stmt
	for _, st := range sts {
		ok, err := x.check(st)
		if err != nil {
			return nil, err
		}
		if ok {
			todo = append(todo, st)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	return func() error {
		for _, st := range todo {
			if err := x.observe(st); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// observe files a new statement: it reinforces the record of its slot
// that says the same, or becomes a record of its own.
//
// Which record says the same is decided whatever that record's status (the
// first in key order of the slot's holders and its superseded and expired
// records): a status may come from a record that erasure later takes out
// of the log, so a choice among holders only would differ between the live
// view and its rebuild. "I hate coffee" said again after "I love coffee"
// superseded it merges into the first "I hate coffee" live; once "I love
// coffee" is forgotten and erased, the rebuild, where the first was never
// superseded, merges it there too, and a later forgetting of the first
// takes the same statements in both (TestForgottenKeysEraseExactlyTheText).
func (x *tx) observe(st stmt) error {
	n := x.record(st, 1)
	if n.Slotted() && (n.Subject == correctionSubject || n.Subject == restatedSubject || n.Subject == amendedSubject) {
		// a correction naming the value it replaces takes that statement's
		// slot, one naming only its new value the slot of the statement said
		// last (correction.go); a newer value said in other words the slot it
		// shares most words with (restate.go)
		find := x.corrected
		switch n.Subject {
		case restatedSubject:
			find = x.restated
		case amendedSubject:
			find = x.amended
		}
		c, err := find(n)
		if err != nil {
			return err
		}
		if c == nil && n.Subject == correctionSubject {
			// the value it replaces was said in an episode (correction.go)
			if c, err = x.correctedEpisode(n); err != nil {
				return err
			}
		}
		if c == nil {
			n.Kind, n.Subject, n.Attribute, n.Value = KindEpisode, "", "", ""
		} else {
			n.Kind, n.Subject, n.Attribute, n.Scope, n.Polarity = c.Kind, c.Subject, c.Attribute, c.Scope, c.Polarity
		}
	}
	if n.Slotted() {
		holders, err := x.holders(n)
		if err != nil {
			return err
		}
		if len(holders) == 0 && restatesText(n.Text) {
			// a newer value of a thing the user has, read under another subject
			// ("房租以后改成每月三千五" a cap, after "我的房租是每月三千二"): restate.go
			if c, err := x.sameThing(n); err != nil {
				return err
			} else if c != nil {
				n.Kind, n.Subject, n.Attribute, n.Scope, n.Polarity = c.Kind, c.Subject, c.Attribute, c.Scope, c.Polarity
				if holders, err = x.holders(n); err != nil {
					return err
				}
			}
		}
		same, err := x.saysTheSame(n, holders)
		if err != nil {
			return err
		}
		if same != nil {
			return x.reinforce(same, n, holders)
		}
		if len(holders) == 0 {
			// a switch to another thing of the same kind ends the one it
			// replaces ("I've switched to green tea"): restate.go
			if old, err := x.switchedFrom(n); err != nil {
				return err
			} else if old != nil {
				if err := x.supersede(old, n); err != nil {
					return err
				}
			}
		}
		m, err := x.liftedBans(n, holders)
		if err != nil {
			return err
		}
		if m.slot != nil {
			n.Subject, n.Attribute = m.slot.Subject, m.slot.Attribute // a lift in other words takes its ban's slot
		}
		for _, b := range m.others {
			if err := x.supersede(b, n); err != nil { // a ban of another slot it covers, ended with its own audit
				return err
			}
		}
		ended, err := x.reasonBans(n)
		if err != nil {
			return err
		}
		for _, b := range ended {
			if err := x.supersede(b, n); err != nil { // a ban whose reason n says is over (lift_reason.go)
				return err
			}
		}
		kind, err := x.favoriteKind(n)
		if err != nil {
			return err
		}
		if kind != "" {
			n.Attribute = kind // a favourite of no known kind takes the kind of the favourite it is nearest
		}
	}
	if err := x.place(n, nil); err != nil {
		return err
	}
	return x.consolidate(n) // an episode naming a food or drink (consolidate.go)
}

// saysTheSame returns the first record of n's slot in key order, holder
// (of holders) or not, whose current version says what n says (kind,
// polarity, value), or nil.
func (x *tx) saysTheSame(n *Record, holders []*Record) (*Record, error) {
	cands := slices.Clone(holders)
	type hv struct {
		id string
		v  int
	}
	var refs []hv
	err := x.w.Scan(x.k.pastOf(n), func(key, value []byte) error {
		v, _ := uvarint(value)
		refs = append(refs, hv{x.k.lastComponent(key), v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if r.id == n.ID {
			continue
		}
		h, err := x.load(r.id, r.v)
		if err != nil {
			return nil, err
		}
		if h != nil {
			cands = append(cands, h)
		}
	}
	slices.SortFunc(cands, func(a, b *Record) int { return strings.Compare(esc(a.ID), esc(b.ID)) })
	for _, h := range cands {
		if h.Kind == n.Kind && h.Polarity == n.Polarity && strings.EqualFold(h.Value, n.Value) {
			return h, nil
		}
	}
	return nil, nil
}

func holding(s Status) bool {
	return s == StatusActive || s == StatusNeedsConfirmation || s == StatusCold
}

// reinforce counts n as one more statement of h: more confidence and use,
// and, if n is newer, a later observed time and n's validity. A newer
// affirmation confirms h if it was in conflict and supersedes what h
// overrides. A record no longer held (superseded, expired) said again
// after its end is current again: it is filed among the slot's holders as
// said at n's time (place), superseding what it overrides.
func (x *tx) reinforce(h, n *Record, holders []*Record) error {
	x.startSnapshot() // what forgetting n restores, if the merge is not plain (merge.go)
	h2 := clone(h)
	h2.UseCount++
	h2.Confidence = reinforced(h.Confidence, n.Confidence)
	newer := n.ObservedAt > h.ObservedAt
	revive := !holding(h.Status) && newer && (h.Status != StatusSuperseded || n.ObservedAt > h.EndedAt)
	if newer {
		h2.ObservedAt = n.ObservedAt
		h2.ValidUntil = n.ValidUntil
		h2.OpenEnded = n.OpenEnded // said again: reviewed from now, or no longer temporary
	}
	if h2.Status == StatusCold || h2.Status == StatusNeedsConfirmation && newer {
		h2.Status = StatusActive
	}
	if newer {
		if err := x.confirmHeldLift(h, h2); err != nil { // a held lift said again ends the ban it was held against
			return err
		}
		if err := x.liftAgain(h2, holders); err != nil { // a lift said again ends the bans said since that it covers
			return err
		}
	}
	if revive {
		h2.Status, h2.SupersededBy, h2.EndedAt = StatusActive, "", 0
	}
	if newer && !revive && holding(h.Status) {
		for _, o := range holders {
			if o.ID != h.ID && o.ObservedAt < h2.ObservedAt && overrides(h2, o) {
				if err := x.supersede(o, h2); err != nil {
					return err
				}
			}
		}
	}
	if err := x.w.Set(x.k.id(n.ID), encode(&idEntry{Alias: h.ID, Sentence: n.Sentence})); err != nil {
		return err
	}
	if n.Sentence != "" {
		if err := x.w.Set(x.k.se(n.Sentence, n.ID), nil); err != nil {
			return err
		}
	}
	if err := x.keepMerge(h, h2, n); err != nil { // what forgetting n undoes (merge.go)
		return err
	}
	var err error
	if revive {
		err = x.place(h2, h)
	} else {
		err = x.save(h, true, h2, true)
	}
	x.endSnapshot()
	return err
}

// overrides reports whether a, said after b in the same slot, replaces b:
// when they contradict (polarity or value differ), except that a
// constraint stays in force over anything but another constraint (which
// lifts it), and a constraint and a preference never replace each other:
// what the user may do and what they like are two records, never one
// boolean. "I can't eat
// spicy food these days" after "I love spicy food" stands beside the
// preference (and outranks it in recall while in force); "I can eat spicy
// food again" — a constraint of the other polarity — lifts the constraint
// and leaves the preference as it was. Statements of different kinds that
// agree ("I like spicy food", "I can eat spicy food again") stand side by
// side.
//
// A denial of a fact with a value ("I left Stripe", "I don't live in
// Paris") speaks of that value only: it ends the statement of the same
// value and stands beside one of another value ("I work at Figma"). A
// constraint's value is its measure, not a denial: "don't call me after
// 9pm" after "don't call me after 7pm" replaces it. Statements of different
// kinds with the same polarity agree whatever their values ("I drink three
// cups of coffee a day", "I love coffee").
func overrides(a, b *Record) bool {
	sameValue := strings.EqualFold(a.Value, b.Value)
	denial := func(r *Record) bool { return r.Kind == KindFact && r.Polarity == Negative && r.Value != "" }
	if !sameValue && (denial(a) || denial(b)) {
		return false
	}
	if a.Kind != b.Kind && a.Polarity == b.Polarity {
		return false
	}
	if a.Kind == KindPreference && b.Kind == KindConstraint || a.Kind == KindConstraint && b.Kind == KindPreference {
		return false
	}
	if a.Kind == KindFact && b.Kind == KindFact && !sameValue {
		// two values of two kinds are two properties of one thing: when a
		// season ticket expires and what it costs, 每月交两千元 and 在杭州缴纳
		if valueKindsApart(a.Value, b.Value) {
			return false
		}
	}
	contradict := a.Polarity != b.Polarity || !sameValue
	return contradict && !(b.Kind == KindConstraint && a.Kind != KindConstraint)
}

// place files n — a new record, a corrected version or a revived one — among
// its slot's current holders, as said at n.ObservedAt, and saves n and every
// holder it changes. old is n's stored state (nil if none).
//
//   - A holder said later that overrides n makes n late: n is stored
//     superseded by it and changes nothing.
//   - Otherwise n supersedes every older holder it overrides, and holders
//     said at the same time with which n overrides both ways are, like n,
//     in conflict: needs_confirmation.
func (x *tx) place(n, old *Record) error {
	if !n.Slotted() {
		return x.save(old, true, n, true)
	}
	holders, err := x.holders(n)
	if err != nil {
		return err
	}
	t := n.ObservedAt
	var newest *Record
	for _, h := range holders {
		if h.ObservedAt > t && overrides(h, n) && (newest == nil || h.ObservedAt > newest.ObservedAt) {
			newest = h
		}
	}
	if newest != nil {
		n.Status, n.SupersededBy = StatusSuperseded, newest.Ref()
		n.EndedAt = newest.ObservedAt
		if newest.LearnedAt > t {
			n.EndedAt = newest.LearnedAt
		}
		if err := x.save(old, true, n, true); err != nil {
			return err
		}
		nh := clone(newest)
		nh.Supersedes = append(nh.Supersedes, n.Ref())
		return x.save(newest, true, nh, true)
	}
	var peers []*Record
	for _, h := range holders {
		switch {
		case h.ObservedAt < t && overrides(n, h):
			if err := x.supersede(h, n); err != nil {
				return err
			}
		case h.ObservedAt == t && overrides(n, h) && overrides(h, n):
			peers = append(peers, h)
		}
	}
	if len(peers) > 0 {
		n.Status = StatusNeedsConfirmation
		for _, p := range peers {
			if p.Status != StatusNeedsConfirmation {
				p2 := clone(p)
				p2.Status = StatusNeedsConfirmation
				if err := x.save(p, true, p2, true); err != nil {
					return err
				}
			}
		}
	}
	return x.save(old, true, n, true)
}

// supersede marks the stored head h as replaced by n (n records the link
// back; the caller saves n).
func (x *tx) supersede(h, n *Record) error {
	h2 := clone(h)
	h2.Status, h2.SupersededBy = StatusSuperseded, n.Ref()
	if h2.EndedAt == 0 {
		h2.EndedAt = n.ObservedAt
	}
	n.Supersedes = append(n.Supersedes, h.Ref())
	return x.save(h, true, h2, true)
}

// holders returns the current holders of n's slot other than n's own id,
// in key order.
func (x *tx) holders(n *Record) ([]*Record, error) {
	type hv struct {
		id string
		v  int
	}
	var refs []hv
	err := x.w.Scan(x.k.slotOf(n), func(key, value []byte) error {
		v, _ := uvarint(value)
		refs = append(refs, hv{x.k.lastComponent(key), v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, r := range refs {
		if r.id == n.ID {
			continue
		}
		h, err := x.load(r.id, r.v)
		if err != nil {
			return nil, err
		}
		if h != nil {
			out = append(out, h)
		}
	}
	return out, nil
}

// --- vectors

// VectorDimMax bounds a vector's dimension.
const VectorDimMax = 8192

// prepareEmbedded files the vector of a record version: kept only while
// that version is the record's current one. A vector of an older version
// (it arrived after a correction: late), of an unknown or forgotten
// record, is ignored; a new vector of the current version replaces the
// old one (another model, say).
func (x *tx) prepareEmbedded(b *events.MemoryEmbedded) (func() error, error) {
	switch {
	case b.ID == "" || len(b.ID) > IDBytesMax:
		return nil, fmt.Errorf("memory: vector for tenant %s: record id missing or too long: %w", x.tenant, ErrInvalid)
	case b.Version < 1 || b.Model == "" || len(b.Vector) == 0 || len(b.Vector) > VectorDimMax:
		return nil, fmt.Errorf("memory: vector of %q: version, model or vector missing or too long: %w", b.ID, ErrInvalid)
	}
	for _, f := range b.Vector {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("memory: vector of %q: a component is not a number: %w", b.ID, ErrInvalid)
		}
	}
	e, err := x.idEntry(b.ID)
	if err != nil || e == nil || e.Version != b.Version {
		return nil, err // unknown, forgotten, merged, or late
	}
	v := encode(&vector{Version: b.Version, Model: b.Model, Vector: b.Vector})
	return func() error { return x.w.Set(x.k.vec(b.ID), v) }, nil
}

// --- recall hits

// HitsMax bounds the hits of one events.MemoryRecalled.
const HitsMax = 1000

// prepareRecalled counts recall hits: each hit version that is still its
// record's current one gains N uses and was used at the event's time, so
// that it ranks and keeps its place in the quota as a record in use does
// (decay runs from its last use). Hits of versions no longer current, or
// of forgotten records, are ignored.
func (x *tx) prepareRecalled(b *events.MemoryRecalled) (func() error, error) {
	if len(b.Hits) == 0 || len(b.Hits) > HitsMax {
		return nil, fmt.Errorf("memory: recall hits of tenant %s: none or more than %d: %w", x.tenant, HitsMax, ErrInvalid)
	}
	for _, h := range b.Hits {
		if h.ID == "" || len(h.ID) > IDBytesMax || h.Version < 1 || h.N < 1 || h.N > KMax*HitsMax {
			return nil, fmt.Errorf("memory: recall hit %q v%d n=%d of tenant %s: %w", h.ID, h.Version, h.N, x.tenant, ErrInvalid)
		}
	}
	return func() error {
		for _, h := range b.Hits {
			r, err := x.head(h.ID)
			if err != nil {
				return err
			}
			if r == nil || r.Version != h.Version {
				continue
			}
			r2 := clone(r)
			r2.UseCount += h.N
			r2.UsedAt = max(r2.UsedAt, x.at)
			if err := x.save(r, true, r2, true); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// --- corrections

func (x *tx) prepareCorrect(b *events.MemoryCorrected) (func() error, error) {
	id := b.ID
	if id == "" || len(id) > IDBytesMax {
		return nil, fmt.Errorf("memory: correction of tenant %s: record id missing or too long: %w", x.tenant, ErrInvalid)
	}
	e, err := x.idEntry(id)
	if err != nil {
		return nil, err
	}
	if e != nil && (e.Tomb || e.Erased) {
		return nil, fmt.Errorf("memory: correct %q of tenant %s: %w (%w)", id, x.tenant, ErrForgotten, events.ErrBadInput)
	}
	var head *Record
	if e != nil && e.Version > 0 {
		if head, err = x.load(id, e.Version); err != nil {
			return nil, err
		}
	}
	if head == nil {
		return nil, fmt.Errorf("memory: correct %q of tenant %s: %w (%w)", id, x.tenant, ErrNotFound, events.ErrBadInput)
	}
	if b.ExpectedVersion != head.Version {
		return nil, fmt.Errorf("memory: correct %q of tenant %s: expected version %d, current %d: %w",
			id, x.tenant, b.ExpectedVersion, head.Version, ErrVersionConflict)
	}
	st, err := x.e.statement(b.Observation, x.at, true, head)
	if err != nil {
		return nil, err
	}
	st.origin, st.sentence = head.Origin, head.Sentence
	if st.message == "" {
		st.message = head.Message
	}
	if st.speaker == "" {
		st.speaker = head.Speaker
	}
	if st.context == "" {
		st.context = head.Context
	}
	return func() error { return x.correct(st) }, nil
}

// correct writes a new version of the record; the old one is kept,
// superseded by it.
func (x *tx) correct(st stmt) error {
	head, err := x.head(st.id) // reloaded: the sweep may have changed it
	if err != nil {
		return err
	}
	if err := x.w.Delete(x.k.vec(st.id)); err != nil { // of the old version's text
		return err
	}
	n := x.record(st, head.Version+1)
	n.UseCount = head.UseCount
	n.Supersedes = []string{head.Ref()}
	old := clone(head)
	if old.SupersededBy == "" {
		old.SupersededBy = n.Ref()
	}
	if old.EndedAt == 0 {
		old.EndedAt = x.at
	}
	old.Status = StatusSuperseded
	if err := x.save(head, true, old, false); err != nil {
		return err
	}
	if err := x.place(n, nil); err != nil {
		return err
	}
	if n.Status != StatusActive || head.Status != StatusNeedsConfirmation {
		return nil
	}
	// A held lift corrected as a lift of its own slot is confirmed: it ends
	// the ban it was held against.
	n2 := clone(n)
	if err := x.confirmHeldLift(head, n2); err != nil || len(n2.Supersedes) == len(n.Supersedes) {
		return err
	}
	return x.save(n, true, n2, true)
}

// --- forgetting

func (x *tx) prepareForget(b *events.MemoryForgotten) (func() error, error) {
	if b.ID == "" || len(b.ID) > IDBytesMax {
		return nil, fmt.Errorf("memory: forget for tenant %s: record id missing or too long: %w", x.tenant, ErrInvalid)
	}
	id, err := statementID(x.w, x.k, b.ID)
	if err != nil {
		return nil, err
	}
	e, err := x.idEntry(id)
	switch {
	case err != nil || e != nil && e.Tomb:
		return nil, err
	case e != nil && e.Erased:
		// its events were erased: nothing of it is left but the mark
		return func() error { return x.tombstone(id) }, nil
	}
	return func() error { return x.forget(id) }, nil
}

// statementID is the record id a forgetting names: id itself, or, for
// "<m>#1", "<m>" — the first statement of message m — where m names a
// record and "<m>#1" names neither a record nor a message. A message's
// records are "<m>", "<m>#2", "<m>#3", … (doc.go), so "#1" is how a
// reader counting them names the first; no message's record is "<m>#1"
// itself, a '#' of a message id being written %23.
func statementID(r interface {
	Get(key []byte) ([]byte, bool, error)
}, k keys, id string) (string, error) {
	m, ok := strings.CutSuffix(id, "#1")
	if !ok || m == "" || strings.Contains(m, "#") {
		return id, nil
	}
	for _, other := range []string{id, messageRecordID(id, 1)} { // a record so named, or message "<m>#1"'s first
		if _, named, err := r.Get(k.id(other)); err != nil || named {
			return id, err
		}
	}
	if _, named, err := r.Get(k.id(m)); err != nil || !named {
		return id, err
	}
	return m, nil
}

// forget deletes every version of the record id and of the records that
// carry its text — those read from the same sentence (Sentence), or, for a
// record the projection extracted from an events.UserMessage, every record
// of that message (the first holds the whole message) — everything derived
// from them (postings, slot, quota, expiry and conflict entries, the
// observations merged into them by reinforcement, and the sentences of
// those) and every link to them in other records, and leaves tombstones
// that carry no text. Records that only they had superseded are filed
// again as if the forgotten ones had never been said, and conflicts they
// took part in are decided again.
//
// An id that names no record may name a message: its records are
// forgotten.
func (x *tx) forget(id string) error {
	h, err := x.head(id)
	if err != nil {
		return err
	}
	e, err := x.idEntry(id)
	if err != nil {
		return err
	}
	ids := []string{id}
	var sentences []string
	// sentence adds the records and merged observations of a sentence:
	// they carry its text, so they go together.
	sentence := func(label string) error {
		if label == "" || slices.Contains(sentences, label) {
			return nil
		}
		sentences = append(sentences, label)
		var more []string
		err := x.w.Scan(x.k.sentence(label), func(key, _ []byte) error {
			if m := x.k.lastComponent(key); !slices.Contains(ids, m) {
				more = append(more, m)
			}
			return nil
		})
		ids = append(ids, more...)
		return err
	}
	switch {
	case h != nil && h.Sentence != "":
		err = sentence(h.Sentence)
	case h == nil && e != nil && e.Alias != "" && e.Sentence != "":
		err = sentence(e.Sentence)
	default:
		err = x.messageRecords(id, h, &ids)
	}
	if err != nil {
		return err
	}
	gone := func(r string) bool { return slices.Contains(ids, refID(r)) }
	var linked []string // refs of other records linked to the forgotten ones
	var slots []*Record // the forgotten heads' slots
	// ids grows with the sentences of the observations merged into them
	for i := 0; i < len(ids); i++ {
		fid := ids[i]
		// a statement merged into a record that stays is taken out of it
		// (merge.go)
		if fe, err := x.idEntry(fid); err != nil {
			return err
		} else if fe != nil && !fe.Tomb && fe.Alias != "" && !slices.Contains(ids, fe.Alias) {
			if err := x.unmerge(fid, fe); err != nil {
				return err
			}
		}
		vs, err := x.versions(fid)
		if err != nil {
			return err
		}
		if len(vs) > 0 {
			if err := sentence(vs[len(vs)-1].Sentence); err != nil {
				return err
			}
		}
		for i, v := range vs {
			if err := x.save(v, i == len(vs)-1, nil, false); err != nil {
				return err
			}
			for _, r := range append(slices.Clone(v.Supersedes), v.SupersededBy) {
				if r != "" && !gone(r) && !slices.Contains(linked, r) {
					linked = append(linked, r)
				}
			}
		}
		if len(vs) > 0 && vs[len(vs)-1].Slotted() {
			slots = append(slots, vs[len(vs)-1])
		}
		// the observations merged into a forgotten record are forgotten
		// with it: a redelivered one must not say it again
		var merged []string
		if err := x.w.Scan(x.k.aliases(fid), func(key, _ []byte) error {
			merged = append(merged, x.k.lastComponent(key))
			return nil
		}); err != nil {
			return err
		}
		for _, m := range merged {
			me, err := x.idEntry(m)
			if err != nil {
				return err
			}
			if err := x.w.Delete(x.k.alias(fid, m)); err != nil {
				return err
			}
			if err := x.tombstone(m); err != nil {
				return err
			}
			if me != nil {
				if err := sentence(me.Sentence); err != nil {
					return err
				}
			}
		}
		if err := x.w.Delete(x.k.vec(fid)); err != nil {
			return err
		}
		if err := x.tombstone(fid); err != nil {
			return err
		}
	}
	// unlink, and collect what only the forgotten records had superseded
	var revive []*Record
	for _, r := range linked {
		v, err := x.loadRef(r)
		if err != nil || v == nil {
			if err != nil {
				return err
			}
			continue
		}
		head, err := x.head(v.ID)
		if err != nil {
			return err
		}
		isHead := head != nil && head.Version == v.Version
		v2 := clone(v)
		v2.Supersedes = slices.DeleteFunc(v2.Supersedes, gone)
		if isHead && v2.SupersededBy != "" && gone(v2.SupersededBy) {
			v2.SupersededBy, v2.EndedAt, v2.Status = "", 0, StatusActive
			if v2.Subject == saidSubject { // an episode its correction slotted is one again (correction.go)
				v2.Kind, v2.Subject, v2.Attribute, v2.Value = KindEpisode, "", "", ""
			}
			revive = append(revive, v2)
			continue
		}
		if gone(v2.SupersededBy) {
			v2.SupersededBy = ""
		}
		if err := x.save(v, isHead, v2, isHead); err != nil {
			return err
		}
	}
	sort.Slice(revive, func(i, j int) bool {
		if revive[i].ObservedAt != revive[j].ObservedAt {
			return revive[i].ObservedAt < revive[j].ObservedAt
		}
		return revive[i].ID < revive[j].ID
	})
	for _, r := range revive {
		if err := x.refile(r); err != nil {
			return err
		}
	}
	// conflicts the forgotten records took part in are decided again
	for _, s := range slots {
		holders, err := x.holders(&Record{ID: "", Scope: s.Scope, Subject: s.Subject, Attribute: s.Attribute})
		if err != nil {
			return err
		}
		for _, h := range holders {
			if h.Status == StatusNeedsConfirmation {
				h2 := clone(h)
				h2.Status = StatusActive
				if err := x.refile(h2); err != nil {
					return err
				}
			}
		}
	}
	// the records consolidated from forgotten episodes lose them
	return x.unconsolidate(ids)
}

// messageRecords adds to ids the records extracted from the same user
// message as record id (head h, nil if none) by the projection's extractor
// (an events.UserMessage): the first of them holds the whole message, so
// they go together. An id that names no record may name such a message.
func (x *tx) messageRecords(id string, h *Record, ids *[]string) error {
	root := id // the message whose records go together
	if h != nil && h.Origin != "" {
		root = h.Origin
	}
	bases := []string{root}
	if h == nil || h.Origin != "" {
		// root names a message: its records are messageRecordID(root, n).
		// The first is forgotten even when the extractor dropped it, so a
		// redelivered message is a repeat (check). A view built before the
		// ids were escaped has root, root#2…: both are looked for, and only
		// records whose origin is root count.
		first := messageRecordID(root, 1)
		cands := []string{first}
		if first != root {
			bases = append(bases, first)
			cands = append(cands, root)
		}
		for i, c := range cands {
			if slices.Contains(*ids, c) {
				continue
			}
			ch, err := x.head(c)
			if err != nil {
				return err
			}
			if ch == nil && i == 0 || ch != nil && ch.Origin == root {
				*ids = append(*ids, c)
			}
		}
	}
	for _, base := range bases {
		err := x.w.Scan([]byte(string(x.k.recAll())+esc(base)+"#"), func(key, value []byte) error {
			r, err := decodeRecord(value)
			if err != nil {
				return err
			}
			if r.Origin == root && !slices.Contains(*ids, r.ID) {
				*ids = append(*ids, r.ID)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// tombstone marks id forgotten. If it was merged into another record, its
// mark there goes too, and the tombstone keeps the record's id (Forgotten).
func (x *tx) tombstone(id string) error {
	e, err := x.idEntry(id)
	if err != nil {
		return err
	}
	t := idEntry{Tomb: true, At: x.at, Event: x.event}
	if e != nil && e.Alias != "" {
		if err := x.w.Delete(x.k.alias(e.Alias, id)); err != nil {
			return err
		}
		if e.Sentence != "" {
			if err := x.w.Delete(x.k.se(e.Sentence, id)); err != nil {
				return err
			}
		}
		t.Alias = e.Alias
	}
	return x.w.Set(x.k.id(id), encode(&t))
}

// refile files again a stored head whose status was reset (r carries the
// new fields; the stored state is reloaded).
func (x *tx) refile(r *Record) error {
	old, err := x.load(r.ID, r.Version)
	if err != nil || old == nil {
		return err
	}
	if r.ValidUntil != 0 && r.ValidUntil <= x.at {
		r.Status = StatusExpired
		return x.save(old, true, r, true)
	}
	return x.place(r, old)
}

// --- expiry and quota

// sweep turns every record whose validity ended at or before the event
// time into expired, and moves the expiry watermark to the next one.
func (x *tx) sweep() error {
	if x.meta.Expiry == 0 || x.meta.Expiry > x.at {
		return nil
	}
	type due struct {
		id string
		v  int
	}
	var dues []due
	stop := errors.New("stop")
	prefix := x.k.exps()
	err := x.w.Scan(prefix, func(key, value []byte) error {
		rest := string(key[len(prefix):])
		i := strings.IndexByte(rest, '/')
		until, err := strconv.ParseInt(rest[:max(i, 0)], 10, 64)
		if err != nil || until > x.at {
			return stop
		}
		v, _ := uvarint(value)
		dues = append(dues, due{unesc(rest[i+1:]), v})
		return nil
	})
	if err != nil && err != stop {
		return err
	}
	for _, d := range dues {
		r, err := x.load(d.id, d.v)
		if err != nil {
			return err
		}
		if r == nil {
			continue
		}
		if err := x.save(r, true, withStatus(r, StatusExpired), true); err != nil {
			return err
		}
	}
	x.meta.Expiry = 0
	err = x.w.Scan(prefix, func(key, _ []byte) error {
		rest := string(key[len(prefix):])
		if i := strings.IndexByte(rest, '/'); i > 0 {
			x.meta.Expiry, _ = strconv.ParseInt(rest[:i], 10, 64)
		}
		return stop
	})
	if err != stop {
		return err
	}
	return nil
}

// enforceQuota turns the least valuable active records cold while the user
// has more than the quota: records other than constraints first, then
// constraints, each by valueOf. Nothing is deleted.
func (x *tx) enforceQuota() error {
	q := x.e.cfg.QuotaPerUser
	if q < 0 {
		return nil
	}
	stop := errors.New("stop")
	for x.meta.Active > q {
		var id string
		var v int
		err := x.w.Scan(x.k.vals(), func(key, value []byte) error {
			id = x.k.lastComponent(key)
			v, _ = uvarint(value)
			return stop
		})
		if err != nil && err != stop {
			return err
		}
		r, err := x.load(id, v)
		if err != nil {
			return err
		}
		if r == nil {
			return fmt.Errorf("memory: quota of %s/%s: value entry %q has no record", x.tenant, x.user, id)
		}
		if err := x.save(r, true, withStatus(r, StatusCold), true); err != nil {
			return err
		}
	}
	return nil
}

// enforceTenantQuota turns the tenant's least valuable active records
// cold while its users together have more than its quota (TenantQuota),
// in the order of enforceQuota across the tenant's users (ties by user,
// then id): the tenant's index of values says which. A record of another
// user changes as the quota of that user would change it; that user's
// clock does not move. Nothing is deleted.
func (x *tx) enforceTenantQuota() error {
	q := x.e.TenantQuota(x.tenant)
	if q <= 0 {
		return nil
	}
	tk := tenantKeysFor(x.tenant)
	var tm tenantMeta
	if b, ok, err := x.w.Get(tk.meta()); err != nil {
		return err
	} else if ok {
		if err := decodeInto(b, &tm); err != nil {
			return err
		}
	}
	delta := func() int {
		d := x.tenantDelta
		for _, o := range x.others {
			d += o.tenantDelta
		}
		return d
	}
	stop := errors.New("stop")
	prefix := tk.vals()
	for tm.Active+delta() > q {
		var user, id string
		var v int
		err := x.w.Scan(prefix, func(key, value []byte) error {
			f := strings.Split(string(key[len(prefix):]), "/") // tier, value, user, id
			if len(f) == 4 {
				user, id = unesc(f[2]), unesc(f[3])
				v, _ = uvarint(value)
			}
			return stop
		})
		if err != nil && err != stop {
			return err
		}
		if id == "" {
			return fmt.Errorf("memory: quota of tenant %s: %d active records counted, none in its index", x.tenant, tm.Active+delta())
		}
		o, err := x.userTx(user)
		if err != nil {
			return err
		}
		r, err := o.load(id, v)
		if err != nil {
			return err
		}
		if r == nil {
			return fmt.Errorf("memory: quota of tenant %s: value entry %s/%q has no record", x.tenant, user, id)
		}
		if err := o.save(r, true, withStatus(r, StatusCold), true); err != nil {
			return err
		}
	}
	for _, o := range x.others {
		if err := x.w.Set(o.k.meta(), encode(&o.meta)); err != nil {
			return err
		}
	}
	if d := delta(); d != 0 {
		tm.Active += d
		return x.w.Set(tk.meta(), encode(&tm))
	}
	return nil
}

// userTx is the tx through which the tenant's quota changes a record of
// user: x for its own user, else one that reads the user's counters and
// neither sweeps nor moves the user's clock.
func (x *tx) userTx(user string) (*tx, error) {
	if user == x.user {
		return x, nil
	}
	for _, o := range x.others {
		if o.user == user {
			return o, nil
		}
	}
	o := &tx{e: x.e, w: x.w, k: keysFor(x.tenant, user), tenant: x.tenant, user: user, at: x.at, event: x.event}
	b, ok, err := x.w.Get(o.k.meta())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("memory: quota of tenant %s: user %q has records in its index but no counters", x.tenant, user)
	}
	if err := decodeInto(b, &o.meta); err != nil {
		return nil, err
	}
	x.others = append(x.others, o)
	return o, nil
}

// valueOf is a record's eviction value at time 0, in log space: with
// exponential decay the order of records by value never changes with time,
// so the "val" index is kept without rewriting it as time passes.
func (e *Engine) valueOf(r *Record) float64 {
	conf := math.Log(math.Max(r.Confidence, 0.01))
	use := math.Log(kindWeight(r.Kind) * float64(1+math.Log1p(float64(r.UseCount))))
	age := float64(float64(r.touched())/float64(e.cfg.HalfLife)) * math.Ln2
	return float64(conf+use) + age
}

func kindWeight(k Kind) float64 {
	switch k {
	case KindConstraint:
		return 2
	case KindFact:
		return 1.5
	case KindPreference:
		return 1.2
	}
	return 1
}
