package events

import (
	"encoding/binary"
	"math"

	"github.com/toolstream/toolstream/internal/mpack"
)

// decodeEnvelope reads the envelope from the front of data without
// reflection: the canonical layout Encode writes (a map of short string
// keys to strings and integers). It returns the offset of the body, and
// ok=false for anything else (an unknown key, another value type, a
// truncation), which Decode then hands to the general decoder, so both
// accept and refuse exactly the same inputs.
func decodeEnvelope(data []byte, ev *Event) (off int, ok bool) {
	n, off, ok := mpack.ReadMapLen(data, 0)
	if !ok {
		return 0, false
	}
	for range n {
		var key []byte
		if key, off, ok = mpack.ReadStr(data, off); !ok {
			return 0, false
		}
		switch string(key) {
		case "id", "k", "t", "u", "ss", "run", "st", "r", "i", "c", "cz", "kx":
			var v []byte
			if v, off, ok = mpack.ReadStr(data, off); !ok {
				return 0, false
			}
			switch string(key) {
			case "id":
				ev.ID = string(v)
			case "k":
				ev.Kind = kindOf(v)
			case "t":
				ev.Tenant = string(v)
			case "u":
				ev.User = string(v)
			case "ss":
				ev.Session = string(v)
			case "run":
				ev.Run = string(v)
			case "st":
				ev.Step = string(v)
			case "r":
				ev.Response = string(v)
			case "i":
				ev.Item = string(v)
			case "c":
				ev.CallID = string(v)
			case "cz":
				ev.Causation = string(v)
			case "kx":
				ev.Sealed = string(v)
			}
		case "v":
			var x int64
			if x, off, ok = mpack.ReadInt(data, off); !ok || x < 0 || x > math.MaxUint16 {
				return 0, false
			}
			ev.V = uint16(x)
		case "at":
			if ev.At, off, ok = mpack.ReadInt(data, off); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return off, true
}

// decodeDelta reads an ArgumentsDelta body in its canonical layout (a map
// holding "d") when it is all that is left of data, for a valid envelope of
// that kind; ok=false leaves it to the general decoder.
func decodeDelta(ev *Event, body []byte) (Body, bool) {
	if ev.Kind != KindArgumentsDelta || ev.V != 1 || ValidTenant(ev.Tenant) != nil {
		return nil, false
	}
	n, off, ok := mpack.ReadMapLen(body, 0)
	if !ok || n != 1 {
		return nil, false
	}
	key, off, ok := mpack.ReadStr(body, off)
	if !ok || string(key) != "d" {
		return nil, false
	}
	v, off, ok := mpack.ReadStr(body, off)
	if !ok || off != len(body) {
		return nil, false
	}
	return &ArgumentsDelta{Delta: string(v)}, true
}

// kindNames maps each known kind's name to the kind, so decoding one does
// not copy it. Derived from the catalogue; never written afterwards.
var kindNames = func() map[string]Kind {
	m := make(map[string]Kind, len(catalogue))
	for k := range catalogue {
		m[string(k)] = k
	}
	return m
}()

// kindOf returns the kind named b.
func kindOf(b []byte) Kind {
	if k, ok := kindNames[string(b)]; ok {
		return k
	}
	return Kind(b)
}

// appendEnvelope appends the envelope of ev in the canonical layout, the
// bytes the general encoder writes for the Event struct (fields in their
// declared order, omitempty ones left out when empty, At as a 9-byte int64
// and V as a uint16), without reflection: every event the backbone writes
// goes through here (TestEnvelopeFastEncoderAgreesWithTheGeneralEncoder).
func appendEnvelope(b []byte, ev *Event) []byte {
	type field struct{ key, val string } // the envelope's optional strings
	strs := [...]field{
		{"u", ev.User}, {"ss", ev.Session}, {"run", ev.Run}, {"st", ev.Step},
		{"r", ev.Response}, {"i", ev.Item}, {"c", ev.CallID}, {"cz", ev.Causation},
	}
	n := 5 // id, k, v, t, at
	for _, f := range strs {
		if f.val != "" {
			n++
		}
	}
	if ev.Sealed != "" {
		n++
	}
	b = mpack.AppendMapLen(b, n)
	b = mpack.AppendStr(mpack.AppendStr(b, "id"), ev.ID)
	b = mpack.AppendStr(mpack.AppendStr(b, "k"), string(ev.Kind))
	b = binary.BigEndian.AppendUint16(append(mpack.AppendStr(b, "v"), 0xcd), ev.V)
	b = mpack.AppendStr(mpack.AppendStr(b, "t"), ev.Tenant)
	for _, f := range strs {
		if f.val != "" {
			b = mpack.AppendStr(mpack.AppendStr(b, f.key), f.val)
		}
	}
	b = mpack.AppendInt64(mpack.AppendStr(b, "at"), ev.At)
	if ev.Sealed != "" {
		b = mpack.AppendStr(mpack.AppendStr(b, "kx"), ev.Sealed)
	}
	return b
}
