package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// JetStream API error codes ensureStream branches on (the error codes
// nats-server generates for its JetStream API).
const (
	codeClusterNotAvail        = 10008 // no meta leader yet
	codeInsufficientResources  = 10023 // fewer servers than replicas
	codeNoPeers                = 10005 // no suitable peers for placement
	codeReplicasNotSupported   = 10074 // R>1 on a server without clustering
	clusterReplicas            = 3
	setupAttemptTimeout        = 5 * time.Second
	setupBackoffMax            = time.Second
	setupBackoffMin            = 50 * time.Millisecond
	errNotEnoughServersMessage = "the cluster has fewer than 3 JetStream servers available for a 3-replica stream: start them, or set --replicas"
)

// ensureStreams makes every stream of the log exist (events.Streams) with
// the fields the bus manages (subjects, duplicate window, message size,
// direct gets, atomic batches, replicas when set; the model partitions on
// TS_MODEL when set; the raw retention on TS_IN) and leaves every other
// field of an existing stream as an operator set it. It reads each stream
// first and writes only when a managed field differs, so processes whose
// NATS user may read the streams but not change them open the bus too.
//
// Replicas of a new stream, when Config.Replicas is 0, are asked of the
// servers rather than guessed from the client's URL list: an embedded
// server or a server whose INFO names no cluster gets 1; a clustered server
// gets 3, and JetStream's own placement decides whether there are 3 peers
// for it. While the cluster forms (no meta leader, too few peers yet) Open
// retries for Config.SetupMax, then fails with a message saying what to do:
// a stream is never created with fewer replicas than the cluster can give
// just because a server was down at that moment.
func (b *Bus) ensureStreams(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.SetupMax)
	defer cancel()
	if err := b.refuseOldLayout(ctx); err != nil {
		return err
	}
	b.tenantLayout = b.cfg.TenantStreams || b.hasTenantLayout(ctx) || (b.cfg.NewLogTenantStreams && b.newLog(ctx))
	for _, name := range events.Streams {
		if err := b.ensureStream(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (b *Bus) ensureStream(ctx context.Context, name string) error {
	backoff := setupBackoffMin
	for {
		err := b.ensureStreamOnce(ctx, name)
		if err == nil {
			err = b.waitLeader(ctx, name)
		}
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return err
		}
		b.cfg.Logger.Info("log stream not ready; retrying", "stream", name, "err", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			if apiCode(err) == codeInsufficientResources || apiCode(err) == codeNoPeers {
				return fmt.Errorf("bus: ensure stream %s: %s: %w", name, errNotEnoughServersMessage, err)
			}
			return fmt.Errorf("bus: ensure stream %s: not ready in %s: %w", name, b.cfg.SetupMax, err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, setupBackoffMax)
	}
}

// oldLogStream is the one stream of the layout before the log was split
// by family (its subjects, ts.>, overlap every new stream's).
const oldLogStream = "TOOLSTREAM"

// refuseOldLayout returns ErrOldLayout when the server holds a log of the
// earlier layout: one stream over ts.>.
func (b *Bus) refuseOldLayout(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	names := b.JS.StreamNames(actx)
	for name := range names.Name() {
		if name == oldLogStream {
			return fmt.Errorf("%w: stream %s holds a log of the single-stream layout; this version reads one stream per family of subjects (%v): copy the log with toolstream migrate",
				ErrOldLayout, oldLogStream, events.Streams)
		}
	}
	return nil // an error listing is found again by ensureStream
}

func (b *Bus) ensureStreamOnce(ctx context.Context, name string) error {
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	s, err := b.JS.Stream(actx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return b.createStream(actx, name)
	}
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", name, err)
	}
	cur := s.CachedInfo().Config
	next, changed := b.managed(cur)
	if changed {
		if s, err = b.JS.UpdateStream(actx, next); err != nil {
			return fmt.Errorf("bus: update stream %s: %w", name, err)
		}
		b.cfg.Logger.Info("log stream updated", "stream", name, "replicas", next.Replicas, "partitions", partitionsOf(next.SubjectTransform))
	}
	b.streams[name] = s
	return nil
}

// managed returns cur with the bus's managed fields applied, and whether
// anything changed.
func (b *Bus) managed(cur jetstream.StreamConfig) (jetstream.StreamConfig, bool) {
	next := cur
	next.Subjects = b.sharedSubjects(cur.Name)
	next.Duplicates = b.sharedDuplicates(cur, b.tenantLayout)
	next.MaxMsgSize = b.cfg.MaxPayload
	next.AllowAtomicPublish = true // the relays keep their order with atomic batches
	next.AllowDirect = true        // readers read by direct gets (package logread), with no consumer
	if b.cfg.Replicas > 0 {
		next.Replicas = b.cfg.Replicas
	}
	if cur.Name == events.StreamModel && b.cfg.Partitions > 0 {
		next.SubjectTransform = partitionTransform(b.cfg.Partitions)
	}
	if cur.Name == events.StreamIn {
		// Raw provider events hold personal data in plaintext: they are kept
		// for RawRetention after they arrive, long enough for ingest to read
		// them (docs/design.md, "Erasure").
		next.MaxAge = b.cfg.RawRetention
	}
	changed := !slices.Equal(cur.Subjects, next.Subjects) || cur.Duplicates != next.Duplicates ||
		cur.MaxMsgSize != next.MaxMsgSize || cur.Replicas != next.Replicas || !cur.AllowAtomicPublish || !cur.AllowDirect ||
		!sameTransform(cur.SubjectTransform, next.SubjectTransform) || cur.MaxAge != next.MaxAge
	return next, changed
}

func (b *Bus) createStream(ctx context.Context, name string) error {
	sc := jetstream.StreamConfig{
		Name:        name,
		Description: "Toolstream event log: " + strings.Join(b.sharedSubjects(name), " "),
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
	}
	sc, _ = b.managed(sc)
	if sc.Replicas == 0 {
		sc.Replicas = 1
		if b.server == nil && b.Conn.ConnectedClusterName() != "" {
			sc.Replicas = clusterReplicas
		}
	}
	s, err := b.JS.CreateStream(ctx, sc)
	if apiCode(err) == codeReplicasNotSupported && b.cfg.Replicas == 0 {
		// The server is not clustered after all (its INFO named a cluster
		// without JetStream clustering): one replica is all there is.
		sc.Replicas = 1
		s, err = b.JS.CreateStream(ctx, sc)
	}
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return fmt.Errorf("bus: create stream %s: %w", name, errRaced) // another process created it: read it again
	}
	if err != nil {
		return fmt.Errorf("bus: create stream %s (%d replicas): %w", name, sc.Replicas, err)
	}
	b.cfg.Logger.Info("log stream created", "stream", name, "replicas", sc.Replicas, "partitions", partitionsOf(sc.SubjectTransform))
	b.streams[name] = s
	return nil
}

