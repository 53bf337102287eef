// Package constraint checks a final answer against its user's constraints
// in force: the memory records of kind constraint that held at the
// answer's time ("don't call me after 6pm", a shellfish allergy, a hotel
// budget's cap). It is a pure function of the answer and the constraints
// (no log, no view, no clock): the run driver reads the constraints from
// memory as of the answer's event time, checks the answer here and records
// the violations in the log (events.ConstraintsChecked), which the
// verifier projection applies as VerdictViolatesConstraint claims.
//
// What a constraint forbids is read from its slot as memory gives it:
//
//   - an item (subject food, drink or general, polarity negative; memory
//     gives "I'm allergic to shellfish" as food/shellfish): a sentence of
//     the answer that names the item or one of its kind (data/words.txt,
//     [items]: shellfish stands for shrimp, crab, 虾 …) where no word of
//     its clause before it leaves it out ("no shrimp", "avoid", 不含,
//     过敏 …, [negations]) and "-free" does not follow;
//   - a request (subject request, polarity negative; "No calls after 9pm"
//     is request/call=after 9pm): a sentence that names the action
//     ([actions]) not negated, and, when the constraint has a condition,
//     meets it: a clock time after (before) the condition's hour, a day
//     of the weekend for "on weekends" (周末), or else the condition's own
//     words; a request without a condition is violated by the action;
//   - a cap (subject limit, polarity positive, an amount as value; "my
//     hotel budget is capped at 150 euros" is limit/hotel budget=150
//     euros): a sentence that names the capped thing ([things]) and an
//     amount of the cap's currency above it, unless its clause says the
//     amount is over the cap ([over]).
//
// A lifted constraint (polarity positive of an item or a request) forbids
// nothing; whether a constraint is in force (lifted, superseded, expired)
// is memory's answer, not this package's. A violation names the sentence's
// span (rune offsets) and the constraint's record and version; its reason
// quotes the answer only, never the constraint's text or value, so that
// forgetting a memory record leaves nothing of it in a verdict.
//
// Invariants (docs/design.md): 6, deterministic: the same answer and
// constraints give the same violations in the same order (constraints in
// the order given, sentences in answer order); 7, it reads only what it is
// given, so a caller that gives one user's constraints checks against no
// one else's. A Checker is immutable after New and safe for concurrent
// use.
package constraint
