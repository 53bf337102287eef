// Package ingest turns each provider's raw streaming events — the JSON
// objects exactly as OpenAI Responses, OpenAI Chat Completions (and every
// OpenAI-compatible server), Anthropic Messages and Gemini streamGenerateContent
// sent them — into Toolstream's canonical model events (package events):
// ResponseStarted, OutputItemAdded, ArgumentsDelta, ArgumentsDone,
// OutputItemDone, ItemAborted, TextDelta and one terminal event per response
// (ResponseCompleted, ResponseIncomplete or ResponseFailed). With
// Config.TaggedText it also finds <tool_call>{…}</tool_call> calls written
// into display text. ReadEvents reads producer input (JSON lines or raw SSE).
//
// A Normalizer is a pure, deterministic adapter for one stream: Feed takes
// one raw event and returns the canonical events it implies; its state is
// serialisable (MarshalState, Restore) so the ingest projection can keep it
// in Pebble between events and resume after a restart. The per-protocol
// rules are documented next to each adapter (responses.go, chat.go,
// anthropic.go, gemini.go, tagged.go).
//
// Decoding: a stream whose format is known has its raw events read once by
// a scanner (jsonscan.go) that checks the JSON and pulls the few fields the
// adapter reads, without reflection or a second validation pass (every
// format: Responses, Chat Completions, Anthropic, Gemini). It
// decides only what it is sure encoding/json would decide the same way;
// anything else (malformed bytes, duplicate or case-folded keys, a value of
// an unexpected type…) goes to the encoding/json path, which gives the
// typed errors. FuzzScanMatchesEncodingJSON checks the two agree. A whole
// (non-streamed) answer becomes the events its streamed form would have
// sent (whole.go: StreamEventsOf); a Chat Completions answer is read once
// by the scanner into the chunks those events decode to (DecodeWhole,
// Stream.FeedWhole: wholedecoded.go), never written out as JSON and parsed
// again. FuzzDecodeWhole checks the two ways agree.
//
// Invariants kept here (numbers from docs/design.md):
//
//   - 1, never execute an incomplete call: a completion signal
//     (ArgumentsDone, OutputItemDone for a function call) is emitted only when
//     the provider's protocol says the call is complete — Responses'
//     function_call_arguments.done / output_item.done (status completed),
//     Chat's finish_reason tool_calls/stop, Anthropic's content_block_stop
//     confirmed by a stop_reason that is not max_tokens, Gemini's empty
//     closing functionCall or a finishReason that is not a cut, and the
//     closing tag of tagged text. Nothing here counts braces or guesses from
//     the JSON. Truncation, content filters, cancellation and failures end the
//     response with the calls left open, so the assembler makes them
//     CallIncomplete. Provider-executed tools are ItemServerTool, never
//     client calls.
//   - 2, one buffer per call identity: every call gets an item id unique
//     within its response (provider item/call ids, else stable synthetic ids
//     such as "choice0.tool1.3", "cand0.call2", "block4", "tag0"); parallel
//     calls, choices and candidates never share one, and the same call always
//     keeps its item. The provider's call id is carried as CallID.
//   - 6, replay equals live: output depends only on the configuration, the
//     state and the event — no clock, no randomness, and no map iteration
//     decides anything (the state holds slices only). MarshalState is
//     deterministic, and feeding after Restore yields exactly what feeding
//     the same Normalizer would have.
//   - 9, bad input gets a clear, typed error and loses nothing: bytes that
//     are not one JSON object, an object of no known shape, an oversize event
//     return errors wrapping events.ErrBadInput (see errors.go), and the
//     state is left unchanged, so the caller records a rejection and goes on.
//     Feed never panics on any JSON. Every buffer has a documented bound
//     (EventMax, ArgsMax, ItemsMax, ChoicesMax, ScansMax, PathDepthMax,
//     ArrayIndexMax, KeysMax); what happens at a bound is decided by the
//     input alone.
//
// Concurrency: the package holds no global mutable state. A Normalizer is
// not safe for concurrent use: feed one stream's events in order from one
// goroutine. Different Normalizers are independent.
package ingest
