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

// RegistryAccepter decides a RegistryChanged event read after inForce, the
// registry in force (nil: none), and returns the registry in force after
// it: the one the event carries, or inForce itself when the event records
// it again. A refused change (unsigned, signed by a key that is not
// trusted, stale, not a registry: docs/design.md invariant 10) is an error and
// inForce stays. It must decide from the events alone, so replay decides
// the same way. registry.Accepter[Validator](trust) is the one to use.
type RegistryAccepter func(inForce Validator, ev *events.Event) (Validator, error)

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
	// AcceptRegistry decides RegistryChanged events and turns them into
	// validators; it holds the keys the assembler trusts. Nil: no
	// registry; any tool name is accepted and only the JSON-object rule
	// applies.
	AcceptRegistry RegistryAccepter
	// TextBytesMax bounds the display text kept per response for its
	// outcome (ResponseOutcome.Text: the final answer the verifier
	// checks); longer text is cut there. Default 256 KiB.
	TextBytesMax int
	// Quotas bound each tenant's model events and bytes per second (event
	// time) and calls open at once (admit.go). Nil: no quotas (tests and
	// the one-shot tools); serve and replay take them from their flags,
	// DefaultQuotas unless told otherwise. A replay must be given the
	// quotas the live view had.
	Quotas *Quotas
	// LenientTenants are the tenants whose calls' almost-JSON arguments
	// are repaired (repair.go) instead of rejected invalid_json; the
	// repaired call says so and is still validated. A replay must be given
	// the same list.
	LenientTenants []string
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
	if c.TextBytesMax <= 0 {
		c.TextBytesMax = 256 << 10
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}
