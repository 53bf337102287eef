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
// msgID is the Nats-Msg-Id of the executor's event id on subject: tagged
// under its MsgIDKey (events.OwnedMsgID), so no other role claims it.
func (e *Executor) msgID(subject, id string) string {
	return events.OwnedMsgID(e.cfg.MsgIDKey, subject, id)
}

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
