package agent

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/toolsel"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier/constraint"
)

// Model sends one round's request to the model and publishes every event
// of its answer to the log as a producer does (with the round's envelope),
// returning once the answer ended. The gateway implements it over its
// upstream client (gateway.Stream).
type Model interface {
	Round(ctx context.Context, r Round) (*RoundResult, error)
}

// Round is one request to the model.
type Round struct {
	Spec *Spec
	N    int    // 1, 2, …
	Step string // the envelope's step: "round-N"
	Body []byte // the request body, streaming
}

// RoundResult is what the model answered.
type RoundResult struct {
	// Response is the provider's response id (the runs view's round).
	Response string
	// Status is the upstream's HTTP status; Body its answer when it was not
	// a stream (an error), whole; Header its headers (an error's
	// Retry-After and X-Request-Id reach the client).
	Status int
	Body   []byte
	Header http.Header
}

// Config configures a Driver.
type Config struct {
	Model Model
	// Conn asks the runs service (tsv.runs.*) and hears the run's events;
	// JS reads the log and keeps the runs' requests (bucket ts_agent);
	// Keys seals those and opens the answers. All required.
	Conn *nats.Conn
	JS   jetstream.JetStream
	Keys events.Keyring
	// MsgIDKey tags the message ids of what the driver publishes into
	// TS_OUT (constraint checks, built-in tools' outcomes:
	// events.OwnedMsgID), so no other role writing TS_OUT can claim one
	// first: the driver's key (bus.Bus.MsgIDKey). Nil: the plain ids.
	MsgIDKey []byte
	// Leases is the runs' lease bucket (runs.NewLeases); required.
	Leases *runs.Leases
	// Registry returns the registry in force (registry.Follower.Current):
	// read at every round, so a tool registered in the tools file is
	// offered to the next round without a restart.
	Registry func() *registry.Registry
	// Driver names this driver in the leases. A restarted process of the
	// same name takes its runs back at once (Resume); two live processes
	// must not share one. Required.
	Driver string
	// ToolsMax bounds the tools one request carries (the most relevant to
	// the conversation: toolsel.Select); default 20.
	ToolsMax int
	// RoundsMax is a run's budget of rounds: the last is asked without
	// tools; default 8.
	RoundsMax int
	// ReplansMax, DelegateDepthMax, PlansOff, DelegateOff and Memory are
	// the first Settings: SetSettings changes them while the driver runs.
	//
	// ReplansMax is how many replan triggers a run acts on when its plan
	// names no budget.replans; one more ends the run
	// (ReasonReplansExhausted). Default 3.
	ReplansMax int
	// DelegateDepthMax bounds the chain of sub-agents: a run at this depth
	// (a client's run is at 0) is not offered toolstream_delegate.
	// Default 1: a client's run may delegate, its children may not.
	DelegateDepthMax int
	// PlansOff: no round offers toolstream_plan, and a model's call of it
	// (offered or not) fails unknown_tool with nothing written. The
	// default (false) offers it on every round with tools.
	PlansOff bool
	// DelegateOff: no round offers toolstream_delegate, and a model's
	// call of it fails unknown_tool with no sub-agent started, whatever
	// DelegateDepthMax says. The default (false) offers it to the runs
	// below DelegateDepthMax.
	DelegateOff bool
	// HistoryBudgetTokens bounds the history of the tool rounds sent back
	// (runs.HistoryOptions.BudgetTokens); 0: no bound.
	HistoryBudgetTokens int
	// VerifyWait bounds the wait for the verifier's verdict on the answer;
	// default 30s. An answer without a verdict is withheld (fail closed).
	VerifyWait time.Duration
	// RecordWait bounds the wait for a round the model answered to appear
	// in the runs view; default 2 minutes.
	RecordWait time.Duration
	// Poll is how often the driver reads the run's state while it waits
	// and hears nothing on the run's subject; default 250ms.
	Poll time.Duration
	// ServiceTimeout bounds one request to the runs service; default 10s.
	ServiceTimeout time.Duration
	// Memory is the runs' use of their users' memory (memory.go): on by
	// default where the memory service runs.
	Memory MemoryConfig
	// Replicas of the ts_agent bucket when it is created; default 1.
	Replicas int
	// Logger; nil discards.
	Logger *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.Model == nil || c.Conn == nil || c.JS == nil || c.Keys == nil || c.Leases == nil || c.Registry == nil || c.Driver == "" {
		return fmt.Errorf("%w: Model, Conn, JS, Keys, Leases, Registry and Driver are required", ErrInvalidConfig)
	}
	if c.ToolsMax <= 0 {
		c.ToolsMax = toolsel.ToolsMax
	}
	if c.RoundsMax <= 0 {
		c.RoundsMax = 8
	}
	if c.ReplansMax <= 0 {
		c.ReplansMax = 3
	}
	if c.DelegateDepthMax <= 0 {
		c.DelegateDepthMax = 1
	}
	if c.VerifyWait <= 0 {
		c.VerifyWait = 30 * time.Second
	}
	if c.RecordWait <= 0 {
		c.RecordWait = 2 * time.Minute
	}
	if c.Poll <= 0 {
		c.Poll = 250 * time.Millisecond
	}
	if c.ServiceTimeout <= 0 {
		c.ServiceTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Status is how a drive of a run ended.
type Status string

const (
	// StatusAnswered: the model answered; Text is the answer as the
	// tenant's policy lets the client see it.
	StatusAnswered Status = "answered"
	// StatusWaitingApproval: a call of the open round waits for a person;
	// the client resumes the run (the same Toolstream-Run) once it is
	// decided.
	StatusWaitingApproval Status = "waiting_approval"
	// StatusCancelled: the run was ended at the client's request
	// (Reason says why); no further round starts.
	StatusCancelled Status = "cancelled"
	// StatusFailed: the run cannot go on (Reason says why).
	StatusFailed Status = "failed"
)

// Reasons a drive ended other than with an answer. They leave the process
// (the client reads them): typed constants, never free text.
const (
	ReasonClientDisconnected = "client_disconnected"  // Toolstream-On-Disconnect: cancel, and the client went away
	ReasonUpstreamError      = "upstream_error"       // the upstream answered with an error (Upstream has it)
	ReasonResponseFailed     = "response_failed"      // two model responses in a row failed or were cut without calls
	ReasonRoundsExhausted    = "rounds_exhausted"     // RoundsMax rounds and the model still calls tools
	ReasonNotRecorded        = "round_not_recorded"   // the model answered but the runs view never showed the round
	ReasonLeaseLost          = "lease_lost"           // another driver took the run over
	ReasonUnverified         = "verification_timeout" // no verdict on the answer in time: withheld
	ReasonReplansExhausted   = "replans_exhausted"    // a replan trigger past the plan's budget.replans
	ReasonTokensExhausted    = "tokens_exhausted"     // a child run used the tokens its parent gave it
)

// Outcome is how a drive of a run ended.
type Outcome struct {
	Run    string `json:"run"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Response is the last round's response id; Rounds the run's rounds.
	Response string `json:"response,omitempty"`
	Rounds   int    `json:"rounds"`
	// Text is the answer to show: the model's, repaired or withheld
	// (Blocked) by the tenant's policy.
	Text    string `json:"-"`
	Blocked bool   `json:"blocked,omitempty"`
	// Verdict is the verifier's verdict on the answer (per claim).
	Verdict *events.AnswerVerified `json:"-"`
	// Recalled are the user's memories the last round's recall put into
	// the model's context (ids and versions, no text).
	Recalled []RecalledMemory `json:"recalled,omitempty"`
	// Waiting are the calls waiting for approval.
	Waiting []WaitingCall `json:"waiting,omitempty"`
	// Upstream is the upstream's error answer (ReasonUpstreamError).
	Upstream *RoundResult `json:"-"`
	// Degraded reports that the answer was asked without tools after too
	// many failed calls.
	Degraded bool `json:"degraded,omitempty"`
	// Usage adds up the tokens the provider reported for the rounds this
	// request of the run asked (those since its last user message).
	Usage events.Usage `json:"usage"`
}

// WaitingCall is a call waiting for a person's approval; Key is what
// `toolstream approve` takes.
type WaitingCall struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Key    string `json:"key,omitempty"`
	// Arguments are the call's arguments (a JSON object), as the model
	// made them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Driver drives runs: see the package doc. Safe for concurrent use; one
// drive per run at a time in a process (a second request of a run waits
// for the first's outcome).
type Driver struct {
	cfg   Config
	log   *slog.Logger
	runs  *client.Client // the runs service, decisions and verdicts, as a client
	store *specStore

	mu          sync.Mutex
	active      map[string]*drive     // by tenant/run; guarded by mu
	indexes     map[string]toolsIndex // by tenant: the ranking of its tools; guarded by mu
	bg          sync.WaitGroup        // drives started by Resume
	memOnce     sync.Once             // says once that memory is out of reach
	constraints *constraint.Checker   // an answer against its user's constraints in force
	// settings are the Settings in force (SetSettings), never nil.
	settings atomic.Pointer[Settings]
	// beforePlanWrite, when set (tests), runs between a plan call's read
	// of the run and its write.
	beforePlanWrite func()
}

// toolsIndex is a tenant's tools as of one registry, indexed for ranking.
type toolsIndex struct {
	reg *registry.Registry
	ix  *toolsel.Index
}

// index returns the ranking index of the tenant's tools in reg, built once
// per registry (a change of the registry is a new *Registry).
func (d *Driver) index(reg *registry.Registry, tenant string) *toolsel.Index {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.indexes[tenant]; ok && c.reg == reg {
		return c.ix
	}
	ix := toolsel.NewIndex(toolsel.Allowed(reg, tenant))
	if len(d.indexes) >= indexesMax {
		clear(d.indexes) // bounded: rebuilt on the next round of each tenant
	}
	d.indexes[tenant] = toolsIndex{reg: reg, ix: ix}
	return ix
}

// indexesMax bounds the tenants whose tool index is kept.
const indexesMax = 1024

type drive struct {
	user  string // whose run it is
	asked string // the digest of the conversation its request asked
	done  chan struct{}
	out   *Outcome
	err   error
}

// New returns a driver, creating the ts_agent bucket when it is missing.
// ErrInvalidConfig for a config without a required part.
func New(ctx context.Context, cfg Config) (*Driver, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	st, err := openStore(ctx, cfg.JS, cfg.Keys, cfg.Replicas)
	if err != nil {
		return nil, err
	}
	rc, err := client.Connect(ctx, client.WithConn(cfg.Conn), client.WithKeys(cfg.Keys),
		client.WithRequestTimeout(cfg.ServiceTimeout), client.WithLogger(cfg.Logger))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	d := &Driver{cfg: cfg, log: cfg.Logger, runs: rc, store: st, active: map[string]*drive{}, indexes: map[string]toolsIndex{},
		constraints: constraint.New()}
	first := Settings{PlansOff: cfg.PlansOff, DelegateOff: cfg.DelegateOff, ReplansMax: cfg.ReplansMax, DelegateDepthMax: cfg.DelegateDepthMax, Memory: cfg.Memory}
	first.setDefaults()
	d.settings.Store(&first)
	return d, nil
}

// NewRunID draws a run id for a request that names none.
func NewRunID() string {
	var b [12]byte
	rand.Read(b[:])
	return "run_" + hex.EncodeToString(b[:])
}

// Run drives spec's run until the model answers, a call waits for
// approval, or the run cannot go on, and says how it ended. The run's
// first request stores its spec and records its user messages in the run
// (its history begins with them); a later request with a conversation the
// run took (a reconnect, a retry, a resume after approval) drives the
// stored spec, and one with a new conversation is a new question: its new
// user messages are recorded and the run goes on with a new round (see
// turns.go).
//
// ctx ending cancels the run (ReasonClientDisconnected: no further round
// starts and the model's answer being read is cut, so none of its calls
// runs); a caller that wants the run to outlive its client passes a
// context that does not end with it (context.WithoutCancel). Errors:
// ErrBadRequest for a spec that cannot be driven, ErrNotFound for a run
// another user's request created (a run belongs to its first request's
// user), and the log's or the runs service's when they fail; every other
// ending is an Outcome.
func (d *Driver) Run(ctx context.Context, spec Spec) (*Outcome, error) {
	if err := checkSpec(&spec); err != nil {
		return nil, err
	}
	key := spec.Tenant + "/" + spec.Run
	d.mu.Lock()
	if a := d.active[key]; a != nil {
		d.mu.Unlock()
		if a.user != spec.User {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, spec.Run)
		}
		select {
		case <-a.done:
			if a.err != nil {
				return nil, a.err
			}
			if a.out.Status == StatusWaitingApproval || a.out.Reason == ReasonLeaseLost || a.asked != specDigest(spec) {
				// It may have been decided since, or this request asks a
				// new question: look again.
				return d.Run(ctx, spec)
			}
			return a.out, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	a := &drive{done: make(chan struct{}), user: spec.User, asked: specDigest(spec)}
	d.active[key] = a
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.active, key)
		d.mu.Unlock()
		close(a.done)
	}()
	a.out, a.err = d.drive(ctx, spec)
	return a.out, a.err
}

// specDigest is the digest of spec's conversation ("" when it has none).
func specDigest(spec Spec) string {
	body, err := parseBody(spec.Body)
	if err != nil {
		return ""
	}
	conv, err := clientConversation(spec.Format, body)
	if err != nil {
		return ""
	}
	return conversationDigest(conv)
}

// Driving reports whether a drive of the run is under way in this process.
func (d *Driver) Driving(tenant, run string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active[tenant+"/"+run] != nil
}

func checkSpec(s *Spec) error {
	if err := events.ValidTenant(s.Tenant); err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if s.Run == "" {
		return fmt.Errorf("%w: no run", ErrBadRequest)
	}
	switch s.Format {
	case runs.FormatChat, runs.FormatResponses, runs.FormatAnthropic:
	default:
		return fmt.Errorf("%w: format %q (want openai-chat, openai-responses or anthropic)", ErrBadRequest, s.Format)
	}
	body, err := parseBody(s.Body)
	if err != nil {
		return err
	}
	_, err = clientConversation(s.Format, body)
	return err
}

// Resume drives, in the background, every run this driver was driving when
// its process ended (a marker per run in ts_agent, set while a drive is
// under way): a restarted gateway finishes them from their last settled
// round. Wait waits for them.
func (d *Driver) Resume(ctx context.Context) (int, error) {
	keys, err := d.store.keysUnder(ctx, driveFilter(d.cfg.Driver))
	if err != nil {
		return 0, fmt.Errorf("agent: list the runs to resume: %w", err)
	}
	n := 0
	for _, k := range keys {
		tenant, run, ok := parseDriveKey(k)
		if !ok {
			continue
		}
		st, err := d.store.load(ctx, tenant, run)
		if err != nil {
			d.log.Warn("run not resumed", "tenant", tenant, "run", run, "err", err)
			continue
		}
		n++
		d.bg.Add(1)
		go func() {
			defer d.bg.Done()
			out, err := d.Run(context.WithoutCancel(ctx), st.Spec)
			if err != nil {
				d.log.Error("resumed run failed", "tenant", tenant, "run", run, "err", err)
				return
			}
			d.log.Info("resumed run ended", "tenant", tenant, "run", run, "status", out.Status, "reason", out.Reason)
		}()
	}
	return n, nil
}

// Wait waits for the drives Resume started.
func (d *Driver) Wait() { d.bg.Wait() }

// driveKey marks a run this driver is driving.
func driveKey(driver, tenant, run string) string {
	return "drive." + base64.RawURLEncoding.EncodeToString([]byte(driver)) + "." + tenant + "." + base64.RawURLEncoding.EncodeToString([]byte(run))
}

func driveFilter(driver string) string {
	return "drive." + base64.RawURLEncoding.EncodeToString([]byte(driver)) + ".>"
}

func parseDriveKey(k string) (tenant, run string, ok bool) {
	parts := strings.Split(k, ".")
	if len(parts) != 4 || parts[0] != "drive" {
		return "", "", false
	}
	r, err := base64.RawURLEncoding.DecodeString(parts[3])
	if err != nil || events.ValidTenant(parts[2]) != nil {
		return "", "", false
	}
	return parts[2], string(r), true
}

// drive is one drive of a run.
func (d *Driver) drive(ctx context.Context, spec Spec) (*Outcome, error) {
	bg := context.WithoutCancel(ctx)
	rec, first, err := d.store.claim(bg, spec)
	if err != nil {
		return nil, err
	}
	if spec.Parent != "" && (rec.Spec.Parent != spec.Parent || rec.Spec.User != spec.User) {
		// A sub-agent's id that a client's run (or another parent's
		// child) already has: its stored spec (tools, budget, depth) is
		// not the one the parent carved, so it is neither driven nor read.
		return nil, fmt.Errorf("%w: %s", ErrRunTaken, spec.Run)
	}
	if rec.Spec.User != spec.User {
		// Another user's run: nothing of it is read or driven, and the
		// answer does not tell it exists.
		return nil, fmt.Errorf("%w: %s", ErrNotFound, spec.Run)
	}
	if rec.Ended != "" {
		return &Outcome{Run: spec.Run, Status: StatusCancelled, Reason: rec.Ended, Detail: rec.Detail}, nil
	}
	asked := spec // this request, which may bring a new question
	onDisconnect, key, mem := spec.OnDisconnect, spec.Key, spec.Memory
	spec = rec.Spec
	spec.OnDisconnect, spec.Key, spec.Memory = onDisconnect, key, mem
	held, err := d.hold(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return d.cancel(bg, rec)
		}
		return nil, err
	}
	defer held.Release(bg)
	if _, err := d.startTurn(bg, asked, rec, first); err != nil {
		return nil, err
	}
	mark := driveKey(d.cfg.Driver, spec.Tenant, spec.Run)
	if _, err := d.store.kv.Put(bg, mark, nil); err != nil {
		return nil, fmt.Errorf("agent: mark the run: %w", err)
	}
	out, err := d.loop(ctx, &spec, held, rec.Inputs, latestUserText(rec))
	if err == nil && out.Status == StatusCancelled {
		out, err = d.cancel(bg, rec)
	}
	if err == nil && (out.Status == StatusCancelled || out.Status == StatusFailed && out.Reason != ReasonLeaseLost) {
		d.end(bg, spec, held, out)
	}
	if err == nil && out.Reason != ReasonLeaseLost {
		// Ended here (answered, waiting, cancelled, failed): a restart has
		// nothing to resume. A lost lease is the new driver's to finish.
		if derr := d.store.kv.Delete(bg, mark); derr != nil {
			d.log.Warn("run marker not removed", "tenant", spec.Tenant, "run", spec.Run, "err", derr)
		}
	}
	return out, err
}

// end records in the run, under the lease this drive holds, that it
// stopped short of an answer and why: the runs view showed the last
// round's status (settled) for a run its client was told had failed. Not
// recorded is only logged: the client has its answer either way.
func (d *Driver) end(ctx context.Context, spec Spec, held *runs.Held, out *Outcome) {
	ls := held.Lease()
	status := runs.StatusFailed
	if out.Status == StatusCancelled {
		status = runs.StatusCancelled
	}
	err := d.runsWrite(ctx, "end", spec.Tenant, runs.Request{Run: spec.Run, User: spec.User, Driver: ls.Driver, Epoch: ls.Epoch,
		Status: status, Reason: string(out.Reason), Detail: out.Detail})
	if err != nil {
		d.log.Warn("run's end not recorded", "tenant", spec.Tenant, "run", spec.Run, "status", out.Status, "reason", out.Reason, "err", err)
	}
}

// cancel records that the run was cancelled.
func (d *Driver) cancel(ctx context.Context, rec *stored) (*Outcome, error) {
	if err := d.store.end(ctx, rec, ReasonClientDisconnected, "the client went away and asked the run to end with it (Toolstream-On-Disconnect: cancel)"); err != nil {
		return nil, err
	}
	d.log.Info("run cancelled", "tenant", rec.Spec.Tenant, "run", rec.Spec.Run, "reason", rec.Ended)
	return &Outcome{Run: rec.Spec.Run, Status: StatusCancelled, Reason: rec.Ended, Detail: rec.Detail}, nil
}

// hold takes the run's lease, waiting while another driver holds it (it
// is finishing a round of this run: its outcome is then read from the
// run's state).
func (d *Driver) hold(ctx context.Context, spec Spec) (*runs.Held, error) {
	for {
		h, err := d.cfg.Leases.Hold(ctx, spec.Tenant, spec.Run, d.cfg.Driver)
		var held *runs.HeldError
		if !errors.As(err, &held) {
			return h, err
		}
		wait := min(max(time.Until(held.Expires), d.cfg.Poll), 5*time.Second)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
