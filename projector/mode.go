package projector

import "fmt"

// Mode is how a Runner reads the log and what becomes of the events its
// projection emits. The zero Mode is ModeLive.
type Mode int

const (
	// ModeLive reads through a durable consumer that follows the log and
	// relays the outbox (serve). Applying pauses while more than
	// Config.OutboxMax rows wait to be relayed.
	ModeLive Mode = iota
	// ModeHold reads as ModeLive does but keeps emitted events in the
	// outbox, unrelayed and without the OutboxMax pause: tests compare
	// Runner.Outbox with what a clean run emits.
	ModeHold
	// ModeReplay rebuilds a view: it reads the log by direct gets (package
	// logread), so nothing is created on the server and a reader's
	// identity may replay, and it drops emitted events (the live view
	// emitted them). Replay, Replayer and an erasure's rebuild run in it.
	ModeReplay
)

// String names the mode as its constant does, without the prefix.
func (m Mode) String() string {
	switch m {
	case ModeLive:
		return "live"
	case ModeHold:
		return "hold"
	case ModeReplay:
		return "replay"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// relays reports whether the runner publishes its outbox.
func (m Mode) relays() bool { return m == ModeLive }

// keepsEmits reports whether emitted events are written to the outbox.
func (m Mode) keepsEmits() bool { return m != ModeReplay }

// consumes reports whether the runner reads through a durable consumer
// (else by direct gets).
func (m Mode) consumes() bool { return m != ModeReplay }

func (m Mode) valid() bool { return m >= ModeLive && m <= ModeReplay }
