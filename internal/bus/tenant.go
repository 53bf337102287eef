package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/logread"
)

// Per-tenant ingress streams (docs/security.md, "The fix for all three").
//
// TS_IN and TS_MODEL hold what every tenant's producers write, and JetStream
// evaluates a publish's Nats-Expected-* headers and counts open atomic
// batches per stream, not per subject: on a shared stream one tenant's
// producer probes another's subjects (Nats-Expected-Last-Subject-Sequence-
// Subject naming them), reads the stream's last message id in a refusal,
// and fills the stream's open batch slots. With Config.TenantStreams each
// tenant t has a stream of its own, TS_ING_<t>, over ts.in.<t>.> and
// ts.model.<t>.>, and the shared streams take those subjects from it by
// stream sourcing, keeping as subjects of their own only what no tenant
// writes (ts.raw.>, ts.ctl.>, the system tenant's clock on ts.in).
//
// What the server does with a sourced message (nats-server v2.15.2's
// processInboundSourceMsg): it removes every
// Nats-Expected-* and Nats-Batch-* header, adds Nats-Stream-Source, keeps
// Nats-Msg-Id, and stores the message through processJetStreamMsg, which
// applies the stream's own subject transform (the model partitions) and
// its duplicate window to sourced messages as to published ones. So a
// producer's expectations and batches are evaluated on its tenant's stream
// alone, the shared stream partitions and deduplicates as before, and a
// source needs no transform of its own: a plain filter is enough.
//
// A tenant stream is a staging area, never replayed; the shared streams are
// the log. It keeps a message until both shared streams have copied it and
// the duplicate window has passed, and no longer (TrimTenants): no age limit,
// which would drop what a shared stream had not copied during a long stop or
// a lost quorum though the tenant stream acknowledged it, and a byte bound,
// Config.TenantStreamMaxBytes, past which a publish is refused (DiscardNew)
// rather than an older message dropped.
//
// Why not a work-queue or interest stream, which would remove a message
// once taken: a source is an internal consumer with AckPolicy none
// (nats-server v2.15.2, stream.go in its server package, trySetupSourceConsumer), and on a
// stream of either retention an ack-none consumer removes a message when it
// delivers it (consumer.go in its server package, deliverMsg: "If we are ack none and mset
// is interest only ..."), before the shared stream stored it; a failed
// store (no quorum, a full stream) retries from that origin sequence
// (processInboundSourceMsg, retrySourceConsumerAtSeq), which would be gone.

// TenantStreamPrefix names a tenant's ingress stream: TS_ING_<tenant>.
const TenantStreamPrefix = "TS_ING_"

// ErrNoTenantStream is returned by EnsureTenant for a tenant that has no
// stream of its own (the system tenant, an invalid name).
var ErrNoTenantStream = errors.New("bus: no ingress stream for this tenant")

// TenantStream is tenant's ingress stream name.
func TenantStream(tenant string) string { return TenantStreamPrefix + tenant }

// tenantKinds are the kinds of subject a tenant's stream captures, each
// with the shared stream that sources it.
var tenantKinds = []struct{ kind, shared string }{{"in", events.StreamIn}, {"model", events.StreamModel}}

// sharedSubjects are the subjects stream name holds itself: all of its
// family's in the layout without tenant streams; with them, none a tenant
// writes.
func (b *Bus) sharedSubjects(name string) []string {
	if !b.tenantLayout {
		return events.StreamSubjects[name]
	}
	var out []string
	for _, s := range events.StreamSubjects[name] {
		switch s {
		case events.AllIn:
			out = append(out, events.SubjectPrefix+".in."+events.SystemTenant+".>") // the clock's ticks
		case events.AllModel:
		default:
			out = append(out, s)
		}
	}
	return out
}

