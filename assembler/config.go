package assembler

import (
	"log/slog"
	"time"

	"github.com/toolstream/toolstream/events"
)

// Validator checks a call against the tool registry. args is one JSON
// object. It returns the arguments to execute (possibly coerced, per the
// tool's contract), the JSON pointers it coerced, and a typed reason with a
// detail when the call must not run ("" when it may).
type Validator interface {
	Validate(tenant, name string, args []byte) (out []byte, coerced []string, reason events.Reason, detail string)
}

// RegistryParser builds a Validator from the spec of a RegistryChanged
// event.
type RegistryParser func(spec []byte) (Validator, error)

// PreviewFunc receives live partial-argument previews (core NATS, not the
// log). It must not block.
type PreviewFunc func(subject string, data []byte)

// Config configures the assembler projection.
type Config struct {
	// ArgsBytesMax bounds a call's arguments; larger ones are rejected
	// too_large (and stop being buffered). Default 1 MiB.
	ArgsBytesMax int
	// IdleTimeout is how long (event time) a response may go silent before
	// its open calls become incomplete timed_out. Default 2 minutes.
	IdleTimeout time.Duration
	// ParseRegistry turns RegistryChanged specs into validators. Nil: no
	// registry; any tool name is accepted and only the JSON-object rule
	// applies.
	ParseRegistry RegistryParser
	// Preview, when set, receives partial-argument previews.
	Preview PreviewFunc
	// Logger; nil discards.
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.ArgsBytesMax <= 0 {
		c.ArgsBytesMax = 1 << 20
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 2 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}
