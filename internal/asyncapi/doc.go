// Package asyncapi writes the event catalogue of package events as an
// AsyncAPI 3.0 document (docs/asyncapi.yaml), for consumers in any
// language: the channels (subjects with their parameters, the stream that
// holds them, their headers), and every kind of event with its envelope and
// body — each field's msgpack key, type, Go name and doc comment — and how
// a sealed body is opened.
//
// The document is generated, never edited: Document reads the catalogue
// (events.Channels, events.NewBody) by reflection and the doc comments
// from the source of package events, so a field added to an event is in
// the document the next time it is generated, and TestDocumentIsCurrent
// fails until it is (go generate ./internal/asyncapi).
//
// Document is deterministic: the same catalogue and comments always give
// the same bytes. It holds no state and is safe to call concurrently.
package asyncapi

//go:generate go run ./gen -o ../../docs/asyncapi.yaml
