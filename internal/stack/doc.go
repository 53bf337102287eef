// Package stack composes Toolstream in one process: the catalogue of
// projections (every projection by name, the assembler's partitions
// included) and the stack a serve runs over a bus (Start, Run): the
// projections on a Node, the partition assemblers under their leases,
// the executor, the clock, the judge worker (package judging, when
// Config.Judge names a judge), the services of the views (digest, dump, memory,
// runs), metrics, the web console and the HTTP gateway. `toolstream serve`,
// `toolstream replay`, the demo and the tests build their projections and
// their servers here, so what they run is the same code.
//
// Invariants:
//   - A projection is built only by the catalogue (New): the same name and
//     the same Projections give the same projection in serve and in replay,
//     so a rebuilt view equals the live one. Replay leaves Preview nil: a
//     rebuild publishes nothing live.
//   - The catalogue's names are the projections' own (Name()), and a
//     partition assembler's name is assembler.PartitionName(p).
//   - A Stack stops everything it started, once, whatever Start reached:
//     the services before the views they read, the runners last (each lets
//     its in-flight batch commit); it never closes the bus it was given.
//   - A stack asked to stop (its context ended) stops with no error; a
//     component that fails stops the whole stack with that error.
//
// A Node runs projections in one process over a bus, each with its view
// under one directory: the part that serve's stack, the one-shot commands
// (Assemble, MemoryRun: each a whole command over a fresh log on a Scratch
// server), the demo and the tests share. Settle is how one-shot commands
// know they are done without sleeping: it waits until a projection has
// applied the last message in its stream and relayed everything it
// emitted; settling projections in data-flow order (ingest, assembler,
// executor…) drains the whole pipeline. A Node's methods are safe for
// concurrent use. Opening the log and its data keys is package bus's
// (bus.OpenWithKeys, bus.StartKeys); this package composes what runs on it.
//
// FormatRow is how a row of any catalogued view reads for people (replay
// --dump and --diff print through it; FormatRowParts, its key and value
// apart).
//
// Forget, WaitApplied and WaitErased are the commands' side of the view
// services: a forget or an erasure waits, through the digests a running
// stack answers, until the projections have rebuilt their views.
//
// The package owns no rules: it reads no flags and prints nothing. Errors
// wrap ErrUnknown and ErrUnknownComponent for names; those of the console,
// the metrics and the gateway name serve's flags (--console, --metrics,
// --gateway), as the bus's do, since that is what their user can change.
package stack
