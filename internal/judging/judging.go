package judging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

var (
	// ErrConfig is returned by New for a configuration that cannot work.
	ErrConfig = errors.New("judging: invalid config")

	// ErrUnavailable is returned when an external judge cannot be reached
	// or answers with a non-2xx status (see StatusError). The
	// deterministic verdicts stand; the caller may retry later.
	ErrUnavailable = errors.New("judging: judge unavailable")

	// ErrResponse is returned when a judge's answer breaks the contract:
	// not JSON, a verdict outside supported / contradicted / unsupported /
	// not_checkable, or an index that was not asked about.
	ErrResponse = errors.New("judging: malformed judge response")
)

// StatusError is a judge's non-2xx HTTP answer. It wraps ErrUnavailable.
type StatusError struct {
	StatusCode int
	Body       string // at most the first 512 bytes
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("judging: judge answered %d: %s", e.StatusCode, e.Body)
}

func (e *StatusError) Unwrap() error { return ErrUnavailable }

// Config configures a Worker.
type Config struct {
	// JS is the log; Keys opens sealed events and seals the verdicts (nil:
	// in the clear).
	JS   jetstream.JetStream
	Keys events.Keyring
	// MsgIDKey tags the verdicts' message ids (events.OwnedMsgID), so no
	// other role writing TS_OUT can claim one first: the verifier role's
	// key (bus.Bus.MsgIDKey). Nil: the plain ids.
	MsgIDKey []byte
	// View returns a snapshot of the verifier projection's view (the
	// verifier's projector.Runner View method); the worker closes each.
	View func() *projector.View
	// Judge decides undecided claims (NewHTTPJudge for serve --judge
	// URL).
	Judge Judge
	// Durable is the consumer's name; default "ts-judge".
	Durable string
	// Timeout bounds one question to the judge; default 30 s.
	Timeout time.Duration
	// Attempts is how many times an answer is put to the judge before its
	// claims are left undecided; default 5.
	Attempts int
	// Backoff is the wait before the second attempt, doubled for each
	// next one up to BackoffMax; defaults 2 s and 5 min.
	Backoff, BackoffMax time.Duration
	// InFlight bounds the answers being judged at once; default 4.
	InFlight int
	// Logger; nil discards.
	Logger *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.JS == nil || c.View == nil || c.Judge == nil {
		return fmt.Errorf("%w: JS, View and Judge are required", ErrConfig)
	}
	c.fill()
	return nil
}

// fill sets the defaults of the fields left zero.
func (c *Config) fill() {
	if c.Durable == "" {
		c.Durable = "ts-judge"
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Attempts <= 0 {
		c.Attempts = 5
	}
	if c.Backoff <= 0 {
		c.Backoff = 2 * time.Second
	}
	if c.BackoffMax < c.Backoff {
		c.BackoffMax = max(5*time.Minute, c.Backoff)
	}
	if c.InFlight <= 0 {
		c.InFlight = 4
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// Worker puts undecided claims to the judge and publishes its verdicts.
type Worker struct {
	cfg Config
	log *slog.Logger
}

// consumerConfig is the judge's durable consumer of verdicts.
func (c *Config) consumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:        c.Durable,
		Description:    "Toolstream judge: undecided claims of verified answers",
		FilterSubjects: []string{events.AllAnswers},
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        c.Timeout + 30*time.Second,
		MaxDeliver:     -1, // the worker counts attempts and ends them (Term)
		MaxAckPending:  4 * c.InFlight,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	}
}

// CreateConsumer creates the judge's durable consumer (ts-judge, the
// defaults' settings) when it does not exist; an existing one is left as it
// is. It needs the admin identity (`toolstream setup`).
func CreateConsumer(ctx context.Context, js jetstream.JetStream) error {
	var c Config
	c.fill()
	if _, err := js.Consumer(ctx, events.StreamOut, c.Durable); !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return err
	}
	if _, err := js.CreateConsumer(ctx, events.StreamOut, c.consumerConfig()); err != nil && !errors.Is(err, jetstream.ErrConsumerExists) {
		return fmt.Errorf("judging: create consumer %s: %w", c.Durable, err)
	}
	return nil
}

// New returns a worker; it returns an error wrapping ErrConfig when JS,
// View or Judge is missing.
func New(cfg Config) (*Worker, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	return &Worker{cfg: cfg, log: cfg.Logger.With("component", "judge")}, nil
}

// Run follows the verifier's verdicts until ctx ends; it then waits for
// the answers in flight (an ask cut short is asked again after a
// restart) and returns nil. It fails when the consumer cannot be made.
func (w *Worker) Run(ctx context.Context) error {
	cons, err := w.cfg.JS.Consumer(ctx, events.StreamOut, w.cfg.Durable)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		// Made here only by an identity that may (the admin: serve on one
		// machine); a processor's role may not (docs/security.md).
		if _, cerr := w.cfg.JS.CreateConsumer(ctx, events.StreamOut, w.cfg.consumerConfig()); cerr != nil && !errors.Is(cerr, jetstream.ErrConsumerExists) {
			return fmt.Errorf("judging: durable consumer %s on %s is missing; run `toolstream setup` as the admin identity: %w", w.cfg.Durable, events.StreamOut, cerr)
		}
		cons, err = w.cfg.JS.Consumer(ctx, events.StreamOut, w.cfg.Durable)
	}
	if err != nil {
		return fmt.Errorf("judging: consumer %s: %w", w.cfg.Durable, err)
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, w.cfg.InFlight)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return // redelivered after the restart
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			w.handle(ctx, m)
		}()
	}, jetstream.PullMaxMessages(w.cfg.InFlight))
	if err != nil {
		return fmt.Errorf("judging: consume: %w", err)
	}
	w.log.Info("judge worker running", "durable", w.cfg.Durable)
	<-ctx.Done()
	cc.Stop()
	wg.Wait()
	w.log.Info("judge worker stopped")
	return nil
}

