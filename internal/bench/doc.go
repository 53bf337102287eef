// Package bench measures Toolstream against the simplest way of doing the
// same job with raw JetStream (or, off the bus, the simplest full
// computation), in one process and in the same run, so that the numbers it
// reports are ratios that mean something on any machine.
//
// Each measurement is an exported function that returns durations or
// latency samples (Backbone, AssemblerThroughput, CompletionLatency,
// ExecutorCalls, Verifier, MemoryRecall, Replay, SealedAssembler,
// SealedMemory, …; `toolstream bench --help` lists the rows); the `go test -bench`
// benchmarks of the packages measured and `toolstream bench` (Run) share
// them, so one idea is measured by one piece of code. Functions that need a
// log take a *bus.Bus whose stream they may fill; Run gives each
// measurement a fresh embedded server, because a projection starts from
// sequence 1 and must see only the events it is timed on.
//
// Nothing here asserts a timing: callers print, compare or report.
//
// Concurrency: the functions may run concurrently on distinct buses and
// directories; a Report is not safe for concurrent mutation.
package bench
