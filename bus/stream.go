package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// JetStream API error codes ensureStream branches on (nats-server's
// jetstream_errors_generated.go).
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

// ensureStream makes the log's stream exist with the fields the bus
// manages (subjects, duplicate window, message size, replicas when set,
// the partition mapping when set) and leaves every other field of an
// existing stream as an operator set it. It reads the stream first and
// writes only when a managed field differs, so processes whose NATS user
// may read the stream but not change it (executors, readers) open the bus
// too.
//
// Replicas of a new stream, when Config.Replicas is 0, are asked of the
// servers rather than guessed from the client's URL list: an embedded
// server or a server whose INFO names no cluster gets 1; a clustered server
// gets 3, and JetStream's own placement decides whether there are 3 peers
// for it. While the cluster forms (no meta leader, too few peers yet) Open
// retries for Config.SetupMax, then fails with a message saying what to do:
// a stream is never created with fewer replicas than the cluster can give
// just because a server was down at that moment.
func (b *Bus) ensureStream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.SetupMax)
	defer cancel()
	backoff := setupBackoffMin
	for {
		err := b.ensureStreamOnce(ctx)
		if err == nil {
			err = b.waitLeader(ctx)
		}
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return err
		}
		b.cfg.Logger.Info("log stream not ready; retrying", "err", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			if apiCode(err) == codeInsufficientResources || apiCode(err) == codeNoPeers {
				return fmt.Errorf("bus: ensure stream %s: %s: %w", StreamName, errNotEnoughServersMessage, err)
			}
			return fmt.Errorf("bus: ensure stream %s: not ready in %s: %w", StreamName, b.cfg.SetupMax, err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, setupBackoffMax)
	}
}

func (b *Bus) ensureStreamOnce(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	s, err := b.JS.Stream(actx, StreamName)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return b.createStream(actx)
	}
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", StreamName, err)
	}
	cur := s.CachedInfo().Config
	next, changed := b.managed(cur)
	if changed {
		if s, err = b.JS.UpdateStream(actx, next); err != nil {
			return fmt.Errorf("bus: update stream %s: %w", StreamName, err)
		}
		b.cfg.Logger.Info("log stream updated", "replicas", next.Replicas, "partitions", partitionsOf(next.SubjectTransform))
	}
	b.Stream = s
	return nil
}

// managed returns cur with the bus's managed fields applied, and whether
// anything changed.
func (b *Bus) managed(cur jetstream.StreamConfig) (jetstream.StreamConfig, bool) {
	next := cur
	next.Subjects = []string{events.SubjectAll}
	next.Duplicates = b.cfg.DuplicateWindow
	next.MaxMsgSize = b.cfg.MaxPayload
	next.AllowAtomicPublish = true // the relays keep their order with atomic batches
	next.AllowDirect = true        // readers read by direct gets (package logread), with no consumer
	if b.cfg.Replicas > 0 {
		next.Replicas = b.cfg.Replicas
	}
	if b.cfg.Partitions > 0 {
		next.SubjectTransform = partitionTransform(b.cfg.Partitions)
	}
	changed := !slices.Equal(cur.Subjects, next.Subjects) || cur.Duplicates != next.Duplicates ||
		cur.MaxMsgSize != next.MaxMsgSize || cur.Replicas != next.Replicas || !cur.AllowAtomicPublish || !cur.AllowDirect ||
		!sameTransform(cur.SubjectTransform, next.SubjectTransform)
	return next, changed
}

func (b *Bus) createStream(ctx context.Context) error {
	sc := jetstream.StreamConfig{
		Name:        StreamName,
		Description: "Toolstream event log",
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
		return fmt.Errorf("bus: create stream %s: %w", StreamName, errRaced) // another process created it: read it again
	}
	if err != nil {
		return fmt.Errorf("bus: create stream %s (%d replicas): %w", StreamName, sc.Replicas, err)
	}
	b.cfg.Logger.Info("log stream created", "replicas", sc.Replicas, "partitions", partitionsOf(sc.SubjectTransform))
	b.Stream = s
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
func (b *Bus) waitLeader(ctx context.Context) error {
	info := b.Stream.CachedInfo()
	if info.Config.Replicas <= 1 || (info.Cluster != nil && info.Cluster.Leader != "") {
		return nil
	}
	actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout)
	defer cancel()
	fresh, err := b.Stream.Info(actx)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return errNoLeader // just created: the server asked has not heard of it yet
	}
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", StreamName, err)
	}
	if fresh.Cluster == nil || fresh.Cluster.Leader == "" {
		return errNoLeader
	}
	return nil
}

// retryable reports whether ensureStream should try again: the cluster is
// forming or failing over, not misconfigured.
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

// Replicas is the number of replicas of the log's stream: executors give
// their key-value bucket and object store the same.
func (b *Bus) Replicas() int {
	if b.Stream == nil {
		return 1
	}
	return max(1, b.Stream.CachedInfo().Config.Replicas)
}
