// Package lang is the one language layer that the verifier and memory share:
// how text is cut into sentences and words, how numbers and number words are
// read, which characters are CJK, and the word tables (units, status
// vocabularies, negation and modality cues, key aliases) that drive both,
// loaded from data files with a schema rather than written as Go.
//
// The data files are data/*.txt, embedded and read once by Default (Load
// reads another set, for tests). data/schema.txt lists every section a
// file may hold and what its lines must be (words, numbers, units, unit
// references, categories); Load refuses a file that breaks it, naming file
// and line, and TestEveryFileObeysTheSchema loads the embedded set.
//
// To add a table: add a line "section = kind" to data/schema.txt (with
// +phrases if "_" in its words is a space, and the names a line may have,
// if they are closed), put the section in a data file (a new file of
// data/ is read too), and read it with Data.Set, Words, List, Numbers or
// UnitRefs. To add words to a table (a domain, a language) add lines:
// no Go changes. Numbers: ParseNumber reads digits, English number words
// ("twenty-one", "three hundred and five") and Chinese numerals (三千五百);
// ParseZhNumber reads a numeral inside a text; Ordinal reads an English
// ordinal (fourth, twenty-first, 4th) and ZhOrdinal a Chinese one (第四,
// 第3, 三号), from numbers.txt's [ordinal words] and [ordinal marks]. Units: Unit, UnitWord and
// MinorUnit (amount_cents is in hundredths). Words: Normalize and NormRune
// (the folded form text is compared in, rune count kept), KeyParts (a JSON
// key's words), Stem (the crude English lemma). Sentences cuts text into
// sentences; a Lexicon's Segment reads its words out of CJK text, which
// has no spaces, by forward longest match.
//
// The files: lexicon.txt (concepts, cues, closed categories and the rules
// over them), units.txt, numbers.txt, keys.txt (the words keys are made
// of), words.txt (claim words read beside the lexicon), time.txt,
// sentences.txt.
//
// Invariants:
//   - Adding a language's words or a domain's vocabulary is adding data:
//     no table in Go code names a word of a domain.
//   - English and Chinese are held the same way: one schema, one loader.
//   - Pure functions over their input: no clock, no randomness, no I/O
//     after the embedded data is loaded, so the projections that use them
//     stay deterministic (replay equals live).
package lang
