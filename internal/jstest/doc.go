// Package jstest finds the real JavaScript clients and the browser the Go
// tests drive: the official OpenAI and Anthropic SDKs, the NATS client for
// Node and puppeteer-core, installed by npm into testdata/js at the root of
// the repository, Debian's chromium, and the stock nats CLI (natscli, which
// the attack tests drive the server with).
//
// Where they are missing a test skips with a message that says how to
// install them; with TOOLSTREAM_REQUIRE_NODE=1 (or
// TOOLSTREAM_REQUIRE_CHROMIUM=1, TOOLSTREAM_REQUIRE_NATS=1) it fails instead. .ci/run installs them and
// sets both, so CI always runs those tests, while `go test ./...` stays the
// test command on a machine with Go only.
package jstest
