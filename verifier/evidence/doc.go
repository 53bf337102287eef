// Package evidence is the verifier's evidence index: tool results in, the
// index a check reads out. Each JSON value of a result becomes a leaf with
// its RFC 6901 pointer; objects and arrays become nodes whose leaves and
// descendants are contiguous ranges; keys are read as concepts through the
// bilingual lexicon (internal/lang's data: 库存, "in stock" and in_stock all
// mean stock), as attributes and states, and as units (weight_kg, price_usd,
// a sibling "currency", a key's magnitude such as 销售额(万元)); names, ids
// and titles become the subjects (entities) their objects are named by;
// tables ({"columns": […], "rows": [[…]]} or a header row) become rows named
// by their first cell; numbers and dates, including those written inside
// strings ("Ships in 5-7 business days", "launches on June 3"), are kept
// with their type, unit and the words around them, numbers sorted by value.
//
// A result is decoded in one pass (decodeJSON, jsondecode.go: the tree
// json.Decoder with UseNumber gives, an object's fields sorted by key in a
// slice instead of a map, and the same inputs refused) and
// indexed on its own, once (IndexEvidence; a part, part.go);
// the verifier projection keeps the part's encoding in its view
// (MarshalBinary, partcodec.go) and reads it back for every answer
// (UnmarshalEvidenceIndex, ReadEvidenceIndex); BuildIndex, which indexes
// an answer's evidence for one check, builds its parts one after another in
// one slice of leaves and joins them there, not copied. The index an answer is
// checked against joins the parts of its evidence (Join) and answers the
// lookups a check asks of it (lookup.go): the leaves a concept, a value
// word or a value names, the subjects a token may start, the identifier
// codes, the members of a collection. The words, units, numbers and dates
// of a claim are read with the same readers (Tokenize, ClaimWords,
// ScanNumbers, ScanTimes, the unit tables), so that a claim and the
// evidence are read alike. Package verifier/check holds the claims and
// their judging and imports this package; this package knows nothing of
// claims or verdicts.
//
// # Invariants
//
//   - Deterministic: an index depends on its result only (object keys are
//     walked in sorted order, no clock, no randomness; a day written
//     relative to the time of reading is fixed when parts are joined, with
//     the answer's event time), and the same result gives the same index.
//   - The stored bytes are the view's: MarshalBinary encodes the same index
//     to the same bytes every time, and they stay byte-identical across
//     versions of this package unless the format's version or the
//     language data changes: the bytes begin with a stamp of both
//     (PartFormat and internal/lang's Data.Digest), and ErrIndexFormat
//     then tells the reader to index the result again; the verifier view's
//     digest rests on it.
//   - Bad input loses nothing: a result that is not JSON gives an index a
//     check skips; damaged stored bytes are an error, not a panic.
//   - Bounded: the evidence of one answer is indexed up to its first
//     LeavesMax (65536) values in document order, and a string value gives
//     at most 64 numbers and 256 words.
//
// # Concurrency
//
// An EvidenceIndex and a joined Index's parts are not changed by checks and
// may be shared by any number of goroutines; a joined Index's lookup cache
// belongs to the one check that made it.
package evidence
