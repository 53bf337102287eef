package gateway

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// keysFileOf is the path of f's keys file, read beside the config at
// path.
func keysFileOf(path string, f *File) string {
	if f.KeysFile == "" || filepath.IsAbs(f.KeysFile) {
		return f.KeysFile
	}
	return filepath.Join(filepath.Dir(path), f.KeysFile)
}

// parseKeysFile adds the keys of data, the keys file at path, to f: a
// YAML list of keys, or a mapping whose keys: is one.
func parseKeysFile(f *File, path string, data []byte) error {
	var keys []Key
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '-' && t[0] != '[' {
		var doc struct {
			Keys []Key `yaml:"keys"`
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&doc); err != nil {
			return fmt.Errorf("%w: keys_file %s: %v", ErrConfig, path, err)
		}
		keys = doc.Keys
	} else if len(t) > 0 {
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&keys); err != nil {
			return fmt.Errorf("%w: keys_file %s: %v", ErrConfig, path, err)
		}
	}
	f.Keys = append(f.Keys, keys...)
	return f.Validate()
}

// Reload puts the keys and prices of f in force for the requests that
// come next (a request under way keeps the key it was admitted with);
// what the keys used so far is kept; and gives f to Config.OnReload (run
// mode's run: and memory: settings). The upstreams, routing, limits and
// heartbeat are read once, by New: a change to them needs a restart, and
// Reload logs a warning naming them. It
// returns ErrConfig, and changes nothing, for a file the gateway cannot
// use.
func (g *Gateway) Reload(f *File) error {
	if err := f.Validate(); err != nil {
		reloads.WithLabelValues("error").Inc()
		return err
	}
	g.keyset.Store(newKeySet(f))
	if changed := g.cfg.File.restartOnlyChanges(f, g.cfg.RequestsMaxDefault); len(changed) > 0 {
		// Said at each reload that finds them: an operator who edited an
		// upstream's URL and saw "reloaded" would think it in force.
		g.log.Warn("gateway: the file's "+strings.Join(changed, ", ")+" changed; they are read at start, so the ones in force stay until serve restarts",
			"changed", changed)
	}
	if g.cfg.OnReload != nil {
		g.cfg.OnReload(f)
	}
	reloads.WithLabelValues("ok").Inc()
	return nil
}

// Watch reloads the configuration at path and its keys file whenever
// their contents change, checked every every (default 2 s; a change is
// taken when two checks in a row see it), and whenever hup delivers
// (SIGHUP; nil: none), until ctx ends. A file that cannot be used is
// logged and the keys in force stay.
//
// loaded is the configuration in force, as LoadFile read it from path:
// the files are compared with the bytes it was parsed from, not with what
// Watch finds when it starts, so a change written between that load and
// Watch is seen (two checks later). A File that LoadFile did not read
// (nil included) is no baseline: the files as Watch first finds them are
// put in force. What a reload puts in force is parsed from the very bytes
// it compared, so the baseline is always what is in force.
func (g *Gateway) Watch(ctx context.Context, path string, loaded *File, every time.Duration, hup <-chan os.Signal) {
	WatchFile(ctx, g.log, path, loaded, every, hup, g.Reload)
}

// WatchFile is Watch for any reader of the configuration: apply puts a
// file read again in force (an error leaves what is in force, and is
// logged). The MCP endpoint, which takes the gateway's keys, follows the
// file with it too, so a key taken out or expired is refused there as at
// the gateway.
func WatchFile(ctx context.Context, log *slog.Logger, path string, loaded *File, every time.Duration, hup <-chan os.Signal, apply func(*File) error) {
	if every <= 0 {
		every = 2 * time.Second
	}
	var last []byte // nil: no baseline, any content is a change
	if loaded != nil {
		last = loaded.source
	}
	var pending []byte // a change seen once, reloaded when seen again
	reload := func(f *File, err error, why string) {
		if err == nil {
			err = apply(f)
		} else {
			reloads.WithLabelValues("error").Inc()
		}
		if err != nil {
			log.Error("gateway: keys not reloaded; the ones in force stay", "path", path, "why", why, "err", err)
			return
		}
		log.Info("gateway: keys, prices and run settings reloaded", "path", path, "why", why, "keys", len(f.Keys))
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			f, now, err := loadFile(path)
			last, pending = now, nil
			reload(f, err, "signal")
		case <-tick.C:
			// A change is read once it holds still for a tick: a file
			// being written (truncated, then filled) is not taken half
			// written, which would drop the keys it had not reached.
			f, now, err := loadFile(path)
			switch {
			case last != nil && bytes.Equal(now, last):
				pending = nil
			case pending != nil && bytes.Equal(now, pending):
				last, pending = now, nil
				reload(f, err, "changed")
			default:
				pending = now
			}
		}
	}
}

// Limits are the limits in force: the file's as New read it, defaults
// filled in.
func (g *Gateway) Limits() Limits { return g.cfg.File.Limits }

// startDefaults fills in what New puts in force for the settings it reads
// once: limits and heartbeat left zero (requestsMax:
// Config.RequestsMaxDefault).
func (f *File) startDefaults(requestsMax int) {
	if f.Limits.KeyRequestsMax <= 0 {
		f.Limits.KeyRequestsMax = DefaultKeyRequestsMax
	}
	if f.Limits.RequestsMax <= 0 {
		f.Limits.RequestsMax = requestsMax
	}
	if f.Limits.RequestsMax <= 0 {
		f.Limits.RequestsMax = DefaultRequestsMax
	}
	if f.Limits.BodyReadTimeout <= 0 {
		f.Limits.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if f.Heartbeat <= 0 {
		f.Heartbeat = DefaultHeartbeat
	}
}

// restartOnlyChanges names the settings New read once (f, defaults
// filled in) that next changes: upstreams, routing, limits, heartbeat.
// A reload does not put them in force.
func (f *File) restartOnlyChanges(next *File, requestsMax int) []string {
	n := *next
	n.startDefaults(requestsMax)
	var changed []string
	for _, c := range []struct {
		name      string
		now, then any
	}{
		{"upstreams", f.Upstreams, n.Upstreams},
		{"routing", f.Routing, n.Routing},
		{"limits", f.Limits, n.Limits},
		{"heartbeat", f.Heartbeat, n.Heartbeat},
	} {
		if !reflect.DeepEqual(c.now, c.then) {
			changed = append(changed, c.name)
		}
	}
	return changed
}
