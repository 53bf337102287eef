// Package check is the verifier's checker: a model's final answer against the tool results
// that preceded it. A tool call can succeed and the answer can still say
// something its result does not — a number rewritten, a negation flipped, a
// value moved to another object, a promise nobody made. The verifier splits
// the answer into atomic claims and gives each one a verdict with a pointer
// into the evidence:
//
//   - supported: the evidence says it (the RFC 6901 pointers of the fields
//     used, with their JSON values; a count or an empty list is cited as
//     the array's pointer with its length as the value);
//   - contradicted: the evidence says otherwise (the conflicting field and
//     its value);
//   - unsupported: nothing in the evidence says it (a delivery promise when
//     the tool returned only stock);
//   - not_checkable: greetings, opinions, offers of help, questions;
//   - stale: the evidence says it, but every result it rests on is older
//     than its contract's fresh_for at the answer's time.
//
// Faithfulness is supported ÷ (supported + contradicted + unsupported + stale), and
// 1 when no claim is checkable.
//
// # How a claim is checked
//
// SplitClaims cuts the answer into claims (lines and list items, sentences,
// clauses; English and Chinese) with rune offsets. Each result is indexed
// on its own, once (package verifier/evidence's IndexEvidence; the
// projection does it when the result arrives and keeps the index in its
// view), and an answer is checked against the join of its evidence's
// indexes (the index is evidence's; this package reads it through
// evidence's API and holds the claims and their judging only): each
// JSON value becomes a leaf with its pointer; objects and arrays become
// nodes whose leaves are contiguous ranges; keys are read as concepts
// through a small bilingual lexicon (internal/lang/data/lexicon.txt: 库存 and "in stock" and
// in_stock all mean stock) and as units (weight_kg,
// price_usd, a sibling "currency"); names, ids and titles become subjects;
// tables ({"columns": […], "rows": [[…]]} or a header row) become rows
// named by their first cell; numbers are sorted by value, including numbers
// and dates written inside strings ("Ships in 5-7 business days", "launches
// on June 3") and a key's magnitude (销售额(万元), "Revenue ($M)"). Each
// claim is then read against the index, scoped and checked (claim.go:
// an immutable reading of what it says, a scope value, an ordered table
// of checks each returning facts, the facts combined into its verdict):
//
//   - subject: the objects whose names, ids or titles the claim mentions
//     (whole, by a code inside the name, or by a distinctive word of it)
//     scope the claim; a clause without its own subject continues the one
//     before it, and a number found only under another subject is a splice;
//     a new sentence naming a row by a value only that row has is about
//     that row, and a number its row holds another value of, in the one
//     field other rows hold that number in, is another row's value:
//     contradicted by its row's field (rowswap.go);
//   - numbers: value and unit with conversion (kg/g/lb/斤, km/m/mi, °C/°F,
//     minutes/hours/days, currency signs and codes, percent and fractions,
//     折), tolerance and the rounding the claim is written in, bounds ("more
//     than", 不到, 以内), ranges, and simple derived values (sums,
//     differences, products, ratios, percentage changes, counts, averages);
//     the field a number is checked against is the one named by the words
//     nearest to it, and its unit only agrees with it: what only the unit
//     says (kg: a weight) binds a number when the claim names nothing
//     else, and such a binding contradicts only when it is unambiguous
//     (binding.go: a claim is judged only against evidence about it;
//     amount_cents is read in hundredths; a count stated of a whole list
//     is compared with its length); of two or more fields of one kind in
//     an object (a due and a filed date, a deposit and a credit limit)
//     the claim binds the one its words name better than every other,
//     else a value one of them holds is never contradicted; and a value
//     held by a sibling the claim does not name, when it names another
//     (a qualifier of its key, closes beside opens_at, or its key spelled
//     near the number, "9 confirmed" beside members 9) is contradicted
//     by the field it names (siblings.go); a number an arithmetic cue
//     governs ("in all", "a day", "three points back", 一共, 每天, 倍, or a
//     count beside a price) is supported by a computation over the fields
//     the claim binds or unsupported, never contradicted by the nearest
//     field unless its key states a value of the cue's kind; a number that
//     sizes the rows ("two of the three", "once in eight") or labels a
//     thing ("in pen 5") is no field's value; a limit or a target field
//     (arrival_limit_min, 时限) never contradicts a value the claim states
//     of something else (arithcue.go, words.txt [arithmetic cues]);
//     against an excerpt (Evidence.Cuts)
//     a claim that names no row of its own ("the largest amount is 912")
//     is never contradicted by a row it holds, since the rows it left out
//     may hold the value: it is unsupported, and so is a superlative the
//     kept rows bear out; a claim of the field's max, min or mean is
//     checked against the statistics of the result's summary
//     (Evidence.Stats) instead, even when a kept row holds its number
//     (excerpt.go);
//   - time: dates, today/tomorrow/明天/后天, weekdays, "in 3 days", bounds
//     ("by Friday", 周五之前) and durations against evidence dates, resolved
//     against the answer's event time; a date binds the field whose key
//     names the event the claim says of it (shipped / dispatched_on,
//     到期 / expires; words.txt's [event verbs] and [event keys]) before
//     the others, and a day only another event's field holds contradicts
//     it (eventdates.go); a duration no field states is the span between
//     two times or two dates of one object (arrive and depart, reported
//     and repaired, "09:00-12:30"), and an end date a date plus a day
//     count beside it (issued and valid_days); a span that does not match
//     leaves a field of the whole it was bound to unbound (spans.go); a
//     day a row the claim does not name holds another of, while a date
//     of the whole holds it, is not contradicted by that row;
//   - negation: true/false fields and stock counts against the claim's
//     polarity (not, no, 不, 没有, out of stock, 缺货; 未支付 and unpaid by
//     their form), and a state value written as a negation (NOT_READY,
//     INACTIVE) against the word the claim states;
//   - status: order, payment, booking and weather words against status
//     fields (a shipped claim holds for a delivered order);
//   - scope: all/every/both/都/全部 and some/部分 check every member of the
//     collection the claim ranges over, none/no/没有任何/均未 is some denied
//     (a member in the state contradicts it), only/只 checks the others fail, and
//     always/一定/guaranteed over an estimate (eta, forecast, 预计) is
//     unsupported; a count of the members meeting a condition ("two of
//     the kilns are firing", 有两名学员没缴费, "Ines holds two permits") is
//     the number of members the claim without its count holds for, decided
//     only when every member's verdict is known, and contradicted only when
//     one list is named, no subject is, and some members meet the
//     condition and others fail it (countrows.go);
//   - comparisons and superlatives between subjects (cheaper than, 比…贵,
//     outperforms, the highest) and trends over year columns (rose in
//     2023);
//   - identifiers: a code of letters and digits (B44, SF1402238876541) is
//     compared exactly with identifier-like fields, a wrong one
//     contradicted by the field the claim names or the one shaped like it
//     (identifiers.go);
//   - outcome: a failed call or a denied approval contradicts a claim that
//     what it would have done happened (outcome.go);
//   - text: a claim matched to a sentence of evidence text that negates it
//     or moves the other way ("did not pay a dividend", "fell to") is
//     contradicted;
//   - anything else is judged by how many of the claim's words the evidence
//     in scope has; such verdicts are marked undecided.
//
// Claims the checker cannot decide with confidence are listed in
// Report.Undecided; an external judge may decide them (internal/judging
// asks it: the projection calls no network), and its verdicts are recorded
// as events so that replay applies them (package verifier's
// ApplyJudgeVerdicts) without calling the judge again.
//
// # What is here and what is not
//
// This package is the checker alone: it reads no log, keeps no view and
// calls no one. The evidence index, its stored encoding and the readers of
// words, numbers, units and dates that claims and evidence share are
// package verifier/evidence, which this package imports. Package verifier is the projection over it (results
// indexed when they arrive and kept, answers checked with CheckKept,
// verdicts recorded), the policies applied to a Report and the judges'
// verdicts; it names this package's types as its own, so callers import
// verifier only.
//
// # Invariants (numbers from docs/design.md)
//
//   - 6, replay equals live: Check is a pure function of the answer, the
//     evidence and the answer's event time. It reads no clock and no
//     randomness; object keys are walked in sorted order and every list it
//     returns is ordered by position in the answer or the evidence, so the
//     same input gives a byte-identical Report (and json.Marshal of it).
//     Of several results with one call id, the highest version counts. An
//     evidence index depends on its result only (a day written relative to
//     the time of reading is fixed when the answer is checked), encodes to
//     the same bytes every time, and CheckIndexed gives the Report Check
//     gives; so the projection's view, which keeps them, has the same
//     digest however the log is batched.
//   - 9, bad input loses nothing: evidence that is not JSON is skipped by
//     Check (package verifier's ValidateEvidence names it with
//     ErrBadEvidence so a projection can record the rejection), and no
//     answer text makes Check fail.
//
// Tenant isolation (7) is the caller's: Check sees only the evidence it is
// given, and a projection passes only the tenant's own calls.
//
// # Bounds
//
// Work per answer is bounded: at most CheckerConfig.ClaimsMax claims are
// checked (the rest are not_checkable, saying so) against the first 65536
// values of the evidence, and work per claim is
// bounded: derived values combine at most
// CheckerConfig.DerivedLeavesMax evidence numbers pairwise, a claim keeps
// at most EvidenceRefsMax pointers, a claimed number is matched against at
// most 256 evidence numbers of each value it may be read as (the first in
// document order), a claimed date, a state word, a number's named fields
// and a code's named identifier fields are each weighed against at most
// 4096 evidence fields, the first in document order (a state word whose
// only matching row comes later is contradicted by the first rows; see
// fieldsWeighedMax), a string value contributes at most 64 numbers and 256
// words to the index, and members meeting a condition are counted in lists
// of at most 200 (countedMembersMax).
//
// # Concurrency
//
// A Checker holds only its configuration and may be used by any number of
// goroutines at once; each Check, CheckIndexed and CheckKept joins its own
// index. An EvidenceIndex is not changed by checks and may be shared.
// SplitClaims, LatestEvidence and Faithfulness are pure functions.
package check
