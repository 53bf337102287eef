package ingest

import "github.com/toolstream/toolstream/events"

// Every error this package returns for bad input wraps events.ErrBadInput, so
// a caller can record the raw event as rejected and go on (DESIGN invariant
// 9). Errors that are not bad input (an io error of the reader, an error
// returned by a caller's callback) are returned as they are.
var (
	// ErrMalformedInput is returned by Feed and Detect for bytes that are not
	// one JSON object: invalid JSON, an array, a string, trailing garbage.
	ErrMalformedInput = events.BadInput("ingest: malformed input")

	// ErrUnknownShape is returned by Feed for a JSON object that the stream's
	// format does not recognise: an Anthropic event without a "type", a Chat
	// Completions chunk without "choices", a field of the wrong JSON type.
	// Unknown event *types* of a known shape are not errors: they are ignored,
	// because providers add new types all the time. So are fields the
	// adapter does not read, except a key one byte off a field it reads at
	// that place: that is a corrupted name, whose value (a call's bytes)
	// would be passed over unread (scanner.other, misspells).
	ErrUnknownShape = events.BadInput("ingest: unknown event shape")

	// ErrUnknownFormat is returned by ParseFormat for a name it does not know,
	// by Detect for an object that belongs to no supported format, and by Feed
	// when the configured format is not one of the Format constants.
	ErrUnknownFormat = events.BadInput("ingest: unknown format")

	// ErrTooLarge is returned when one raw event exceeds EventMax bytes
	// (Feed, ReadEvents).
	ErrTooLarge = events.BadInput("ingest: event too large")

	// ErrBadState is returned by Restore for bytes that are not a state written
	// by MarshalState, or a state of another format than the Config names.
	ErrBadState = events.BadInput("ingest: bad adapter state")
)
