package ingest

// The Anthropic adapter's fields, read by the scanner (jsonscan.go) in one
// pass: what decodeAnthropic's encoding/json decodes read, with the same
// result wherever the scanner answers.

var (
	anthEventNames   = []string{"type", "message", "index", "content_block", "delta", "error", "usage"}
	anthMessageNames = []string{"id", "model", "usage"}
	anthUsageNames   = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}
	anthBlockNames   = []string{"type", "id", "name", "text", "input"}
	anthDeltaNames   = []string{"type", "partial_json", "text", "stop_reason"}
)

// scannedAnth holds an event the scanner read and the values its
// pointers point at, in one allocation.
type scannedAnth struct {
	ev    anthEvent
	typ   string
	index int
}

// scanAnthropic decodes raw as decodeAnthropic does: the event's "type"
// (nil when absent or null) and the whole event. ok false leaves the event
// to encoding/json.
func scanAnthropic(raw []byte) (typ *string, ev *anthEvent, ok bool) {
	typ, ev, ok, _ = scanAnthropicChecked(raw)
	return typ, ev, ok
}

// scanAnthropicChecked is scanAnthropic, and says when a key of the event
// is a misspelling of a field the adapter reads (scanner.other).
func scanAnthropicChecked(raw []byte) (typ *string, ev *anthEvent, ok bool, bad error) {
	s := &scanner{b: raw, spell: true}
	h := new(scannedAnth)
	ev = &h.ev
	var m seen
	ok = s.top(func(key []byte, i int) int {
		if b := index(anthEventNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "type":
			end := s.stringInto(i, &typ, &h.typ)
			if typ != nil {
				ev.Type = *typ
			}
			return end
		case "message":
			msg, mm := new(anthMessage), seen(0)
			end := s.objectPtr(i, func() { msg = nil }, func(k []byte, j int) int {
				if b := index(anthMessageNames, k); b >= 0 && !s.once(&mm, b) {
					return -1
				}
				switch string(k) {
				case "id":
					return s.stringValue(j, &msg.ID)
				case "model":
					return s.stringValue(j, &msg.Model)
				case "usage":
					return s.anthUsagePtr(j, &msg.Usage)
				}
				return s.other(k, j, anthMessageNames)
			})
			ev.Message = msg
			return end
		case "index":
			return s.intInto(i, &ev.Index, &h.index)
		case "content_block":
			blk, bm := new(anthBlock), seen(0)
			end := s.objectPtr(i, func() { blk = nil }, func(k []byte, j int) int {
				if b := index(anthBlockNames, k); b >= 0 && !s.once(&bm, b) {
					return -1
				}
				switch string(k) {
				case "type":
					return s.stringValue(j, &blk.Type)
				case "id":
					return s.stringValue(j, &blk.ID)
				case "name":
					return s.stringValue(j, &blk.Name)
				case "text":
					return s.stringValue(j, &blk.Text)
				case "input":
					return s.raw(j, (*[]byte)(&blk.Input))
				}
				return s.other(k, j, anthBlockNames)
			})
			ev.ContentBlock = blk
			return end
		case "delta":
			d, dm := new(anthDelta), seen(0)
			end := s.objectPtr(i, func() { d = nil }, func(k []byte, j int) int {
				if b := index(anthDeltaNames, k); b >= 0 && !s.once(&dm, b) {
					return -1
				}
				switch string(k) {
				case "type":
					return s.stringValue(j, &d.Type)
				case "partial_json":
					return s.stringValue(j, &d.PartialJSON)
				case "text":
					return s.stringValue(j, &d.Text)
				case "stop_reason":
					return s.stringPtr(j, &d.StopReason)
				}
				return s.other(k, j, anthDeltaNames)
			})
			ev.Delta = d
			return end
		case "error":
			return s.raw(i, (*[]byte)(&ev.Error))
		case "usage":
			return s.anthUsagePtr(i, &ev.Usage)
		}
		return s.other(key, i, anthEventNames)
	})
	return typ, ev, ok && !s.fail, s.misspelt
}

func (s *scanner) anthUsagePtr(i int, dst **anthUsage) int {
	u, m := new(anthUsage), seen(0)
	end := s.objectPtr(i, func() { u = nil }, func(k []byte, j int) int {
		if b := index(anthUsageNames, k); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(k) {
		case "input_tokens":
			return s.int64Ptr(j, &u.Input)
		case "cache_creation_input_tokens":
			return s.int64Ptr(j, &u.CacheCreate)
		case "cache_read_input_tokens":
			return s.int64Ptr(j, &u.CacheRead)
		case "output_tokens":
			return s.int64Ptr(j, &u.Output)
		}
		return s.other(k, j, anthUsageNames)
	})
	*dst = u
	return end
}
