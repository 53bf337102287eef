package bus

// Retryable is ensureStream's judgement of an error.
var Retryable = retryable
