// Package lexical holds the language pieces of memory's lexical recall
// that stand on their own: an English stemmer (Stem, the Porter
// algorithm). It has no state and no dependencies; every function is
// deterministic, so index terms are the same on every replay.
//
// Invariants: Stem maps the inflected forms of a word (and most of its
// derived forms: adoption, recommendation) to one term, and leaves words
// that are not lower-case ASCII letters unchanged.
package lexical
