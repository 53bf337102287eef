package projector

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// OpenPebble opens (or creates) a Pebble database in dir with a logger that
// only forwards errors to l (nil discards).
func OpenPebble(dir string, l *slog.Logger) (*pebble.DB, error) {
	return openPebble(vfs.Default, dir, l)
}

// openPebble is OpenPebble on the filesystem fs (Config.FS).
func openPebble(fs vfs.FS, dir string, l *slog.Logger) (*pebble.DB, error) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	db, err := pebble.Open(dir, &pebble.Options{
		FS:              fs,
		Logger:          quietLogger{l},
		LoggerAndTracer: quietLogger{l},
	})
	if err != nil {
		return nil, fmt.Errorf("projector: open pebble %s: %w", dir, err)
	}
	return db, nil
}

// quietLogger keeps Pebble's informational chatter out of the logs.
type quietLogger struct{ l *slog.Logger }

func (q quietLogger) Infof(string, ...any) {}
func (q quietLogger) Errorf(format string, args ...any) {
	q.l.Error("pebble error", "text", fmt.Sprintf(format, args...))
}
func (q quietLogger) Fatalf(format string, args ...any) {
	q.l.Error("pebble fatal", "text", fmt.Sprintf(format, args...))
	panic(fmt.Sprintf(format, args...))
}
func (q quietLogger) Eventf(context.Context, string, ...any) {}
func (q quietLogger) IsTracingEnabled(context.Context) bool  { return false }
