// Package mcp serves the registry's tools to Model Context Protocol
// clients (Claude Desktop, Cursor, the OpenAI Agents SDK, the official
// SDKs) over the Streamable HTTP transport, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) speaking the protocol: serve
// --mcp ADDR mounts Server at /mcp. Import writes contracts for a whole
// MCP server's tools (toolstream tools import-mcp). The other way round, a
// contract whose mcp: names another server's tool, is the executor's;
// docs/mcp.md tells both.
//
// # Who sees what
//
// A client authenticates with Authorization: Bearer KEY, a key of the
// gateway's keys file (only its SHA-256 is configured), which names its
// tenant and optionally its user (else the Toolstream-User header names
// the user). No key, or a key not in the file, is 401 before anything is
// read. Each tenant has a server of its own (built from the registry in
// force, again when the registry changes): it lists and calls only the
// tools the tenant is granted, so a key of one tenant never lists or
// reaches another's tools — a name it does not have is an unknown tool,
// JSON-RPC -32602, as for a name nobody has.
//
// # tools/list
//
// The latest version of each granted tool, sorted by name, in pages of
// Config.PageSize with the SDK's opaque cursor. A name is its
// registry.WireName ([A-Za-z0-9_-], weather.get is weather__get: within
// MCP's rules and every model API's), the registry's own name in title;
// the input schema as the contract gives it (type object added where it
// names none), the output schema when it describes an object; annotations
// from the contract (side_effect none: readOnlyHint; irreversible:
// destructiveHint; idempotency required: idempotentHint).
//
// # tools/call: the durable path
//
// A call is not run here. It is published as a model's response would be
// (one function call of an OpenAI Responses stream, through client.Writer,
// sealed under the user's data key, with the tenant and user of the key):
// the assembler decides it against the registry (contract, schema,
// permission), the executor runs it (approval, sandbox, idempotency,
// retries), and the log keeps every step, exactly as for a call a model
// made through the gateway. The handler follows the call in the runs view
// (the call's run is its response) and answers with its outcome:
//
//   - succeeded: content is the result's JSON as text, structuredContent
//     the result when it is an object;
//   - rejected or incomplete (arguments that do not match the schema, a
//     permission not granted): isError, the assembler's reason and detail,
//     which say what to fix;
//   - failed or denied: isError, the error's type and message.
//
// While the call waits for an approval or runs, a client that sent a
// progressToken gets notifications/progress every Config.ProgressEvery
// (and on each change), saying what it waits for. The call belongs to the
// log, not to the request: a client that goes away leaves it running. A
// client that names the call — _meta["dev.toolstream/idempotency-key"]: K
// — gets the same call again when it calls again with K, the same tool and
// the same arguments (the response id derives from tenant, user, K, tool
// and canonical arguments, so the events are written once and the outcome
// is read back; K with other arguments is another call, never the first's
// outcome): the way to resume a call that waited longer than
// Config.CallWait, after which the handler answers isError saying the call
// still waits and which K to call again with (one it made up when the
// client named none).
//
// # Protocol revisions
//
// The handler is stateless (StreamableHTTPOptions.Stateless): no
// Mcp-Session-Id, every request stands alone, so any serve process answers
// any request. The SDK negotiates 2025-11-25 (initialize) and 2026-07-28
// (server/discover, per-request _meta, Mcp-Method/Mcp-Name checks,
// resultType); docs/mcp.md says where each revision's features stand.
//
// Server is safe for concurrent use. Invariants kept (docs/design.md): 1 and 9
// (a call is decided by the assembler and a rejected one is logged and
// answered with its reason), 5 (the executor's idempotency key: the same K
// is one call), 7 (a tenant's server holds its tools only; every event
// carries the key's tenant), 10 (no anonymous client: a key of the file).
package mcp
