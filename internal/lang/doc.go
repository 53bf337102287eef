// Package lang is the one language layer that the verifier and memory share:
// how text is cut into sentences and words, how numbers and number words are
// read, which characters are CJK, and the word tables (units, status
// vocabularies, negation and modality cues, key aliases) that drive both,
// loaded from data files with a schema rather than written as Go.
//
// Invariants:
//   - Adding a language's words or a domain's vocabulary is adding data:
//     no table in Go code names a word of a domain.
//   - English and Chinese are held the same way: one schema, one loader.
//   - Pure functions over their input: no clock, no randomness, no I/O
//     after the embedded data is loaded, so the projections that use them
//     stay deterministic (replay equals live).
package lang