// sharedDuplicates is the duplicate window of stream cur: the configured
// one, except on a shared stream that sources tenant streams, which keeps
// none (finding D, docs/security.md). The server applies a stream's window
// to what it sources as to what is published to it (nats-server v2.15.2,
// stream.go in its server package: processInboundSourceMsg stores through
// processJetStreamMsg, whose check of Nats-Msg-Id against the stream's
// ddmap does not tell a sourced message from another; the source header
// does not rewrite the id), and one window spans every tenant: a
// producer's own Nats-Msg-Id would make another tenant's sourced event a
// duplicate, dropped though its tenant stream acknowledged it. Each
// tenant's stream deduplicates its own retries; a source copies each origin
// message once by sequence (processInboundSourceMsg ignores an origin
// sequence at or below the last it stored, and a new leader resumes from
// the Nats-Stream-Source headers it stored, startingSequenceForSources),
// so the shared stream needs no window for what it sources. A window of 0
// turns deduplication off (storeMsgIdLocked: "Zero means disabled"), which
// the server keeps only on a stream with sources (checkStreamCfg gives a
// stream without sources or mirror the default window). What the shared
// streams take directly loses it too, and each is safe without: the
// registry publishes with an expected last sequence on its subject
// (registry.Publish), ingest applies a sealed raw copy once by the raw
// event's sequence (assembler.Ingest.unseal), a tick or a tombstone
// applied twice changes nothing (on a cluster each serve's clock's tick is
// stored, no longer one a tick).
func (b *Bus) sharedDuplicates(cur jetstream.StreamConfig, tenantLayout bool) time.Duration {
	if tenantLayout && len(cur.Sources) > 0 && slices.ContainsFunc(tenantKinds, func(k struct{ kind, shared string }) bool { return k.shared == cur.Name }) {
		return 0
	}
	return b.cfg.DuplicateWindow
}

// TenantStreams reports whether the log takes tenants' ingress by
// per-tenant streams, as Open found or made it. The layout sticks: a
// process opening such a log without Config.TenantStreams keeps it (the
// shared subjects would overlap the tenant streams').
func (b *Bus) TenantStreams() bool { return b.tenantLayout }

// DeletesTenantCopies reports whether this bus deletes a message's copy in
// a tenant's ingress stream itself (logread.DeleteClear): the embedded
// server's admin, serve on one machine. No other role may: NATS
// permissions match whole tokens, so no grant names every TS_ING_<t> but
// one naming every stream of the account, and a grant per tenant would
// have the assembler's and operator's creds issued again for each new
// tenant. Their deletes would be refused, and, a refused publish being
// reported to the connection's error handler only (nats.go v1.55.0,
// processTransientError), each would wait out its request's timeout. The
// copies they leave are the admin's: Bus.TrimTenants purges them a
// duplicate window after the shared stream copied them.
func (b *Bus) DeletesTenantCopies() bool {
	return b.server != nil && (b.cfg.Identity.Role == "" || b.cfg.Identity.Role == auth.RoleAdmin)
}

// hasTenantLayout reports whether the server's TS_MODEL exists without
// ts.model.> among its subjects.
func (b *Bus) hasTenantLayout(ctx context.Context) bool {
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	s, err := b.JS.Stream(actx, events.StreamModel)
	return err == nil && !slices.Contains(s.CachedInfo().Config.Subjects, events.AllModel)
}

// newLog reports whether the server holds no TS_MODEL: the log is made
// by this Open (Config.NewLogTenantStreams).
func (b *Bus) newLog(ctx context.Context) bool {
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	_, err := b.JS.Stream(actx, events.StreamModel)
	return errors.Is(err, jetstream.ErrStreamNotFound)
}

// StoredTenants are the tenants whose subjects TS_IN or TS_MODEL hold
// (the third token of ts.in.<t>.…, of ingest's sealed copies ts.raw.<t>.…
// and of ts.model.<t>.…; the system tenant left out), in name order: the tenants whose streams a log moved to the
// per-tenant layout needs (toolstream setup --tenant-streams). It lists
// each stored subject once, a request paged by the server: on a large
// log it is read once, at the move.
func (b *Bus) StoredTenants(ctx context.Context) ([]string, error) {
	return TenantsOf(ctx, b.JS, "in", "raw", "model")
}

