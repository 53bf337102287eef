package executor

import (
	"errors"

	"github.com/toolstream/toolstream/events"
)

// encode encodes an event the executor writes, sealed under its user's key
// when the executor has a keyring (Config.Keys). A user whose stored key is
// not a key (events.ErrBadKey) gets the event with its body withheld, as a
// projection's emits do: its readers reject it bad_key, and the executor
// goes on with everyone else's calls instead of stopping.
func (e *Executor) encode(ev *events.Event) ([]byte, error) {
	if e.cfg.Keys == nil {
		return events.Encode(ev)
	}
	data, err := events.EncodeSealed(ev, e.cfg.Keys, "")
	if errors.Is(err, events.ErrBadKey) {
		return events.EncodeWithheld(ev, "")
	}
	return data, err
}