// handle puts one verified answer's undecided claims to the judge.
func (w *Worker) handle(ctx context.Context, m jetstream.Msg) {
	ev, err := events.DecodeWith(m.Data(), w.cfg.Keys)
	switch {
	case errors.Is(err, events.ErrErased):
		_ = m.Ack() // erased: nothing to judge
		return
	case err != nil:
		w.log.Warn("judge: unreadable event skipped", "subject", m.Subject(), "err", err)
		_ = m.Term()
		return
	}
	if _, ok := ev.Body.(*events.AnswerVerified); !ok || ev.ID != events.VerifiedID(ev.Tenant, ev.Response) {
		_ = m.Ack() // answers, judge verdicts, verdicts after a judge's
		return
	}
	v, evidence, err := w.read(ev)
	if err != nil {
		// NB: the view is behind the log (a view being rebuilt): ask later.
		w.retry(ctx, m, ev, fmt.Errorf("judging: verifier view: %w", err))
		return
	}
	if len(v.Undecided) == 0 {
		_ = m.Ack()
		return
	}
	rep := verifier.Report{Faithfulness: v.Verified.Faithfulness, Claims: v.Verified.Claims, Undecided: v.Undecided}
	actx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	_, vs, err := AskJudge(actx, w.cfg.Judge, rep, evidence)
	cancel()
	if err != nil {
		w.retry(ctx, m, ev, err)
		return
	}
	for i := range vs {
		if err := w.publish(ctx, ev, &vs[i]); err != nil {
			w.retry(ctx, m, ev, err)
			return
		}
	}
	w.log.Debug("judged", "tenant", ev.Tenant, "response", ev.Response, "asked", len(v.Undecided), "verdicts", len(vs))
	_ = m.Ack()
}

// read returns the stored verdicts on ev's answer and the evidence it was
// checked against.
func (w *Worker) read(ev *events.Event) (verifier.Verified, []verifier.Evidence, error) {
	view := w.cfg.View()
	defer view.Close()
	v, err := verifier.Get(view, ev.Tenant, ev.Response)
	if err != nil {
		return v, nil, err
	}
	all, err := verifier.AnswerEvidence(view, ev)
	if err != nil {
		return v, nil, err
	}
	var evidence []verifier.Evidence
	for _, e := range all {
		if e.At.IsZero() || e.At.UnixNano() <= v.At {
			evidence = append(evidence, e)
		}
	}
	return v, evidence, nil
}

// publish records one verdict on ev's answer: at the answer's time, under
// the answer's user, with the claim's id.
func (w *Worker) publish(ctx context.Context, ev *events.Event, jv *events.JudgeVerdict) error {
	subj, err := events.AnswerSubject(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	out := &events.Event{ID: events.JudgeVerdictID(ev.Tenant, ev.Response, jv.Claim), Tenant: ev.Tenant, User: ev.User,
		Session: ev.Session, Run: ev.Run, Response: ev.Response, At: ev.At, Body: jv}
	var data []byte
	if w.cfg.Keys != nil {
		data, err = events.EncodeSealed(out, w.cfg.Keys, "")
	} else {
		data, err = events.Encode(out)
	}
	if err != nil {
		return fmt.Errorf("judging: encode verdict: %w", err)
	}
	if _, err := w.cfg.JS.Publish(ctx, subj, data, jetstream.WithMsgID(events.OwnedMsgID(w.cfg.MsgIDKey, subj, out.ID))); err != nil {
		return fmt.Errorf("judging: publish %s: %w", out.ID, err)
	}
	return nil
}

// retry asks again after a backoff, or, after the last attempt, leaves
// the claims undecided. A worker being stopped leaves the message to be
// redelivered after its restart.
func (w *Worker) retry(ctx context.Context, m jetstream.Msg, ev *events.Event, cause error) {
	if ctx.Err() != nil {
		_ = m.Nak()
		return
	}
	n := uint64(1)
	if md, err := m.Metadata(); err == nil {
		n = md.NumDelivered
	}
	if n >= uint64(w.cfg.Attempts) {
		w.log.Warn("judge: claims left undecided", "tenant", ev.Tenant, "response", ev.Response, "attempts", n, "err", cause)
		_ = m.Term()
		return
	}
	wait := w.cfg.Backoff << min(n-1, 20)
	if wait <= 0 || wait > w.cfg.BackoffMax {
		wait = w.cfg.BackoffMax
	}
	w.log.Info("judge: asking again later", "tenant", ev.Tenant, "response", ev.Response, "attempt", n, "in", wait, "err", cause)
	_ = m.NakWithDelay(wait)
}
