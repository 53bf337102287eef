package ingest

// The Responses adapter's fields, read by the scanner (jsonscan.go) in one
// pass: what decodeResponses's first encoding/json decode reads, with the
// same result wherever the scanner answers.

var (
	respEventNames  = []string{"type", "response", "output_index", "item_id", "item", "delta", "arguments", "input", "name", "code", "message", "error"}
	respObjectNames = []string{"id", "model", "status", "error", "incomplete_details", "usage"}
	respItemNames   = []string{"id", "type", "status", "call_id", "name", "arguments", "input"}
	apiErrorNames   = []string{"code", "type", "status", "message"}
	reasonNames     = []string{"reason"}
	respUsageNames  = []string{"input_tokens", "output_tokens"}
)

// respTypeNames maps each event type the adapter knows to itself: a known
// type is not allocated again for every event. Only read.
var respTypeNames = func() map[string]string {
	m := make(map[string]string, len(respNeeds))
	for k := range respNeeds {
		m[k] = k
	}
	return m
}()

// scannedResp holds an event the scanner read and the values its
// pointers point at, in one allocation.
type scannedResp struct {
	ev                           respEvent
	typ, delta, arguments, input string
	index                        int
	// itemID is the item_id of the last event read into this scannedResp
	// (kept when it is zeroed): the next event's, the same bytes most of
	// the time (a call's deltas), is not allocated again.
	itemID string
}

// scanResponses decodes raw as decodeResponses's typed decode does: the
// event's "type" (nil when absent or null) and the rest into ev. ok false
// leaves the event to encoding/json.
func scanResponses(raw []byte) (typ *string, ev *respEvent, ok bool) {
	return scanResponsesInto(raw, new(scannedResp))
}

// scanResponsesInto is scanResponses into h, zeroed first (but for the
// last item_id it read, kept to be reused: scannedResp.itemID): a Normalizer
// reuses one for every event (Normalizer.resp), since what it applies
// copies the values out and keeps no pointer into h (the objects an
// event holds, its response and item, are allocated afresh).
func scanResponsesInto(raw []byte, h *scannedResp) (typ *string, ev *respEvent, ok bool) {
	typ, ev, ok, _ = scanResponsesChecked(raw, h)
	return typ, ev, ok
}

// scanResponsesChecked is scanResponsesInto, and says when a key of the
// event is a misspelling of a field the adapter reads (scanner.other).
func scanResponsesChecked(raw []byte, h *scannedResp) (typ *string, ev *respEvent, ok bool, bad error) {
	s := &scanner{b: raw, spell: true}
	*h = scannedResp{itemID: h.itemID}
	ev = &h.ev
	var m seen
	ok = s.top(func(key []byte, i int) int {
		switch string(key) {
		case "type":
			if !s.once(&m, 0) {
				return -1
			}
			if s.b[i] == '"' {
				if end, plain := s.str(i); end > 0 && plain {
					if t, known := respTypeNames[string(s.b[i+1:end-1])]; known {
						h.typ, typ = t, &h.typ
						return end
					}
				}
			}
			return s.stringPtr(i, &typ)
		case "response":
			if !s.once(&m, 1) {
				return -1
			}
			r, rm := new(respObject), seen(0)
			end := s.objectPtr(i, func() { r = nil }, func(k []byte, j int) int { return s.respObjectField(r, &rm, k, j) })
			ev.Response = r
			return end
		case "output_index":
			if !s.once(&m, 2) {
				return -1
			}
			return s.intInto(i, &ev.OutputIndex, &h.index)
		case "item_id":
			if !s.once(&m, 3) {
				return -1
			}
			if s.b[i] == '"' && h.itemID != "" {
				if end, plain := s.str(i); end > 0 && plain && string(s.b[i+1:end-1]) == h.itemID {
					ev.ItemID = h.itemID
					return end
				}
			}
			end := s.stringValue(i, &ev.ItemID)
			h.itemID = ev.ItemID
			return end
		case "item":
			if !s.once(&m, 4) {
				return -1
			}
			it, im := new(respItem), seen(0)
			end := s.objectPtr(i, func() { it = nil }, func(k []byte, j int) int { return s.respItemField(it, &im, k, j) })
			ev.Item = it
			return end
		case "delta":
			if !s.once(&m, 5) {
				return -1
			}
			return s.stringInto(i, &ev.Delta, &h.delta)
		case "arguments":
			if !s.once(&m, 6) {
				return -1
			}
			return s.stringInto(i, &ev.Arguments, &h.arguments)
		case "input":
			if !s.once(&m, 7) {
				return -1
			}
			return s.stringInto(i, &ev.Input, &h.input)
		case "name":
			if !s.once(&m, 8) {
				return -1
			}
			return s.stringValue(i, &ev.Name)
		case "code":
			if !s.once(&m, 9) {
				return -1
			}
			return s.raw(i, (*[]byte)(&ev.Code))
		case "message":
			if !s.once(&m, 10) {
				return -1
			}
			return s.stringValue(i, &ev.Message)
		case "error":
			if !s.once(&m, 11) {
				return -1
			}
			return s.apiErrorPtr(i, &ev.Error)
		}
		return s.other(key, i, respEventNames)
	})
	return typ, ev, ok && !s.fail, s.misspelt
}

