package executor

import (
	"context"
	"errors"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"
)

// openBucket looks the record bucket up and creates it when it does not
// exist; when it exists with other settings than cfg's (TTL, history,
// replicas), it is updated, as CreateOrUpdateKeyValue would. Each try
// (lookup, then creation or update) has its own short timeout: of several
// executors creating the bucket at the same moment, the server may leave
// one creation unanswered, and the next try's lookup finds the bucket the
// other created. Tries go on until ctx ends.
func openBucket(ctx context.Context, log *slog.Logger, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	var kv jetstream.KeyValue
	err := retry(ctx, defaultRetry(), func(ctx context.Context) error {
		var err error
		kv, err = js.KeyValue(ctx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			kv, err = js.CreateKeyValue(ctx, cfg)
			if errors.Is(err, jetstream.ErrBucketExists) {
				return errRaced // created meanwhile: look it up again
			}
			if err == nil {
				log.Info("record bucket created", "bucket", cfg.Bucket, "replicas", cfg.Replicas)
			}
			return err
		}
		if err != nil {
			return err
		}
		st, err := kv.Status(ctx)
		if err != nil {
			return err
		}
		if cur := st.Config(); cur.TTL != cfg.TTL || cur.History != cfg.History || cur.Replicas != cfg.Replicas {
			log.Info("record bucket updated", "bucket", cfg.Bucket, "ttl", cfg.TTL, "replicas", cfg.Replicas)
			kv, err = js.UpdateKeyValue(ctx, cfg)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return kv, nil
}

// openObjectStore is openBucket for the object store of raw results; an
// existing one is updated when its replicas differ from cfg's.
func openObjectStore(ctx context.Context, log *slog.Logger, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	var obs jetstream.ObjectStore
	err := retry(ctx, defaultRetry(), func(ctx context.Context) error {
		var err error
		obs, err = js.ObjectStore(ctx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			obs, err = js.CreateObjectStore(ctx, cfg)
			if errors.Is(err, jetstream.ErrBucketExists) {
				return errRaced
			}
			if err == nil {
				log.Info("object store created", "bucket", cfg.Bucket, "replicas", cfg.Replicas)
			}
			return err
		}
		if err != nil {
			return err
		}
		st, err := obs.Status(ctx)
		if err != nil {
			return err
		}
		if st.Replicas() != cfg.Replicas {
			log.Info("object store updated", "bucket", cfg.Bucket, "replicas", cfg.Replicas)
			obs, err = js.UpdateObjectStore(ctx, cfg)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return obs, nil
}
