// Package node runs Toolstream's projections in one process over a bus: the
// wiring that `toolstream serve` (through package stack, which adds the
// partitions, the executor and the services), the one-shot commands
// (Assemble, MemoryRun: each a whole command over a fresh log), the demo
// and the tests share. It owns no rules of its own.
//
// Settle is how one-shot commands know they are done without sleeping: it
// waits until a projection has applied the last message on its subjects and
// relayed everything it emitted; settling projections in data-flow order
// (ingest, assembler, executor…) drains the whole pipeline.
//
// A Node's methods are safe for concurrent use.
package node
