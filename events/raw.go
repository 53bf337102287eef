package events

import "strconv"

// Raw provider events at rest. A producer that cannot normalise publishes
// the provider's events verbatim on ts.in.<tenant>.<format>.<stream>
// (IngestSubject), where they are stored as sent, in the clear. Ingest does
// not normalise that message: it copies it, sealed under the key of the
// user its Ts-User header names (the tenant's user-less scope without one),
// into a RawSealed event on ts.raw.<tenant>.<stream> (RawSubject, in the same
// stream TS_IN), normalises the copy when it reads it back, and deletes the
// clear message once the copy is stored. Erasing the user destroys the key,
// so the raw event is erased with everything normalised from it.

// KindRawSealed is a raw provider event kept sealed.
const KindRawSealed Kind = "in.raw"

// RawSealed is a raw provider event as a producer published it on Subject
// (ts.in.<tenant>.<format>.<stream>), copied by ingest under its data key.
// Seq and Time are the clear message's TS_IN sequence and stored time: what
// ingest normalises the copy as (model event ids name Seq), so the events
// are the same whether the clear message or its copy is read.
type RawSealed struct {
	Subject string `msgpack:"s"`
	Seq     uint64 `msgpack:"q"`
	Time    int64  `msgpack:"t"`
	// Headers are the message's Ts-* headers as name, value pairs, sorted
	// by name (a header's first value).
	Headers []string `msgpack:"h,omitempty"`
	Data    []byte   `msgpack:"d,omitempty"`
}

func (*RawSealed) Kind() Kind { return KindRawSealed }

// AllRaw matches every sealed raw event.
const AllRaw = SubjectPrefix + ".raw.>"

// RawSubject is where ingest keeps the sealed copies of one producer
// stream's raw events. No tenant's identity may publish it.
func RawSubject(tenant, stream string) (string, error) { return subject("raw", tenant, stream) }

// RawSealedID names the sealed copy of the raw event stored at TS_IN
// sequence seq.
func RawSealedID(tenant string, seq uint64) string {
	return id("raw", tenant, strconv.FormatUint(seq, 10))
}
