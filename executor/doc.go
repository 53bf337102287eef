// Package executor carries out completed calls: it consumes CallCompleted
// events, checks each call at a gateway, invokes the tool (http, command,
// or a Go Tool) under a lease, and publishes a typed outcome —
// CallSucceeded with a structured result, a bounded summary and, for large
// results, a reference into a JetStream object store, or CallFailed with an
// events.ErrorType and a message saying what to change.
//
// Executors are competing consumers of one durable pull consumer (explicit
// acks), in one process or many. The executor is not a projection: the state
// every executor must see is a record per call in a JetStream key-value
// bucket, changed only by compare-and-set on its revision. The record is
// keyed by the call's idempotency key (CallKey: tenant/run/step/call).
//
// How a call goes (the order is the correctness argument):
//
//  1. Gateway (invariant 1 again, and 7): the tool exists (at the version
//     pinned in the record once the call was first decided), the tenant
//     holds its permission (else permission_denied), the arguments validate
//     (else validation_error naming the field), there is an implementation.
//     A failure here is recorded and published; nothing runs.
//  2. Dependencies: calls listed in depends_on (same response) must have
//     succeeded; the wait holds no slot and no lease.
//  3. Approval (invariant 5): a tool with approval: required records
//     awaiting_approval, publishes ApprovalRequested and acks its input; the
//     wait lives in the record and the log and survives restarts. Approve
//     or Deny publishes the decision; the first recorded one wins.
//  4. Circuit breaker per (tenant, tool), then a per-tenant slot
//     (MaxParallelPerTenant).
//  5. Lease: the record is written, by compare-and-set, as running, owned by
//     this executor until now + LeaseTTL, with Invoked set. This write is
//     the re-check of the lease just before the side effect: it fails if
//     anyone else changed the record. A heartbeat renews the lease (CAS)
//     every Heartbeat; while any call is handled, its input is marked in
//     progress every Heartbeat (first within 1.5 × Heartbeat). A tool with
//     side_effect: none and no retries runs without a lease: running it
//     twice is harmless, so only its outcome needs the compare-and-set.
//  6. Invocation under the contract's timeout (provider_timeout). Retries
//     only as the contract says (retry.on, max_attempts, backoff); before a
//     retry the record clears Invoked, and before the next invocation it
//     sets it again by CAS.
//  7. Outcome: the outcome event is encoded and stored in the record (CAS,
//     so a late result of an executor that lost its lease never overwrites
//     it), then published with the deterministic Nats-Msg-Id ResultID(key),
//     and only then is the input acknowledged. A crash anywhere before the
//     ack redelivers the input; the record then says what to do: republish
//     the recorded outcome byte for byte, or take the call over.
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
// running anything; so is any redelivery of a decided call.
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
// per call,
// DependencyWaitMax per dependency wait, ResultBytesMax per result,
// SummaryMax per summary, conflictsMax re-reads per input.
//
// Time: leases and the circuit breaker use Config.Clock; lease expiry is
// compared across executors, so their clocks must agree to well within a
// Heartbeat. Invocation timeouts use the runtime's timers.
//
// Records are kept forever unless Config.RecordTTL bounds them; the
// bucket ("ts_exec") and the object store ("ts_results") are separate
// streams from the log.
//
// Concurrency: New and Run once per Executor; Stats, Approve and Deny are
// safe to call at any time. A Tool's Invoke is called concurrently.
package executor