// TenantsOf are the tenants whose subjects of the kinds (ts.<kind>.<t>.…,
// each in the stream of the log that holds its kind) the server behind js
// holds, the system tenant left out, in name order. It needs the
// streams' info (every role but a producer may ask it).
func TenantsOf(ctx context.Context, js jetstream.JetStream, kinds ...string) ([]string, error) {
	seen := map[string]bool{}
	for _, kind := range kinds {
		filter := events.SubjectPrefix + "." + kind + ".*.>"
		name, err := events.StreamOf(filter)
		if err != nil {
			return nil, fmt.Errorf("bus: tenants of kind %s: %w", kind, err)
		}
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("bus: stream %s: %w", name, err)
		}
		info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
		if err != nil {
			return nil, fmt.Errorf("bus: subjects of %s: %w", name, err)
		}
		for subj := range info.State.Subjects {
			if t, err := events.SubjectTenant(subj); err == nil && t != events.SystemTenant {
				seen[t] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// EnsureTenant makes tenant's ingress stream exist with the fields the bus
// manages and makes TS_IN and TS_MODEL source it (each filtered to its
// kind), reading each shared stream's config just before rewriting it. It
// is idempotent, needs the admin identity, and does nothing in the layout
// without tenant streams. On a bus opened with Config.ConnectOnly it reads
// the layout and replicas from the server. A stream update is not
// compare-and-set: calls are serialised within the process; across
// processes (setup under its lock, serve, a command issuing a credential
// to a running serve) a source dropped by a concurrent update is added back
// by TrimTenants, and the tenant stream keeps meanwhile what was not
// copied. It returns ErrNoTenantStream for the system tenant or an invalid
// name.
func (b *Bus) EnsureTenant(ctx context.Context, tenant string) error {
	if tenant == events.SystemTenant || events.ValidTenant(tenant) != nil {
		return fmt.Errorf("%w: %q", ErrNoTenantStream, tenant)
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.SetupMax)
	defer cancel()
	layout, replicas := b.tenantLayout, b.Replicas()
	if _, opened := b.streams[events.StreamModel]; !opened {
		// Opened with Config.ConnectOnly (a command acting as the admin
		// on a running serve): the layout and replicas are the server's.
		s, err := b.JS.Stream(ctx, events.StreamModel)
		if err != nil {
			return fmt.Errorf("bus: stream %s: %w", events.StreamModel, err)
		}
		cfg := s.CachedInfo().Config
		layout, replicas = !slices.Contains(cfg.Subjects, events.AllModel), max(1, cfg.Replicas)
	}
	if !layout {
		return nil
	}
	b.tenantMu.Lock()
	defer b.tenantMu.Unlock()
	if err := b.ensureTenantStream(ctx, tenant, replicas); err != nil {
		return err
	}
	for _, k := range tenantKinds {
		if err := b.ensureSource(ctx, k.shared, tenant, k.kind); err != nil {
			return err
		}
	}
	return nil
}

func (b *Bus) tenantConfig(cur jetstream.StreamConfig, tenant string, replicas int) (jetstream.StreamConfig, bool) {
	next := cur
	next.Subjects = nil
	for _, k := range tenantKinds {
		f, _ := events.TenantFilter(k.kind, tenant)
		next.Subjects = append(next.Subjects, f)
	}
	next.Duplicates = b.cfg.DuplicateWindow
	next.MaxAge = 0 // kept until copied: TrimTenants
	next.MaxBytes = b.cfg.TenantStreamMaxBytes
	next.Discard = jetstream.DiscardNew
	next.MaxMsgSize = b.cfg.MaxPayload
	next.AllowAtomicPublish = true // client.Writer and the ingest relay batch on a cluster
	next.Replicas = replicas
	changed := !slices.Equal(cur.Subjects, next.Subjects) || cur.Duplicates != next.Duplicates || cur.MaxAge != next.MaxAge ||
		cur.MaxBytes != next.MaxBytes || cur.Discard != next.Discard ||
		cur.MaxMsgSize != next.MaxMsgSize || !cur.AllowAtomicPublish || cur.Replicas != next.Replicas
	return next, changed
}

func (b *Bus) ensureTenantStream(ctx context.Context, tenant string, replicas int) error {
	name := TenantStream(tenant)
	s, err := b.JS.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		sc, _ := b.tenantConfig(jetstream.StreamConfig{
			Name:        name,
			Description: "Toolstream ingress of tenant " + tenant + " (sourced by " + events.StreamIn + " and " + events.StreamModel + "; never replayed)",
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
		}, tenant, replicas)
		if _, err := b.JS.CreateStream(ctx, sc); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return fmt.Errorf("bus: create stream %s: %w", name, err)
		}
		b.cfg.Logger.Info("tenant stream created", "tenant", tenant, "stream", name, "replicas", sc.Replicas)
		return nil
	}
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", name, err)
	}
	if next, changed := b.tenantConfig(s.CachedInfo().Config, tenant, replicas); changed {
		if _, err := b.JS.UpdateStream(ctx, next); err != nil {
			return fmt.Errorf("bus: update stream %s: %w", name, err)
		}
	}
	return nil
}

