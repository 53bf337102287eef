package executor

import (
	"context"
	"errors"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"
)

// openBucket looks the record bucket up and creates it when it does not
// exist; when it exists with other settings than cfg's (TTL, history,
// replicas), it is updated, as CreateOrUpdateKeyValue would.
func openBucket(ctx context.Context, log *slog.Logger, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return openStore(ctx, log, "record bucket", cfg.Bucket, cfg.Replicas, storeOps[jetstream.KeyValue]{
		lookup: func(ctx context.Context) (jetstream.KeyValue, error) { return js.KeyValue(ctx, cfg.Bucket) },
		create: func(ctx context.Context) (jetstream.KeyValue, error) { return js.CreateKeyValue(ctx, cfg) },
		update: func(ctx context.Context) (jetstream.KeyValue, error) { return js.UpdateKeyValue(ctx, cfg) },
		differs: func(ctx context.Context, kv jetstream.KeyValue) (bool, error) {
			st, err := kv.Status(ctx)
			if err != nil {
				return false, err
			}
			cur := st.Config()
			return cur.TTL != cfg.TTL || cur.History != cfg.History || cur.Replicas != cfg.Replicas, nil
		},
	})
}

// openObjectStore is openBucket for the object store of raw results; an
// existing one is updated when its replicas differ from cfg's.
func openObjectStore(ctx context.Context, log *slog.Logger, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	return openStore(ctx, log, "object store", cfg.Bucket, cfg.Replicas, storeOps[jetstream.ObjectStore]{
		lookup: func(ctx context.Context) (jetstream.ObjectStore, error) { return js.ObjectStore(ctx, cfg.Bucket) },
		create: func(ctx context.Context) (jetstream.ObjectStore, error) { return js.CreateObjectStore(ctx, cfg) },
		update: func(ctx context.Context) (jetstream.ObjectStore, error) { return js.UpdateObjectStore(ctx, cfg) },
		differs: func(ctx context.Context, obs jetstream.ObjectStore) (bool, error) {
			st, err := obs.Status(ctx)
			if err != nil {
				return false, err
			}
			return st.Replicas() != cfg.Replicas, nil
		},
	})
}

// storeOps are the JetStream calls that open one kind of bucket.
type storeOps[T any] struct {
	lookup, create, update func(context.Context) (T, error)
	differs                func(context.Context, T) (bool, error)
}

// openStore looks a bucket up, creates it when it does not exist, and
// updates it when its settings differ. Each try (lookup, then creation or
// update) has its own short timeout: of several executors creating the
// bucket at the same moment, the server may leave one creation unanswered,
// and the next try's lookup finds the bucket the other created. Tries go on
// until ctx ends.
func openStore[T any](ctx context.Context, log *slog.Logger, what, bucket string, replicas int, ops storeOps[T]) (T, error) {
	var store T
	err := retry(ctx, defaultRetry(), func(ctx context.Context) error {
		var err error
		store, err = ops.lookup(ctx)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			store, err = ops.create(ctx)
			if errors.Is(err, jetstream.ErrBucketExists) {
				return errRaced // created meanwhile: look it up again
			}
			if err == nil {
				log.Info(what+" created", "bucket", bucket, "replicas", replicas)
			}
			return err
		}
		if err != nil {
			return err
		}
		differs, err := ops.differs(ctx, store)
		if err != nil || !differs {
			return err
		}
		log.Info(what+" updated", "bucket", bucket, "replicas", replicas)
		store, err = ops.update(ctx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return store, nil
}
