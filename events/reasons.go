package events

// Reason is a typed rejection or incompleteness reason. Reasons leave the
// process (in events and CLI output), so they are stable strings.
type Reason string

const (
	ReasonInvalidJSON     Reason = "invalid_json"     // arguments are not JSON
	ReasonNotAnObject     Reason = "not_an_object"    // arguments are JSON but not one object
	ReasonUnknownTool     Reason = "unknown_tool"     // no such tool in the registry
	ReasonSchemaViolation Reason = "schema_violation" // arguments fail the tool's input schema
	ReasonPermission      Reason = "permission_denied"
	ReasonTooLarge        Reason = "too_large"      // arguments exceed the size limit
	ReasonTruncated       Reason = "truncated"      // max_tokens / length
	ReasonStreamFailed    Reason = "stream_failed"  // provider error, failed response
	ReasonCancelled       Reason = "cancelled"      // cancelled by the client or provider
	ReasonTimedOut        Reason = "timed_out"      // no completion before the idle deadline
	ReasonStreamEnded     Reason = "stream_ended"   // the input ended with the call still open
	ReasonDiscarded       Reason = "discarded"      // the provider abandoned the item (new message began)
	ReasonContentFilter   Reason = "content_filter" // stopped by a content filter
	ReasonMalformedEvent  Reason = "malformed_event"
	ReasonDuplicateCall   Reason = "duplicate_call" // the item was already decided
	// ReasonQuotaExceeded: the tenant was over one of its quotas (raw
	// events or bytes per second, calls open at once, user data keys:
	// ErrKeyQuota), so the stream, the call or the event was refused; the
	// raw events stay in the log.
	ReasonQuotaExceeded Reason = "quota_exceeded"
	// ReasonInvalidDependency: the call's $depends_on names itself, a call
	// not given before it in the same response, or is not a list of ids.
	ReasonInvalidDependency Reason = "invalid_dependency"
	// ReasonBadKey: the data key of the event's user (or memory record)
	// as stored is not a key (ErrBadKey), so its body could not be sealed
	// or opened; the user's other events get the same, other users' go on.
	ReasonBadKey Reason = "bad_key"
)

// Reasons a registry change is refused (package registry): the registry in
// force stays.
const (
	ReasonRegistryUnsigned     Reason = "registry_unsigned"      // no signature (or an event written before signing)
	ReasonRegistryUnknownKey   Reason = "registry_unknown_key"   // signed by a key the processor does not trust
	ReasonRegistryBadSignature Reason = "registry_bad_signature" // the signature does not verify
	ReasonRegistryStale        Reason = "registry_stale"         // issued no later than the registry in force
	ReasonRegistryTooLarge     Reason = "registry_too_large"     // spec larger than registry.SpecBytesMax
	ReasonRegistryInvalid      Reason = "registry_invalid"       // spec not canonical JSON, not a registry, or not its digest
)

// ErrorType is the executor's error taxonomy, fed back to the model.
type ErrorType string

const (
	ErrValidation       ErrorType = "validation_error"
	ErrPermissionDenied ErrorType = "permission_denied"
	ErrApprovalDenied   ErrorType = "approval_denied"
	ErrProviderTimeout  ErrorType = "provider_timeout"
	ErrBusinessRejected ErrorType = "business_rejected"
	ErrToolError        ErrorType = "tool_error"
	ErrUnavailable      ErrorType = "unavailable"
	ErrOutcomeUnknown   ErrorType = "outcome_unknown"
	ErrUnknownTool      ErrorType = "unknown_tool"
	// ErrIdempotencyConflict: the call's idempotency key is already another
	// call's (same tenant, run, step and call id, but another response,
	// item, tool or arguments), so it is not run: send it under a call id
	// of its own.
	ErrIdempotencyConflict ErrorType = "idempotency_conflict"
	// ErrObjectConflict: the call changes a business object (its
	// contract's object) that changed since the version the call is based
	// on ($object_version, or, without one, since the last change its own
	// run made), so it is not run: read the object again and, if the
	// change still applies, call again with $object_version set to the
	// version the message names.
	ErrObjectConflict ErrorType = "object_conflict"
)
