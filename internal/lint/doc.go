// Package lint holds the repository's architecture rules as tests, so a
// change that breaks one fails `go test ./...` rather than a review:
//
//   - dependencies point one way, as the one picture of the architecture
//     says: the table of docs/architecture.md ("Layout: layers and allowed
//     imports") gives each package its layer and the packages it may
//     import, and every package must have its row; besides, the
//     projections never import each other, nothing imports cmd/, only
//     cmd/ imports the bench and demo packages, and only cmd/, the demo,
//     bench and test harnesses import stack (the composition of a process);
//   - comments cite only files of the repository and no issue numbers, and
//     event ids are built only in package events;
//   - projection code is deterministic (docs/design.md invariant 6, replay equals
//     live): no wall clock, no randomness, no printing — time comes from the
//     event and the log, output goes through the outbox and the logger;
//   - no init(): a library's behaviour is what its constructor's config
//     says, never what importing it did, and the binary lists its commands
//     in one place (newRoot).
//
// It has no code of its own.
package lint
