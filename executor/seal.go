package executor

import "github.com/toolstream/toolstream/events"

// encode encodes an event the executor writes, sealed under its user's key
// when the executor has a keyring (Config.Keys).
func (e *Executor) encode(ev *events.Event) ([]byte, error) {
	if e.cfg.Keys == nil {
		return events.Encode(ev)
	}
	return events.EncodeSealed(ev, e.cfg.Keys, "")
}
