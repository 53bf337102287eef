// Package events is Toolstream's event catalogue: the envelope every event
// carries, the typed bodies of every kind, the subject scheme and the
// deterministic event ids, and the msgpack encoding that puts them on the log.
//
// Only this package builds subjects and event ids, so that every producer,
// projection and tool agrees on them.
//
// Invariants kept here (numbers from docs/design.md):
//
//   - 7, tenants never meet: every subject carries the tenant as its third
//     token and every constructor refuses an empty or malformed tenant with
//     ErrInvalidTenant.
//   - 9, bad input loses nothing: Decode never panics. Garbage, a truncated
//     payload, an unknown kind or a newer schema version than this reader knows
//     come back as errors wrapping ErrBadInput (ErrMalformed, ErrUnknownKind,
//     ErrUnknownVersion), so the caller can record a typed rejection and go on.
//     Decode has a budget: before the msgpack decoder allocates what a
//     length prefix declares, the bytes are walked once and an event whose
//     declared lengths exceed what remains, that nests deeper than 32 or
//     holds more than 65536 array and map values is ErrMalformed (a 5-byte
//     header declaring four billion elements would otherwise end the
//     process with an out-of-memory fatal error, which no recover catches).
//   - 4, deterministic ids: ID builders derive an event id from its cause
//     (CompletedID and friends), never from a clock or a random source, so a
//     relay that publishes twice is deduplicated by JetStream's Nats-Msg-Id.
//     They are injective (id.go escapes every part), so two causes never
//     share an id and the duplicate window never drops a second event as
//     the first's repeat (9).
//
// Versioning: each Kind has a current schema version (Version). A reader
// accepts any version up to its own; fields added later must be optional
// (msgpack ignores unknown fields and zero-fills missing ones).
//
// Everything in this package is safe for concurrent use; it holds no state.
package events
