// Package gateway is Toolstream's HTTP front door for the official model
// SDKs: an endpoint an OpenAI or Anthropic client points its base URL at.
// It serves OpenAI Chat Completions (POST /v1/chat/completions), OpenAI
// Responses (POST /v1/responses) and Anthropic Messages (POST
// /v1/messages), streaming and not, and passes each request through to a
// configured upstream provider.
//
// # Passthrough
//
// A client authenticates with one of the configured keys (Authorization:
// Bearer or x-api-key; only their SHA-256 is configured), which names its
// tenant and optionally its user; an unknown key gets the provider's own
// 401 error shape (ErrorBody). The request goes upstream unchanged but for
// the credentials (the upstream's key) and, when the model is written
// "upstream-name/model", the model's prefix, which picks the upstream.
// Every upstream event is:
//
//  1. streamed back to the client unchanged, event for event, with an SSE
//     id: its position in the stream (0, 1, 2…); events the upstream sent
//     together are written together and flushed before the upstream read
//     waits for more (never held back while the upstream is quiet);
//  2. kept byte for byte on ts.gw.<tenant>.<api>.<stream> (stream TS_GW),
//     sealed under the user's data key, so resumption can replay it and
//     erasure reaches it: per flush window, the frames queued for the log
//     when it gets to them (at most 256 or 256 KiB) are one
//     events.StreamFrames, sealed once; the stream's end is an
//     events.StreamFrame with End (one message a frame, as older logs
//     hold them, is still read);
//  3. normalised at the edge and published as canonical model events,
//     sealed, by a client.Writer as any Go producer publishes them (the
//     calls are then assembled, verified and remembered as for any
//     producer): every frame but an empty one and Chat's [DONE], so one
//     that is not the JSON object it should be is refused as the edge
//     refuses a producer's (events.InputRejected, its open calls aborted). The client runs its calls itself, so none is executed
//     (client.Stream.ClientRuns: the executor skips them) unless the key
//     says execute: true or the request Toolstream-Execute: server.
//
// 2 and 3 run on a path of their own, at most logQueueMax frames behind 1
// (then the upstream read waits for the log); nothing of theirs sits
// between the upstream's first event and the client's. The upstream's
// connection is given back once its stream is read, before the log has
// it all. So a streamed frame reaches the client before the log has it:
// a process killed mid-stream loses the frames its client was sent that
// were not yet stored (at most logQueueMax and the window being stored),
// and the log holds no end for that stream; a resumption, through any
// gateway process, reads every stored frame exactly once, in order, and
// then waits for frames that will not come (TestAResumeAfterAKillMidStream).
// A whole answer is not given before it is stored. A non-streamed answer is kept as one sealed message
// (events.StreamAnswer: the answer, the request's prompt, the upstream
// that served it; a gateway before it kept three, still read). A 200 one
// is kept under the provider's response id on the condition that its
// subject holds nothing (Nats-Expected-Last-Subject-Sequence 0: no lookup
// before the store; taken, it keeps the gateway's id), and converted
// into the events its streamed form would have sent
// (ingest.DecodeWhole: a Chat answer is read once, into the chunks those
// events decode to, never written out as JSON and parsed again; the other
// APIs' through ingest.StreamEventsOf), which are normalised and published as 3 with
// the request's envelope while it is stored; the client gets the answer
// once both are in the log. One that cannot be converted is logged and
// publishes nothing, and still reaches the client unchanged.
//
// The upstream read does not depend on the client: a client that
// disconnects does not stop it, nor one that stops reading (a write that
// waited Config.ClientStall for it drops the client), and what arrived is
// logged to the end.
//
// # Models, embeddings, other paths
//
// GET /v1/models (and /v1/models/{id}) lists the models of the upstreams'
// models lists, in the OpenAI shape or, to a client that sends
// anthropic-version, Anthropic's; POST /v1/embeddings is passed to the
// OpenAI upstream the model names (nothing of it is logged: it is no
// model stream); every other path or method gets the provider's JSON
// error (404, 405), never Go's plain text.
//
// # Upstream pools and keys
//
// A model's upstreams are a pool (pool.go): drawn by weight, a failed
// attempt (unreachable, 408/429/5xx, no first event in time) retried on
// another or, after a backoff or its Retry-After, the same, behind a
// circuit breaker; nothing of a failed attempt reaches the client, and
// once it has a byte nothing is retried. A key's policy (keys.go) limits
// its models, expiry, requests and tokens a minute and budgets of tokens
// and USD per day and month, refusing in the provider's shape before
// anything goes upstream; usage is read from the answers (usage.go) and
// priced by the File's prices. Watch reloads keys and prices. The
// metrics are Collectors.
//
// # Resumption and heartbeats
//
// GET /v1/responses/{id}?stream=true&starting_after=N, and the same under
// /toolstream/v1/chat/completions/{id} and /toolstream/v1/messages/{id},
// read a stream's frames from the log after N (from the start without
// it), then follow it live until it ends. A Last-Event-ID header is the
// same as starting_after (what a browser's EventSource sends by itself);
// so is a POST carrying Last-Event-ID and the Toolstream-Stream header the
// gateway answered the first time: it resumes the stream instead of
// calling the upstream again. A stream this gateway is still relaying is
// found even before its first frame is stored (another gateway process
// finds it once it is), and at every instant after: the gateway asks
// whether it relays the stream before it asks the log, and forgets it only
// once all of it is stored. While a streamed response is open an SSE
// comment is sent every Config.Heartbeat (default 10 s); SDKs ignore
// comments.
//
// In run mode a Responses request with "background": true is OpenAI's
// background mode (background.go): answered at once (queued), polled with
// GET /v1/responses/{id}, cancelled with POST /v1/responses/{id}/cancel,
// its answer streamed (and resumed with starting_after) once the run ended.
//
// # For run mode (package agent)
//
//   - Gateway.Stream sends one request upstream and publishes and keeps
//     every event as passthrough does, handing each frame to a callback as
//     it arrives (Call, Frame, Result).
//   - A request carrying "Toolstream-Mode: run" is handed, after
//     authentication, to Config.Runner (Runner.ServeRun) with the parsed
//     Request; without a Runner it gets a 501 in the provider's shape.
//   - SSEWriter is the writer every streamed response uses (ids,
//     heartbeats, comments); run mode's stream uses it too.
//   - A run of a user writes the user's messages to memory and is given
//     the user's recalled memory each round (agent.MemoryConfig, the
//     File's memory section); a key's memory: false (Request.NoMemory) or
//     the request's Toolstream-Memory: off leaves it out.
//   - Run mode offers the built-in tools toolstream_plan and
//     toolstream_delegate unless the File's run section
//     (RunConfig: plans, delegate, replans_max, delegate_depth_max,
//     validated at load) or the key (Key.Plans, Key.Delegate false:
//     Request.NoPlans, NoDelegate) turns one off.
//
// # A hostile client (docs/security.md)
//
// Nothing a client does takes the process down: no goroutine touches a
// ResponseWriter after its handler returned (the upstream read writes
// through an SSEWriter the handler closes first), and a panic of one
// request is recovered, logged and counted (Panics). A key holds at most
// Limits.KeyRequestsMax requests under way and the gateway
// Limits.RequestsMax, counting the upstream reads and runs that outlive
// their client (429 / 503 with Retry-After); a body must arrive within
// Limits.BodyReadTimeout (408) and fit BodyMax (413). Serve's listener
// bounds the connections (package stack).
//
// A run and a stream belong to their user: a request's run is RunID(user,
// Toolstream-Run) and a response's frames are kept under its id scoped the
// same way, so a key bound to bob never reaches alice's run (a run's name
// is its first user's: bob naming it gets 404 and the model is not asked)
// nor, through an upstream that reuses response ids, her frames. A
// tenant's key without a user acts for the user it names in
// Toolstream-User. Only the headers of forwardedHeaders go upstream. A
// Responses request continuing a response (previous_response_id) goes
// upstream only when that response is the same user's (404 otherwise, as
// OpenAI answers an unknown id): the upstream's key, and the responses it
// stores, are every tenant's.
//
// Gateway is safe for concurrent use; each request has its own state.
// Invariants kept (docs/design.md): 8 (what the gateway writes is sealed per
// user), and bad input — a malformed body, an unknown API or upstream —
// gets a typed error in the provider's shape and loses nothing.
package gateway