// tenantSource is the source entry of tenant's stream on the shared stream
// of kind.
func tenantSource(tenant, kind string) *jetstream.StreamSource {
	f, _ := events.TenantFilter(kind, tenant)
	return &jetstream.StreamSource{Name: TenantStream(tenant), FilterSubject: f}
}

func (b *Bus) ensureSource(ctx context.Context, shared, tenant, kind string) error {
	s, err := b.JS.Stream(ctx, shared) // the config as the server has it now, not as Open read it
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", shared, err)
	}
	cfg := s.CachedInfo().Config
	want := tenantSource(tenant, kind)
	if slices.ContainsFunc(cfg.Sources, func(src *jetstream.StreamSource) bool {
		return src != nil && src.Name == want.Name && src.FilterSubject == want.FilterSubject
	}) {
		return nil
	}
	cfg.Sources = append(cfg.Sources, want)
	cfg.Duplicates = b.sharedDuplicates(cfg, true)
	if _, err := b.JS.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("bus: add source %s to %s: %w", want.Name, shared, err)
	}
	b.cfg.Logger.Info("tenant stream sourced", "tenant", tenant, "stream", shared, "filter", want.FilterSubject)
	return nil
}

// Tenants lists the tenants whose streams the shared streams source, in
// the order they were added.
func (b *Bus) Tenants(ctx context.Context) ([]string, error) {
	s, err := b.JS.Stream(ctx, events.StreamModel)
	if err != nil {
		return nil, fmt.Errorf("bus: stream %s: %w", events.StreamModel, err)
	}
	var out []string
	for _, src := range s.CachedInfo().Config.Sources {
		if src != nil && strings.HasPrefix(src.Name, TenantStreamPrefix) {
			out = append(out, strings.TrimPrefix(src.Name, TenantStreamPrefix))
		}
	}
	return out, nil
}

// tenantTrim is what TrimTenants saw: at each call, the last origin
// sequence each shared stream had copied of each tenant's kind.
type tenantTrim struct {
	mu     sync.Mutex
	marks  []trimMark
	purged map[string]uint64 // by tenant and kind: every origin sequence below it is purged
}

type trimMark struct {
	at     time.Time
	copied map[string]uint64 // by tenant and kind
}

// TrimTenants adds back any source of a tenant stream that a concurrent
// update dropped (repairSources) and removes from each tenant's ingress
// stream what both shared
// streams have copied and what is older than the duplicate window (so the
// tenant stream still deduplicates a producer's retry): for each kind, the
// messages up to the last origin sequence its shared stream held on the
// tenant's subjects at a call at least the window ago. It reads the origin
// sequence from the Nats-Stream-Source header of the shared stream's last
// message on those subjects, as the server does to resume a source
// (nats-server v2.15.2, stream.go in its server package, startingSequenceForSources); a
// source copies in origin order, so everything at or below it is copied.
// A message deleted from the shared stream (ingest's delete of a clear raw
// event) makes the bound older, never newer: nothing is purged that was
// not copied. Call it every so often (RunTenantTrim); it needs the admin
// identity (or a purge grant on the tenant streams). It returns how many
// messages it purged.
func (b *Bus) TrimTenants(ctx context.Context) (uint64, error) {
	if !b.TenantStreams() {
		return 0, nil
	}
	tenants, err := b.repairSources(ctx)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	mark := trimMark{at: now, copied: map[string]uint64{}}
	for _, t := range tenants {
		for _, k := range tenantKinds {
			f, _ := events.TenantFilter(k.kind, t)
			shared := b.Stream(k.shared)
			if shared == nil {
				return 0, fmt.Errorf("bus: stream %s: not reachable", k.shared)
			}
			m, err := shared.GetLastMsgForSubject(ctx, f)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("bus: last of %s on %s: %w", f, k.shared, err)
			}
			if origin, seq, ok := logread.Origin(m.Header); ok && origin == TenantStream(t) {
				mark.copied[t+" "+k.kind] = seq
			}
		}
	}
	tr := &b.trim
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.marks = append(tr.marks, mark)
	due := -1 // the newest mark at least the window old
	for i, m := range tr.marks {
		if now.Sub(m.at) >= b.cfg.DuplicateWindow {
			due = i
		}
	}
	if due < 0 {
		return 0, nil
	}
	if tr.purged == nil {
		tr.purged = map[string]uint64{}
	}
	var total uint64
	for key, seq := range tr.marks[due].copied {
		if tr.purged[key] > seq {
			continue
		}
		tenant, kind, _ := strings.Cut(key, " ")
		s, err := b.JS.Stream(ctx, TenantStream(tenant))
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return total, fmt.Errorf("bus: stream %s: %w", TenantStream(tenant), err)
		}
		f, _ := events.TenantFilter(kind, tenant)
		before, err := s.Info(ctx)
		if err != nil {
			return total, fmt.Errorf("bus: stream %s: %w", TenantStream(tenant), err)
		}
		// A purge by subject and sequence removes that subject's messages
		// below the sequence (nats-server's file store, PurgeEx).
		if err := s.Purge(ctx, jetstream.WithPurgeSubject(f), jetstream.WithPurgeSequence(seq+1)); err != nil {
			return total, fmt.Errorf("bus: trim %s on %s: %w", f, TenantStream(tenant), err)
		}
		if after, err := s.Info(ctx); err == nil && before.State.Msgs >= after.State.Msgs {
			total += before.State.Msgs - after.State.Msgs
		}
		tr.purged[key] = seq + 1
	}
	tr.marks = tr.marks[due+1:]
	return total, nil
}

