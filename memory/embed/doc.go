// Package embed turns texts into vectors for memory's semantic recall:
// the Embedder interface, and HTTP, an Embedder for any service that
// speaks the OpenAI-compatible POST /v1/embeddings (OpenAI, Azure-style
// gateways, vLLM, Ollama, llama.cpp server, text-embeddings-inference).
//
// Embedding is done at the writer and at the query, never in the memory
// projection: a model's answer is not a function of the log, so the
// vectors it gives are recorded as events (tagged with the record version
// they were computed from) and the projection only reads them. Nothing
// here keeps state between calls.
//
// Invariants: Embed returns exactly one vector per input text, in the
// order of the inputs (whatever order the service lists them in), all of
// one dimension, none empty or with a NaN or infinite component;
// otherwise it returns an error wrapping ErrBadResponse (what the service
// said) or ErrRemote (the service refused or failed), and no vectors.
package embed
