package erasure

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/keys"
)

// Erased reports, from an erasure's tombstones (events.Erased, as read
// from the log; other events are ignored), whether the key of an owner was
// destroyed by one: a user's erasure covers every key of the user, a
// record's only that record's. A restore of a key backup must never bring
// such a key back (toolstream keys restore).
func Erased(tombstones []*events.Event) func(keys.Owner) bool {
	var erasures []*events.Erased
	for _, ev := range tombstones {
		if er, ok := events.As[*events.Erased](ev); ok {
			erasures = append(erasures, er)
		}
	}
	return func(o keys.Owner) bool {
		for _, er := range erasures {
			if er.Tenant == o.Tenant && er.User == o.User && (er.Record == "" || er.Record == o.Record) {
				return true
			}
		}
		return false
	}
}
