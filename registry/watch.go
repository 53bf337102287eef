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
	// JS and Stream, when set, make Run record the registry in the log: the
	// one in effect when Run starts and every change, with Publish (retried
	// at each poll until it succeeds).
	JS     jetstream.JetStream
	Stream string
	// Logger; nil discards.
	Logger *slog.Logger
}

// Watcher keeps the registry of a tools file current without a restart. It
// polls the file's modification time and size, and re-reads it when they
// change; a file whose content hash is unchanged is not re-parsed. A file
// that no longer parses is logged and the previous registry stays in effect
// (bad input loses nothing, DESIGN.md invariant 9).
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
}

// NewWatcher loads the file once. It returns the error of Load when the
// file cannot be read or parsed.
func NewWatcher(cfg WatcherConfig) (*Watcher, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Watcher{cfg: cfg, log: cfg.Logger.With("file", cfg.Path)}
	fi, err := os.Stat(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("registry: watch: %w", err)
	}
	data, err := os.ReadFile(cfg.Path)
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
	data, err := os.ReadFile(w.cfg.Path)
	if err != nil {
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

// Run polls every Interval until ctx ends, calling OnChange on each change
// and, with JS set, publishing the registry in effect to the log. It
// returns nil when ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	t := time.NewTicker(w.cfg.Interval)
	defer t.Stop()
	published := ""
	for {
		if w.cfg.JS != nil {
			if r := w.Current(); r.Digest() != published {
				if _, err := Publish(ctx, w.cfg.JS, w.cfg.Stream, r, w.cfg.Path); err != nil {
					if ctx.Err() == nil {
						w.log.Warn("registry not recorded in the log; retrying", "err", err)
					}
				} else {
					published = r.Digest()
				}
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
