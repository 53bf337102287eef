package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// WatcherConfig configures a Watcher.
type WatcherConfig struct {
	// Path is the tools file.
	Path string
	// Interval between polls; default 1s.
	Interval time.Duration
	// OnChange is called, from the goroutine that polls, with each new
	// registry after it has become Current. It is not called for the
	// registry NewWatcher loads.
	OnChange func(*Registry)
	// JS and Stream, when set, make Run record the registry in the log
	// (Record): at every poll the file is compared with the registry in
	// force in the log, and recorded again, signed by Key, whenever they
	// differ or anything was appended after it (a forged, replayed or
	// rejected change), retried at each poll until it succeeds.
	JS     jetstream.JetStream
	Stream string
	// Key signs what the Watcher records; required with JS.
	Key *SigningKey
	// Trust decides which changes of the log count (the registry in force
	// is the latest change that verifies under it); nil: Key's public key
	// alone.
	Trust *Trust
	// MsgIDKey tags the changes' message ids (PublishConfig.MsgIDKey).
	MsgIDKey []byte
	// Logger; nil discards.
	Logger *slog.Logger
}

// Watcher keeps the registry of a tools file current without a restart. It
// polls the file's modification time and size, and re-reads it when they
// change; a file whose content hash is unchanged is not re-parsed. A file
// that no longer parses is logged and the previous registry stays in effect
// (bad input loses nothing, docs/design.md invariant 9).
//
// Current is safe for concurrent use; Run and Poll must not run at once.
type Watcher struct {
	cfg     WatcherConfig
	log     *slog.Logger
	current atomic.Pointer[Registry]

	mu    sync.Mutex // guards the fields below, held by Poll
	mtime time.Time
	size  int64
	hash  [32]byte

	recMu    sync.Mutex // guards the fields below, held by Record
	ledger   *ledger    // the log's registry changes read so far
	stream   jetstream.Stream
	recorded candidate // the change of the file's registry last found in force (seq, digest)
}

// NewWatcher loads the file once. It returns the error of Load when the
// file cannot be read or parsed, and ErrNoSigningKey when cfg.JS is set
// without cfg.Key.
func NewWatcher(cfg WatcherConfig) (*Watcher, error) {
	if cfg.Stream == "" {
		cfg.Stream = SubjectStream
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.JS != nil && cfg.Key == nil {
		return nil, fmt.Errorf("registry: watch: %w", ErrNoSigningKey)
	}
	w := &Watcher{cfg: cfg, log: cfg.Logger.With("file", cfg.Path)}
	pc := w.publishConfig()
	w.ledger = newLedger(pc.trust())
	fi, err := os.Stat(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("registry: watch: %w", err)
	}
	data, err := readFile(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("registry: watch: %w", err)
	}
	r, err := Parse(data)
	if err != nil {
		return nil, err
	}
	w.mtime, w.size, w.hash = fi.ModTime(), fi.Size(), sha256.Sum256(data)
	w.current.Store(r)
	return w, nil
}

// Current returns the registry in effect.
func (w *Watcher) Current() *Registry { return w.current.Load() }

// Poll checks the file once. changed reports a new registry in effect; err
// reports a file that could not be read or parsed (the previous registry
// stays in effect).
func (w *Watcher) Poll() (changed bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fi, err := os.Stat(w.cfg.Path)
	if err != nil {
		return false, fmt.Errorf("registry: watch: %w", err)
	}
	if fi.ModTime().Equal(w.mtime) && fi.Size() == w.size {
		return false, nil
	}
	data, err := readFile(w.cfg.Path)
	if err != nil {
		// Keep mtime/size so a file too large is reported once, not every poll.
		w.mtime, w.size = fi.ModTime(), fi.Size()
		return false, fmt.Errorf("registry: watch: %w", err)
	}
	sum := sha256.Sum256(data)
	if bytes.Equal(sum[:], w.hash[:]) {
		w.mtime, w.size = fi.ModTime(), fi.Size()
		return false, nil
	}
	r, err := Parse(data)
	if err != nil {
		// Keep mtime/size so a broken file is reported once, not every poll.
		w.mtime, w.size, w.hash = fi.ModTime(), fi.Size(), sum
		return false, err
	}
	w.mtime, w.size, w.hash = fi.ModTime(), fi.Size(), sum
	if r.Digest() == w.current.Load().Digest() {
		return false, nil // a layout change only
	}
	w.current.Store(r)
	return true, nil
}

func (w *Watcher) publishConfig() PublishConfig {
	return PublishConfig{JS: w.cfg.JS, Stream: w.cfg.Stream, Key: w.cfg.Key, Trust: w.cfg.Trust, Source: w.cfg.Path, MsgIDKey: w.cfg.MsgIDKey}
}

// Record makes the file's registry (Current) the registry in force in the
// log, as Publish does: it writes a signed change unless the registry in
// force is the file's and nothing was appended after it. It reads the log
// only when the subject's last sequence moved or the file changed since
// the last call, so Run may call it at every poll. published reports
// whether a change was written. It returns ErrNoSigningKey without JS and
// Key.
func (w *Watcher) Record(ctx context.Context) (published bool, err error) {
	if w.cfg.JS == nil || w.cfg.Key == nil {
		return false, fmt.Errorf("registry: record: %w (no log or no key configured)", ErrNoSigningKey)
	}
	w.recMu.Lock()
	defer w.recMu.Unlock()
	r := w.Current()
	if w.stream == nil {
		if w.stream, err = w.cfg.JS.Stream(ctx, w.cfg.Stream); err != nil {
			return false, fmt.Errorf("registry: record: %w", err)
		}
	}
	last, err := lastSeq(ctx, w.stream)
	if err != nil {
		return false, fmt.Errorf("registry: record: %w", err)
	}
	if last != 0 && last == w.recorded.seq && r.Digest() == w.recorded.digest {
		return false, nil
	}
	seq, published, err := w.ledger.publish(ctx, w.publishConfig(), r)
	if err != nil {
		return false, err
	}
	w.recorded = candidate{seq: seq, digest: r.Digest()}
	return published, nil
}

// Run polls every Interval until ctx ends, calling OnChange on each change
// and, with JS set, keeping the file's registry in force in the log
// (Record). It returns nil when ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	t := time.NewTicker(w.cfg.Interval)
	defer t.Stop()
	for {
		if w.cfg.JS != nil {
			published, err := w.Record(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				w.log.Warn("registry not recorded in the log; retrying", "err", err)
			case published:
				w.log.Info("registry recorded in the log", "digest", w.Current().Digest())
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		changed, err := w.Poll()
		if err != nil {
			w.log.Warn("tools file rejected; the previous registry stays in effect", "err", err)
			continue
		}
		if changed {
			r := w.Current()
			w.log.Info("registry changed", "digest", r.Digest(), "tools", len(r.Tools()))
			if w.cfg.OnChange != nil {
				w.cfg.OnChange(r)
			}
		}
	}
}
