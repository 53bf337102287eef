// Package logtest is a log destination a test reads while the goroutines
// of what it runs (a server, a projector, an executor, a command) write to
// it: Buffer, a bytes.Buffer behind a mutex. It holds nothing between
// tests and is imported by tests only.
package logtest
