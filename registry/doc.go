// Package registry is Toolstream's tool registry: the contracts of the tools
// that exist and the permissions granted to each tenant. The assembler
// validates completed calls against it; the executor's gateway checks it
// again before anything runs. Projections never import each other, so the
// registry lives here, on its own.
//
// A tools file (YAML, or JSON) uses these field names, which are fixed:
//
//	tools:
//	  - name: orders.refund
//	    version: 2
//	    description: Refund an order.
//	    input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
//	    output_schema: {type: object}
//	    timeout: 10s
//	    retry: {max_attempts: 1, backoff: 1s, on: [provider_timeout]}
//	    idempotency: required        # required | none
//	    permission: orders.refund    # scope the tenant must be granted
//	    side_effect: irreversible    # none | reversible | irreversible
//	    approval: required           # none | required
//	    coerce: false                # allow "12" -> 12 where the schema wants a number
//	    http:
//	      url: "http://127.0.0.1:8080/refund"
//	      headers: {X-Api: v1, Authorization: "Bearer ${env:REFUND_TOKEN}"}
//	      follow_redirects: none     # none | same_origin
//	    # command: ["/usr/local/bin/refund", "--json"]
//	    # mcp: {url: "https://tools.example/mcp", tool: refund, headers: {Authorization: "Bearer ${env:MCP_TOKEN}"}}
//	    # mcp: {command: [/usr/local/bin/orders-mcp, --stdio], tool: refund}
//	    # env: [AWS_REGION]          # or {NAME: value}, e.g. {DB_PASSWORD: "${file:/run/secrets/db}"}
//	    # sandbox: {network: none, filesystem: readonly, read: [/srv/maps], write: [/srv/out], memory: 256MiB, cpu: 10s}
//	    object: "order:{order_id}"   # the business object a call changes
//	    authorize: {http: "http://127.0.0.1:8081/may-act", headers: {Authorization: "Bearer ${env:AUTHZ_TOKEN}"}}
//	grants:
//	  - tenant: acme
//	    permissions: [orders.refund, weather.read]
//
// mcp names a tool of an MCP server (its Streamable HTTP endpoint; tool
// defaults to the contract's name): the executor calls it with the
// arguments, and the idempotency key in _meta and an Idempotency-Key
// header. mcp: {command: [...]} instead of url is a stdio server the
// executor runs per call as a command tool's program (env and sandbox
// apply). The contract (schemas, permission, side effect, approval,
// timeout) is the operator's, as for any tool.
//
// A tool with none of http, command and mcp is implemented by a Go Tool
// registered with the executor. Schemas are JSON Schema draft 2020-12 by
// default and must be self-contained ($ref to files or URLs is refused).
// Parse explains every problem by field path (tools[0].retry.on[1]) and
// refuses contracts that would break a promise: an irreversible tool
// without approval, or a tool that has a side effect and no idempotency but
// retries on provider_timeout or tool_error (a retry could repeat the
// effect).
//
// object names the business object a call changes, from its arguments:
// text with {field} placeholders, each a top-level argument the input
// schema declares and requires ("order:{order_id}",
// "account:{bank}/{number}"; {{ and }} write a literal brace). The key is
// the text with each placeholder replaced by the argument (a string,
// number or boolean, not empty), at most ObjectKeyBytesMax bytes. A tool
// with side_effect: none cannot name one. The executor serialises the
// changes of one object of a tenant, whichever run or user makes them, and
// keeps its version; a call may say which version its change is based on
// in the reserved argument $object_version (ObjectVersionField), which
// Validate takes out of the arguments before the schema sees them.
//
// authorize names a service the executor asks, before the call runs,
// whether the call's user may act on its object (executor package doc:
// Authorisation); a refusal is permission_denied and nothing runs.
//
// Secrets are references, never values (docs/design.md invariant 10): a header
// or env value may hold ${env:NAME} (the executor's variable NAME) or
// ${file:PATH} (an absolute path; one trailing newline is dropped), alone
// or within text ("Bearer ${env:TOKEN}"; $${ is a literal ${). The
// executor resolves them at every call; the registry, its Spec and Digest,
// the log and the views hold only the reference. A literal value is
// refused where the name says it carries a credential: the headers
// Authorization, Proxy-Authorization, Cookie and any header or variable
// whose name ends in -Key, -Token, -Secret, -Password, -Auth, -Signature,
// -Credentials or ApiKey (case-insensitive, '-' or '_').
//
// What a command tool gets: the arguments on stdin and a minimal
// environment — PATH (/usr/local/bin:/usr/bin:/bin), HOME and TMPDIR (a
// private directory per invocation), LANG (C.UTF-8), the TOOLSTREAM_*
// variables — plus only what env names. env is a list of names, each
// passing the executor's variable of that name (canonically NAME:
// "${env:NAME}"), or a mapping of names to values; it may replace PATH
// and LANG, never HOME, TMPDIR or TOOLSTREAM_*.
//
// sandbox confines a command tool (the executor refuses to run it where
// it cannot): network none (the default: a network namespace of its own,
// loopback only) or host; filesystem readonly (the default and only mode:
// a minimal root, read-only — the system's programs and libraries, the
// program itself, the files of /etc a program needs to start — with a
// private /dev, /proc and /tmp, and its private HOME and TMPDIR
// writable; nothing else of the host); read and write, host paths the
// tool sees at the same place, read-only and writable (absolute, never
// "/", /proc or /dev); memory, a size
// in B, KiB, MiB or GiB (16MiB to 1024GiB) bounding each process's private
// writable memory; cpu, whole seconds bounding each process's CPU time.
// An empty sandbox: {} takes the defaults and no limits.
//
// follow_redirects: an http tool follows no redirect by default: a
// redirect fails the call, and nothing is sent to where it points.
// same_origin follows redirects to the same scheme, host and port only.
//
// Invariants kept here (numbers from docs/design.md):
//
//   - 1, never execute an invalid call: Validate is the one gate (tool
//     exists, tenant holds its permission, arguments match the input
//     schema), shared by the assembler and the executor.
//   - 5, side effects at most once: the contract says which tools may be
//     re-invoked with the same idempotency key (idempotency: required) and
//     which never may (idempotency: none with a side effect); see
//     Tool.AtMostOnce.
//   - 7, tenants never meet: grants are per tenant; Allowed and Validate
//     refuse an empty tenant.
//   - 9, bad input gets a clear, typed error: Validate returns an
//     events.Reason and a detail saying which field is wrong and what it
//     should be; a tools file that no longer parses leaves the previous
//     registry in effect (Watcher, Follower); a refused registry change is
//     a *ChangeError with its events.Reason (registry_unsigned, …).
//   - 10, tools get only what their contract names: secrets are
//     references (the spec holds ${env:…}/${file:…}, never a value), a
//     command tool's environment is what env lists, and sandbox says how it
//     is confined. Only the operator decides what runs: a registry change
//     takes effect only when signed by a key the reader trusts (below).
//
// Hot reload: a Watcher polls the file (modification time, size, then
// content hash) and, given WatcherConfig.JS, keeps it the registry in force
// in the log with Publish: a signed events.RegistryChanged on Subject, id
// events.RegistryChangedID, written by compare-and-set on the subject's last sequence so
// concurrent publishers record a change once. A Follower keeps the registry
// in force in the log for processes that do not read the file. A
// projection that validates calls takes the registry from the
// RegistryChanged events it applies (Accept; Accepter for one that may not
// import this package), so replay sees the registry each call was decided
// with.
//
// Signed changes. The operator's SigningKey (ed25519; PEM PKCS #8 on disk:
// WriteKeyPair, LoadSigningKey) signs every change: Sign covers a
// domain-separation prefix, the digest, IssuedAt, the key's id, the source
// and the canonical spec, each length-prefixed. Readers hold a Trust of
// public keys (PEM PKIX: LoadTrustedKeys; a file may hold several, to
// rotate). Accept checks, cheapest first and before anything is parsed,
// the spec's size (SpecBytesMax), the signature under a trusted key and the
// digest; then that the change was issued after the registry in force, so
// a change published again later never rolls the registry back
// (registry_stale) and the same change again is a no-op; only then does it
// parse the spec, which must be canonical JSON (Registry.Spec), never
// YAML. Anything else is refused with its reason and the registry in force
// stays. A nil or empty Trust trusts nothing. The decision depends only on
// the events, so a replay decides the same way: the registry in force at a
// point of the log is the change that verifies and parses with the latest
// IssuedAt, which a late Follower finds without parsing every change.
//
// The file wins over the log: Publish, and the Watcher at every poll, look
// for the registry in force among the changes that verify, not at the last
// event, and record the file again, issued after every signed change of the
// log, whenever the registry in force is not the file's or anything was
// appended after it (a forgery, a replay): an edit always takes effect and
// a forgery is answered at the next poll.
//
// Budgets. A tools file is at most FileBytesMax bytes and 64 levels deep;
// YAML anchors and aliases are refused (a few hundred bytes of them expand
// to gigabytes); a JSON number has at most NumberBytesMax characters and an
// exponent within ±ExponentMax (the schema library would build
// 10^99999999); a schema has at most SchemaValuesMax values and applies at
// most SchemaFanOutMax subschemas to one value, with no $ref cycle at one
// place; Validate refuses arguments whose values times that fan-out exceed
// ValidateStepsMax. A panic of the schema library on a file or on
// arguments is an error, never a crash.
//
// Concurrency: a *Registry is immutable and safe for concurrent use, and so
// are the *Tool values it returns (which must not be modified). A nil
// *Registry is "no registry": every tool is accepted with its arguments
// unchanged. Watcher.Current and Follower.Current are safe for concurrent
// use.
package registry
