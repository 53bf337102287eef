// Package demo runs Toolstream's customer-service story through the real
// path, on an embedded server in a temporary directory: recorded provider
// streams of four formats → calls assembled → tools run under the registry's
// contracts (a stock query, a parallel pair of shipping quotes, a refund that
// waits for approval and gets it, an invalid call rejected with a typed
// reason) → the final answer verified (a delivery promise the evidence does not support flagged) →
// memory updated (the spicy story) → every view rebuilt by replay and its
// digest compared with the live one.
//
// It is what `toolstream demo` prints, and a test of the whole system: Run
// returns an error when any step does not turn out as the story says.
package demo