func (s *scanner) respObjectField(r *respObject, m *seen, key []byte, i int) int {
	if b := index(respObjectNames, key); b >= 0 && !s.once(m, b) {
		return -1
	}
	switch string(key) {
	case "id":
		return s.stringValue(i, &r.ID)
	case "model":
		return s.stringValue(i, &r.Model)
	case "status":
		return s.stringValue(i, &r.Status)
	case "error":
		return s.apiErrorPtr(i, &r.Error)
	case "incomplete_details":
		d := new(struct {
			Reason string `json:"reason"`
		})
		var dm seen
		end := s.objectPtr(i, func() { d = nil }, func(k []byte, j int) int {
			if string(k) == "reason" {
				if !s.once(&dm, 0) {
					return -1
				}
				return s.stringValue(j, &d.Reason)
			}
			return s.other(k, j, reasonNames)
		})
		r.IncompleteDetails = d
		return end
	case "usage":
		u := new(struct {
			Input  *int64 `json:"input_tokens"`
			Output *int64 `json:"output_tokens"`
		})
		var um seen
		end := s.objectPtr(i, func() { u = nil }, func(k []byte, j int) int {
			switch string(k) {
			case "input_tokens":
				if !s.once(&um, 0) {
					return -1
				}
				return s.int64Ptr(j, &u.Input)
			case "output_tokens":
				if !s.once(&um, 1) {
					return -1
				}
				return s.int64Ptr(j, &u.Output)
			}
			return s.other(k, j, respUsageNames)
		})
		r.Usage = u
		return end
	}
	return s.other(key, i, respObjectNames)
}

func (s *scanner) respItemField(it *respItem, m *seen, key []byte, i int) int {
	if b := index(respItemNames, key); b >= 0 && !s.once(m, b) {
		return -1
	}
	switch string(key) {
	case "id":
		return s.stringValue(i, &it.ID)
	case "type":
		return s.stringValue(i, &it.Type)
	case "status":
		return s.stringValue(i, &it.Status)
	case "call_id":
		return s.stringValue(i, &it.CallID)
	case "name":
		return s.stringValue(i, &it.Name)
	case "arguments":
		return s.stringPtr(i, &it.Arguments)
	case "input":
		return s.stringPtr(i, &it.Input)
	}
	return s.other(key, i, respItemNames)
}

// apiErrorPtr reads an *apiError field.
func (s *scanner) apiErrorPtr(i int, dst **apiError) int {
	e := new(apiError)
	var m seen
	end := s.objectPtr(i, func() { e = nil }, func(k []byte, j int) int {
		switch string(k) {
		case "code":
			if !s.once(&m, 0) {
				return -1
			}
			return s.raw(j, (*[]byte)(&e.Code))
		case "type":
			if !s.once(&m, 1) {
				return -1
			}
			return s.stringValue(j, &e.Type)
		case "status":
			if !s.once(&m, 2) {
				return -1
			}
			return s.stringValue(j, &e.Status)
		case "message":
			if !s.once(&m, 3) {
				return -1
			}
			return s.stringValue(j, &e.Message)
		}
		return s.other(k, j, apiErrorNames)
	})
	*dst = e
	return end
}
