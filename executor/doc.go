// Package executor carries out completed calls: it consumes CallCompleted
// events, checks each call at a gateway, invokes the tool (http, command,
// or a Go Tool) under a lease, and publishes a typed outcome —
// CallSucceeded with a structured result, a bounded summary (summary.go:
// a large array's count, fields, numeric statistics, value counts, first
// rows and extreme rows) and, for large
// results, a reference into a JetStream object store with a bounded excerpt
// the verifier reads (excerpt.go), or CallFailed with an
// events.ErrorType and a message saying what to change.
//
// Executors are competing consumers of one durable pull consumer (explicit
// acks), in one process or many. The executor is not a projection: the state
// every executor must see is a record per call in a JetStream key-value
// bucket, changed only by compare-and-set on its revision. The record is
// keyed by the call's idempotency key (CallKey: tenant/run/step/call, each
// part escaped by events.IdempotencyKey, so two calls never share a key
// by the way their ids are written).
//
// A decision that needs no lease — the outcome of a tool with
// side_effect: none and no retries, or a failure decided before anything
// runs — over a call that has no record is recorded in the log alone: its
// outcome event, published as the first message of the key's result
// subject (Nats-Expected-Last-Subject-Sequence: 0, the compare-and-set),
// is the record, and the bucket is not written. So whoever reads a record
// reads the bucket, then the key's outcome in the log; whoever would write
// the bucket for a call it knows no record of looks at the log first; and
// a decision in the log looks at the bucket just before it publishes
// (logrecord.go argues it, the race of two different calls under one key
// included). The looks of decisions made at the same time go to the
// bucket together, as one request (look.go), and their outcomes are
// published together, each with its own compare-and-set, in one window
// (window.go).
//
// How a call goes (the order is the correctness argument):
//
//  1. Gateway (invariant 1 again, and 7): the tool exists (at the version
//     pinned in the record once the call was first decided), the tenant
//     holds its permission (else permission_denied), the arguments validate
//     (else validation_error naming the field), there is an implementation.
//     A failure here is recorded and published; nothing runs.
//     A contract with authorize asks its service whether the call's user
//     may act on its object (authorize.go): a refusal is
//     permission_denied, no answer unavailable; nothing runs.
//  2. Dependencies: calls listed in depends_on (same response) must have
//     succeeded; the wait holds no slot and no lease.
//  3. Approval (invariant 5): a tool with approval: required records
//     awaiting_approval, publishes ApprovalRequested and acks its input; the
//     wait lives in the record and the log and survives restarts. Approve
//     or Deny publishes the decision; the first recorded one wins.
//  4. Circuit breaker per (tenant, tool), then a per-tenant slot
//     (MaxParallelPerTenant).
//     A contract with an object then holds it (object.go): another
//     call holding it hands the input back until it ends or its hold
//     runs out; a change based on another version than the object's is
//     object_conflict, and nothing runs.
//  5. Lease: the record is written, by compare-and-set, as running, owned by
//     this executor until now + LeaseTTL, with Invoked set. This write is
//     the re-check of the lease just before the side effect: it fails if
//     anyone else changed the record. A heartbeat renews the lease (CAS)
//     every Heartbeat; while any call is handled, its input is marked in
//     progress every Heartbeat (first within 1.5 × Heartbeat). A tool with
//     side_effect: none and no retries runs without a lease: running it
//     twice is harmless, so only its outcome needs the compare-and-set,
//     and for a call with no record that is the publish of its outcome.
//  6. Invocation under the contract's timeout (provider_timeout). Retries
//     only as the contract says (retry.on, max_attempts, backoff); before a
//     retry the record clears Invoked, and before the next invocation it
//     sets it again by CAS. A Go tool marked Immediate (it returns at
//     once: no I/O, no wait) runs on its call's handler with no goroutine,
//     timer or context of its own; its timeout is checked when it
//     returns, and a later result is dropped as any other.
//  7. Outcome: the outcome event is encoded and stored in the record (CAS,
//     so a late result of an executor that lost its lease never overwrites
//     it), then published with the deterministic Nats-Msg-Id events.ResultID(key),
//     and only then is the input acknowledged. The two are not sent at
//     once: the record write is the lease's fence, and a result published
//     beside a write that then fails would be a late result in the log. A
//     decision recorded in the log alone is one publish. Every outcome
//     message carries the input's sequence and the call's tool name in
//     headers (Ts-Input-Seq, Ts-Call-Name). A crash anywhere before the
//     ack redelivers the input; the record then says what to do: republish
//     the recorded outcome byte for byte, or take the call over; an
//     outcome in the log alone is acknowledged as a duplicate, and a
//     side-effect-free call with none yet runs again.
//
// Crashes (invariant 5, side effects at most once per key): when an
// executor dies its lease runs out (LeaseTTL, 3 to 5 × Heartbeat, also the
// consumer's AckWait) and the input is redelivered to another executor.
// If the record says an invocation had begun, a tool with idempotency:
// required is invoked again with the same key (Idempotency-Key header,
// TOOLSTREAM_IDEMPOTENCY_KEY, Call.Key); a tool with idempotency: none and a
// side effect is never invoked twice: the call ends with outcome_unknown,
// for a person to reconcile. A second CallCompleted of a call already
// recorded (a duplicate under another Nats-Msg-Id) is acknowledged without
// running anything; so is any redelivery of a decided call. A call whose
// key is already another call's (another response or item, another tool,
// or the same item with other arguments) is not run and never silently
// dropped: it gets a CallFailed idempotency_conflict on the key's result
// subject, id events.ConflictID(key, its input's sequence), its envelope
// naming the refused call; the other call's record is left alone. One race
// is weaker: a call with a side effect that starts under a key while a
// side-effect-free call under the same key is decided in the log, within
// the time of one read, runs, and is then refused saying that it ran (its
// outcome stays in its record); logrecord.go says why.
//
// Tools get only what their contract names (invariant 10):
//
//   - A command tool starts with a minimal environment: PATH (PathDefault
//     unless its env gives one), HOME and TMPDIR in a fresh private
//     directory per invocation (under Config.TempDir, removed after it),
//     LANG=C.UTF-8, the TOOLSTREAM_* variables, and what its env names —
//     nothing else of the executor's (cloud credentials, NATS passwords).
//     Its program is found on that PATH.
//   - Secrets in a contract are references (${env:NAME}, ${file:PATH});
//     the executor resolves them at every call, so the registry, the log
//     and the views hold only the reference. One that cannot be resolved
//     fails the call with unavailable, naming the reference, never a value,
//     and nothing runs or is sent.
//   - What a secret resolved for a call is never leaves its tool
//     (redactor): the value, its JSON-escaped, URL-escaped, base64 and
//     hex forms become [redacted:NAME] (NAME its variable or header) in
//     all a command or http tool returns — the result, a typed error's message,
//     the end of stderr, an upstream's error body — before the executor
//     records, publishes or logs it, so CallFailed, CallSucceeded, the
//     console and serve's log hold the marker. A tail that cuts through a
//     secret drops what is left of it; a result whose secret cannot be
//     replaced within its JSON is withheld (tool_error). Values shorter
//     than secretRedactMin bytes are not hidden.
//   - A command tool's stdout is read by the executor itself and capped at
//     ResultBytesMax while it is read: at the first byte past it the
//     program's process group is killed and the call fails (tool_error).
//     The group is killed after every run, finished or not (a background
//     child never outlives its call), before the program is reaped, so the
//     kill cannot reach a reused process id. What leaves the group
//     (setsid, a double fork) is ended too (command_linux.go): each
//     program runs in a cgroup v2 of its own where the executor can make
//     one, killed whole (cgroup.kill) when the run ends; elsewhere the
//     executor is a child subreaper and kills and reaps the orphans
//     reparented to it. A sandboxed tool's processes also live in
//     bubblewrap's pid namespace, which ends with the tool.
//   - An http tool follows no redirect, unless its contract says
//     follow_redirects: same_origin, and then only to the same scheme,
//     host and port; any other redirect is a tool_error, decided before
//     anything (arguments, headers) is sent to where it points. Answers are
//     read up to ResultBytesMax, then the connection is dropped.
//   - A command tool with a sandbox runs under bubblewrap (BwrapPath) with
//     rlimits set by prlimit (PrlimitPath): namespaces of its own (network
//     none: loopback only), no capabilities, a minimal root read-only —
//     the system's programs and libraries, the few files of /etc a program
//     needs (name resolution only with network host), the program, a
//     private /dev, /proc and /tmp, its private directory writable, and
//     exactly the paths its sandbox.read and sandbox.write name, never a
//     Config.Hidden directory (serve's --data) — memory as RLIMIT_DATA and
//     a watch of the processes' resident memory (watchMemory: the rlimit
//     alone is escaped by mapping over a reservation), cpu as RLIMIT_CPU.
//     Each kind of sandbox is
//     tried once (`true` in it) before a tool first needs it; where that
//     fails — no bubblewrap, no user namespaces — tools that ask for a
//     sandbox are refused with unavailable, never run unconfined. Without
//     a sandbox a command tool runs as the executor's user and can read
//     what that user can (/proc included): its code is trusted to do what
//     its contract says.
//
// Tenants never meet (invariant 7): record keys, subjects, object names and
// log lines carry the tenant; an approval names a key of its own tenant;
// grants are per tenant; parallelism and circuit breakers are per tenant.
// Bad input (invariant 9): an undecodable call event is logged and
// terminated; a call that fails the gateway gets a typed CallFailed.
//
// Bounds: InFlightMax inputs per executor, MaxParallelPerTenant
// invocations per tenant and 4 × as many waiting (more are handed back, so
// one tenant's backlog cannot hold the others up), TakeoversMax takeovers
// per call, a handed-back input's wait (drawn below a bound that doubles
// with its deliveries: handback.go),
// DependencyWaitMax per dependency wait, ResultBytesMax per result (held
// while it is read: command output and http answers never past it),
// SummaryMax per summary, conflictsMax re-reads per input, loggedScanMax
// messages of a result subject read to find the key's outcome,
// lookBatchMax keys per look at the bucket made for many decisions at once
// (look.go).
//
// Time: leases and the circuit breaker use Config.Clock; lease expiry is
// compared across executors, so their clocks must agree to well within a
// Heartbeat. Invocation timeouts use the runtime's timers.
//
// Records are kept forever unless Config.RecordTTL bounds them; the
// bucket ("ts_exec") and the object store ("ts_results") are separate
// streams from the log. An outcome recorded in the log alone is kept as
// long as the log keeps the key's result subject, and CallStatus, which
// reads the bucket, does not see it.
//
// Concurrency: New and Run once per Executor; Stats, Approve and Deny are
// safe to call at any time. A Tool's Invoke is called concurrently.
package executor
