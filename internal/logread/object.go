package logread

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrBadObject is an object whose stored chunks do not make what its
// metadata says (size, chunk count or SHA-256 digest), or a link, which
// Object does not follow.
var ErrBadObject = errors.New("logread: object does not match its metadata")

// errEnough ends a chunk read once every chunk is in.
var errEnough = errors.New("logread: every chunk read")

// Object returns the content of object name in the object store bucket,
// read by direct gets alone: its metadata by one get of the last message
// on its metadata subject, its chunks by batched gets of their subject
// (next_by_subj). nats.go's ObjectStore.Get reads the chunks through an
// ephemeral push consumer instead, and a role that may create consumers on
// a bucket may name any deliver subject for one (the server checks it
// against none of its creator's permissions): with Object, reading a
// bucket needs only $JS.API.DIRECT.GET.OBJ_<bucket>. ErrNoMessage when no
// object is kept under name (none written, or deleted).
func Object(ctx context.Context, cfg Config, bucket, name string) ([]byte, error) {
	if bucket == "" || name == "" {
		return nil, fmt.Errorf("%w: a bucket and an object name are needed", ErrInvalidConfig)
	}
	cfg.Stream = "OBJ_" + bucket
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	meta, err := Last(ctx, cfg.Conn, cfg.Stream, "$O."+bucket+".M."+base64.URLEncoding.EncodeToString([]byte(name)))
	if err != nil {
		return nil, fmt.Errorf("object %s/%s: %w", bucket, name, err)
	}
	var info jetstream.ObjectInfo
	if err := json.Unmarshal(meta.Data, &info); err != nil {
		return nil, fmt.Errorf("%w: object %s/%s: metadata: %w", ErrBadObject, bucket, name, err)
	}
	switch {
	case info.Deleted:
		return nil, fmt.Errorf("object %s/%s: deleted: %w", bucket, name, ErrNoMessage)
	case info.Opts != nil && info.Opts.Link != nil:
		return nil, fmt.Errorf("%w: object %s/%s is a link", ErrBadObject, bucket, name)
	case info.Size == 0:
		return []byte{}, nil
	case info.NUID == "":
		return nil, fmt.Errorf("%w: object %s/%s has no chunks' id", ErrBadObject, bucket, name)
	}
	var out bytes.Buffer
	out.Grow(int(min(info.Size, 1<<30)))
	chunks := uint32(0)
	cfg.Filter, cfg.Subjects, cfg.From, cfg.UpTo, cfg.Follow = "$O."+bucket+".C."+info.NUID, nil, 1, 0, false
	err = Read(ctx, cfg, func(batch []*Msg) error {
		for _, m := range batch {
			if chunks == info.Chunks || uint64(out.Len())+uint64(len(m.Data)) > info.Size {
				return fmt.Errorf("%w: object %s/%s: more than its %d chunks, %d bytes", ErrBadObject, bucket, name, info.Chunks, info.Size)
			}
			out.Write(m.Data)
			chunks++
		}
		if chunks == info.Chunks {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, fmt.Errorf("object %s/%s: %w", bucket, name, err)
	}
	if chunks != info.Chunks || uint64(out.Len()) != info.Size {
		return nil, fmt.Errorf("%w: object %s/%s: %d chunks, %d bytes; its metadata says %d, %d", ErrBadObject, bucket, name, chunks, out.Len(), info.Chunks, info.Size)
	}
	sum := sha256.Sum256(out.Bytes())
	if want := "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:]); info.Digest != want {
		return nil, fmt.Errorf("%w: object %s/%s: digest %s, its metadata says %s", ErrBadObject, bucket, name, want, info.Digest)
	}
	return out.Bytes(), nil
}
