package projector

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Replay rebuilds a projection from sequence 1 into the empty directory
// cfg.Dir, applying every message up to until (its live checkpoint), with
// the relay off, and returns the rebuilt view's digest. p must be a fresh
// instance of the projection.
func Replay(ctx context.Context, cfg Config, p Projection, until uint64) (Digest, error) {
	fs := cfg.FS
	if fs == nil {
		fs = vfs.Default
	}
	if entries, err := fs.List(cfg.Dir); err == nil && len(entries) > 0 {
		return Digest{}, fmt.Errorf("%w: replay directory %s is not empty", ErrInvalidConfig, cfg.Dir)
	}
	cfg.NoRelay = true
	cfg.DiscardEmits = true
	cfg.Ephemeral = true
	cfg.UntilSeq = until
	r, err := New(cfg, p)
	if err != nil {
		return Digest{}, err
	}
	defer r.Close()
	if until > 0 {
		if err := r.Run(ctx); err != nil {
			return Digest{}, err
		}
	}
	d, err := r.Digest()
	if err != nil {
		return Digest{}, err
	}
	if d.Seq > until {
		return Digest{}, fmt.Errorf("projector: replay overshot: %d > %d", d.Seq, until)
	}
	d.Seq = until
	return d, nil
}