var (
	errRaced    = errors.New("created concurrently")
	errNoLeader = errors.New("the stream has no leader yet")
)

// waitLeader returns once a replicated stream has a leader: the stream
// exists as soon as the meta leader says so, but it takes writes only once
// its own leader is elected, and a publish before that finds no responder
// (which JetStream clients retry later, out of order with what follows).
func (b *Bus) waitLeader(ctx context.Context, name string) error {
	info := b.streams[name].CachedInfo()
	if info.Config.Replicas <= 1 || (info.Cluster != nil && info.Cluster.Leader != "") {
		return nil
	}
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	fresh, err := b.streams[name].Info(actx)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return errNoLeader // just created: the server asked has not heard of it yet
	}
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", name, err)
	}
	if fresh.Cluster == nil || fresh.Cluster.Leader == "" {
		return errNoLeader
	}
	return nil
}

// retryable reports whether ensureStream should try again: the cluster is
// forming or failing over, not misconfigured. NB: JetStream code 10049
// (JSStreamCreateErrF, HTTP 500) is not retried: it wraps a stream creation
// that failed for a reason of its own (a store that cannot be created, a
// filter the server refuses), which asking again does not mend; a cluster
// still forming answers 10008, 10023 or 10005 instead.
func retryable(err error) bool {
	if errors.Is(err, errRaced) || errors.Is(err, errNoLeader) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrConnectionReconnecting) {
		return true
	}
	switch apiCode(err) {
	case codeClusterNotAvail, codeInsufficientResources, codeNoPeers:
		return true
	}
	return false
}

func apiCode(err error) jetstream.ErrorCode {
	var ae *jetstream.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode
	}
	return 0
}

// Replicas is the number of replicas of the log's streams (those of
// TS_MODEL): executors give their key-value bucket and object store the
// same.
func (b *Bus) Replicas() int {
	s, ok := b.streams[events.StreamModel]
	if !ok {
		return 1
	}
	return max(1, s.CachedInfo().Config.Replicas)
}