// repairSources lists the tenant streams and ensures each is sourced by
// both shared streams. A stream update is not compare-and-set: two
// processes adding a source at once (serve for a gateway key's tenant, a
// command issuing a producer credential) may each write a config without
// the other's source; the tenant stream keeps what is not copied, and the
// next call here adds the source back, which resumes from the last origin
// sequence copied.
func (b *Bus) repairSources(ctx context.Context) ([]string, error) {
	var tenants []string
	names := b.JS.StreamNames(ctx)
	for name := range names.Name() {
		if t, ok := strings.CutPrefix(name, TenantStreamPrefix); ok {
			tenants = append(tenants, t)
		}
	}
	if err := names.Err(); err != nil {
		return nil, fmt.Errorf("bus: list streams: %w", err)
	}
	sourced := map[string]int{}
	for _, k := range tenantKinds {
		s, err := b.JS.Stream(ctx, k.shared)
		if err != nil {
			return nil, fmt.Errorf("bus: stream %s: %w", k.shared, err)
		}
		for _, src := range s.CachedInfo().Config.Sources {
			if src != nil {
				sourced[src.Name]++
			}
		}
	}
	for _, t := range tenants {
		if sourced[TenantStream(t)] < len(tenantKinds) {
			b.cfg.Logger.Warn("tenant stream not sourced; adding its sources", "tenant", t)
			if err := b.EnsureTenant(ctx, t); err != nil {
				return nil, err
			}
		}
	}
	return tenants, nil
}

// RunTenantTrim calls TrimTenants every interval (a tenth of the duplicate
// window when 0) until ctx ends, logging what fails.
func (b *Bus) RunTenantTrim(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = b.cfg.DuplicateWindow / 10
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := b.TrimTenants(ctx)
			if err != nil && ctx.Err() == nil {
				b.cfg.Logger.Warn("tenant streams not trimmed", "err", err)
			} else if n > 0 {
				b.cfg.Logger.Debug("tenant streams trimmed", "messages", n)
			}
		}
	}
}

// SourceState is one source of a shared stream (TS_IN, TS_MODEL sourcing
// a tenant's TS_ING_<t>) as the server reports it: how many of the
// origin's messages it has not copied yet (Lag), how long since it last
// heard from the origin (Active), and the error it retries after, if any.
// The server retries a failing source with a backoff of up to two
// minutes, silently: this is what shows it.
type SourceState struct {
	Stream, Source string
	Lag            uint64
	Active         time.Duration
	Err            string
}

// SourceStates reads every source of the shared streams. A log without
// tenant streams has none.
func (b *Bus) SourceStates(ctx context.Context) ([]SourceState, error) {
	var out []SourceState
	for _, k := range tenantKinds {
		s, err := b.JS.Stream(ctx, k.shared)
		if err != nil {
			return nil, fmt.Errorf("bus: stream %s: %w", k.shared, err)
		}
		for _, src := range s.CachedInfo().Sources {
			if src == nil {
				continue
			}
			st := SourceState{Stream: k.shared, Source: src.Name, Lag: src.Lag, Active: src.Active}
			if src.Error != nil {
				st.Err = src.Error.Error()
			}
			out = append(out, st)
		}
	}
	return out, nil
}
