// Package mpack holds the msgpack primitives of Toolstream's hand-written
// codecs — the event envelope's fast decoder and the executor's hot bodies
// (package events), the executor's record encoder, the assembler's call and
// response rows — so the wire format is
// written down once: append functions that write the compact forms msgpack's own encoder
// writes, and read functions that take a buffer and an offset and return
// the value, the offset after it, and false on anything else (a wrong code,
// a length past the end). Readers never panic and never allocate.
//
// Both codecs stay readable by github.com/vmihailenco/msgpack/v5, and read
// what it writes: the tests hold the primitives to it.
package mpack
