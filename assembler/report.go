package assembler

import (
	"encoding/json"
	"sort"

	"github.com/toolstream/toolstream/events"
)

// Line is the one-line JSON form of an outcome, as `toolstream assemble` and
// `toolstream calls --json` print it.
type Line struct {
	Type      string          `json:"type"` // call | response
	Outcome   string          `json:"outcome,omitempty"`
	Tenant    string          `json:"tenant,omitempty"`
	Response  string          `json:"response_id"`
	Item      string          `json:"item_id,omitempty"`
	CallID    *string         `json:"call_id,omitempty"`
	Name      *string         `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Status    string          `json:"status,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Detail    string          `json:"detail,omitempty"`
	Error     string          `json:"error,omitempty"`
	Calls     *int            `json:"calls,omitempty"`

	order    uint64 // opening sequence, for sorting
	position int
}

// MarshalJSON writes call lines with call_id and name always present (null
// when the provider gave no call id) and response lines without them.
func (l Line) MarshalJSON() ([]byte, error) {
	type plain Line
	if l.Type != "call" {
		return json.Marshal(plain(l))
	}
	return json.Marshal(struct {
		Type      string          `json:"type"`
		Outcome   string          `json:"outcome"`
		Tenant    string          `json:"tenant,omitempty"`
		Response  string          `json:"response_id"`
		Item      string          `json:"item_id"`
		CallID    *string         `json:"call_id"`
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Reason    string          `json:"reason,omitempty"`
		Detail    string          `json:"detail,omitempty"`
	}{l.Type, l.Outcome, l.Tenant, l.Response, l.Item, l.CallID, l.Name, l.Arguments, l.Reason, l.Detail})
}

// LineOf renders a call or response outcome event; ok is false for other
// kinds.
func LineOf(ev *events.Event) (Line, bool) {
	callLine := func(outcome, name string, from events.Provenance) Line {
		id, n := ev.CallID, name
		var idp *string
		if id != "" {
			idp = &id
		}
		return Line{Type: "call", Outcome: outcome, Tenant: ev.Tenant, Response: ev.Response, Item: ev.Item, CallID: idp, Name: &n, order: from.FirstSeq}
	}
	switch b := ev.Body.(type) {
	case *events.CallCompleted:
		l := callLine("completed", b.Name, b.From)
		l.Arguments = b.Arguments
		return l, true
	case *events.CallRejected:
		l := callLine("rejected", b.Name, b.From)
		l.Reason, l.Detail = string(b.Reason), b.Detail
		return l, true
	case *events.CallIncomplete:
		l := callLine("incomplete", b.Name, b.From)
		l.Reason, l.Detail = string(b.Reason), b.Detail
		return l, true
	case *events.ResponseOutcome:
		calls := b.Calls
		l := Line{Type: "response", Tenant: ev.Tenant, Response: ev.Response, Status: string(b.Status), Reason: string(b.Reason), Calls: &calls}
		if b.Status == events.StatusFailed {
			l.Reason = b.ErrorCode
			if l.Reason == "" {
				l.Reason = string(events.ReasonStreamFailed)
			}
			l.Error = b.ErrorMessage
		}
		return l, true
	}
	return Line{}, false
}

// SortLines orders call lines by when the call was opened, each response's
// line after its calls, responses in the order their first event arrived.
func SortLines(lines []Line) {
	first := map[string]uint64{}
	for i := range lines {
		l := &lines[i]
		l.position = i
		if l.Type == "call" {
			if f, ok := first[l.Response]; !ok || l.order < f {
				first[l.Response] = l.order
			}
		}
	}
	key := func(l *Line) (uint64, int, uint64, int) {
		f, ok := first[l.Response]
		if !ok {
			f = ^uint64(0) >> 1 // responses without calls keep their place after those with
		}
		if l.Type == "response" {
			return f, 1, 0, l.position
		}
		return f, 0, l.order, l.position
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a1, a2, a3, a4 := key(&lines[i])
		b1, b2, b3, b4 := key(&lines[j])
		if a1 != b1 {
			return a1 < b1
		}
		if a2 != b2 {
			return a2 < b2
		}
		if a3 != b3 {
			return a3 < b3
		}
		return a4 < b4
	})
}
