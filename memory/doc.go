// Package memory is the deterministic core of the memory projection: it
// turns memory events (events.MemoryObserved, MemoryCorrected,
// MemoryForgotten, UserMessage) into long-term memory records of one user
// of one tenant, and recalls them; and the memory service (Service), which
// writes them and answers from the view.
//
// A record says one thing about its user: a preference, a constraint, a
// fact, or an episode (a turn of conversation kept as it is). A record
// other than an episode holds a slot — subject, attribute (e.g. food/spicy)
// and scope — with a value and a polarity. The rules (Engine.Apply):
//
//   - The same slot, kind, value and polarity said again reinforces the
//     record (confidence and use up, observed time moved), never duplicates
//     it, whatever the record's status: a superseded or expired record said
//     again after its end is current again (so that which record a
//     statement merges into never depends on a status that a record erased
//     later gave it, and a rebuild after erasure merges as live did); the
//     same observation id applied again is a no-op.
//   - A correction (naming the record and the version it read) writes a new
//     version; the old one stays, superseded, linked both ways. A stale
//     version is ErrVersionConflict: no lost updates.
//   - A newer statement in the same slot (subject, attribute, scope) that
//     contradicts the older one (other polarity or value) supersedes it,
//     except that a constraint stays in force over anything but another
//     constraint (which lifts it) until its validity ends, and that a
//     constraint and a preference never supersede each other: "I can't eat
//     spicy food these days" stands beside "I love spicy food" (and ranks
//     over it), and once "I can eat spicy food again" lifts it the
//     preference is current as it was. A lift whose own slot holds no ban
//     takes the slot of the ban in force it means, found by the meaning of
//     the two things (lift_meaning.go: "climbing steps" lifts a ban on
//     stairs), and supersedes it there; the shipped word vectors are
//     fixed, so replay equals live. A lift near a ban in meaning ends it
//     only when the language data (data/things.txt) shows the lift's thing
//     to be the ban's, a synonym of it (steps, stairs) or broader than it
//     (the ban's thing a kind of the lift's: "citrus" ends a grapefruit
//     ban); a ban the data singles out so is ended however far apart the
//     word vectors put the two ("alcohol" after "no wine"). A narrower lift (its thing a kind of the ban's or a thing
//     holding it: "cheese" after "no dairy", "coffee" after "no caffeine";
//     or, where the data knows neither, its name holding the ban's and
//     more: 芒果干 after 芒果) never ends the broader ban, nor does a
//     lift of a thing the ban's holds ("caffeine" after "no coffee"): the
//     ban stays in force, marked nowhere as lifted, and the lift is an
//     active permission in its own slot. Siblings ("dogs" after a cat
//     allergy, "peanuts" after tree nuts) never end a ban; a lift matched
//     by meaning alone leaves the ban in force and is kept
//     needs_confirmation, held against the nearest ban: once the user
//     confirms it (says it again later, or corrects it as the lift it is)
//     it supersedes that ban; declined (the ban said again, the lift
//     forgotten or corrected into a ban) it ends nothing. A lift the data
//     relates to several bans ends every one it covers ("seafood" after
//     bans on shrimp and on crab), each superseded by it with its own
//     audit link, the lift in its own slot; the data relates a ban and a
//     lift across kinds (dairy covers milk) and across languages (the
//     Chinese lexicon's names: 奶酪 is cheese).
//   - A constraint said without an end ("these days", 最近) is open-ended:
//     once the tenant's review time (Config.ReviewAfter, default 30 days)
//     has passed since it was last said, reads show it needs_confirmation. Statements that
//     agree ("I like spicy food", "I can eat spicy food again") coexist, as
//     do statements of different kinds with one polarity. A fact denied
//     with a value ("I left Stripe") ends only the statement of that
//     value; a constraint's value is its measure ("don't call me after
//     7pm"), so a newer constraint of the slot replaces it.
//   - A correction that names the value it replaces rather than its slot
//     ("Harrow Barn, not the Old Mill", 是安达，不是顺达, 不是周四，是周三)
//     takes the slot of the user's newest live statement whose value holds
//     the replaced one (found by the index's postings of its words,
//     correction.go) and supersedes it there, with the audit links both
//     ways; naming no value the user stated, it is an episode.
//   - A statement older than the slot's current holder (by event time) is
//     late: it is stored superseded and never overrides.
//   - Two contradicting statements of one slot at the same event time
//     cannot be ordered: both need confirmation. Never last-write-wins.
//   - Episodes hold no slot and never supersede each other. Episodes of
//     EpisodesToConsolidate (3) messages of one user that name one food
//     or drink (in English, or in Chinese by segmenting the text with
//     the Chinese lexicon, lang.Lexicon: 火锅, 奶茶, 普洱) consolidate into
//     a semantic record (consolidate.go): a
//     preference for it at confidence 0.5, its provenance the episodes
//     (Record.From), later ones added to it; never in a slot a statement
//     holds or held, superseded by a newer statement of the slot;
//     forgetting a source takes it out, and the record goes with it once
//     fewer than three are left (erasure rebuilds it from what is left).
//   - Validity (valid_from, valid_until = event time + ttl) is judged by
//     event time: a record is expired once an event or a query at or past
//     its valid_until sees it.
//   - Past the per-user quota the least valuable active records (by
//     confidence, age, use and kind; constraints last) turn cold. A tenant
//     may have a quota too (Config.QuotaPerTenant, TenantQuota: its
//     policy): past it the tenant's least valuable active records turn
//     cold in the same order, whichever of its users they belong to (ties
//     by user, then id). Nothing is deleted but by forgetting.
//   - Forgetting deletes every version, posting, slot, quota, expiry and
//     conflict entry of the record and of the records that carry its text
//     (those read from the same sentence; for a record extracted from an
//     old events.UserMessage, every record of that message), forgets the
//     observations merged into it (and their sentences), unlinks it from
//     other records, re-files what only it had superseded, and leaves
//     tombstones without text, so that a replayed observation cannot bring
//     it back. Forgetting an observation merged into a record that stays
//     forgets that statement alone: the record loses its use, and its
//     confidence and observed time are made again from the merges left
//     (kept with each merge, merge.go), as a replay without it makes
//     them; where the merge changed more than those (a record revived or
//     confirmed, a validity, another record superseded), the record is
//     left as it was until erasure's rebuild (docs/design.md, Erasure).
//
// Recall (Engine.Recall) filters first — tenant, user, permission scope,
// validity at the query time, status — and ranks second: BM25 over an
// inverted index of text and slot (English words stemmed by Porter's
// algorithm, memory/lexical; CJK as characters and bigrams), times
// confidence, recency, use, a live constraint's precedence and a lower
// weight for a turn that asks the assistant something; ties go to the
// newer record, an episode that repeats one already recalled word for word
// is left out, and the answer is bounded by K and a byte budget. The best
// record of that ranking the caller may see lends the
// query its words that tell records apart (pseudo-relevance feedback, at
// half weight), so that a later turn naming the same thing in other words
// is found; a small memory has no such words and is ranked by the query's. It reads
// the posting lists of the query's terms — a posting carries what ranking
// needs — and loads only the records it returns, never all of a user's
// records. History and AsOf show superseded, expired and cold records and
// what held at a past time.
//
// A user's message goes through the Extractor at the writer (the service,
// Engine.MessageEvents), not in the projection: each statement it makes is
// written as an observation of its own — record ids "<id>", "<id>#2",
// "#3", … — whose text is its sentence, sealed in the log under the
// record's own data key (SealScope), and which names the message
// (Record.Message: provenance only, it ties nothing). Statements read from one sentence
// carry the same words, so they share a Sentence and are forgotten
// together; the message's other records are not. A message that states
// nothing is one episode per sentence that is no question (a message of
// one sentence: its id and whole text), forgotten one by one. A sentence
// cut into statements (at a joiner, at the speaker after a comma: "My
// new flat is in Leeds, my door code is 4471", or, after a clause of the
// speaker's, at a Chinese clause stating another thing of theirs without a
// subject: 我新家在文三路88号，单元门密码是6092, read as the speaker's; at a
// word of contrast, dropped, before a taste of another thing read alone:
// "I love plums, but figs make me gag", 我爱吃山药，可秋葵我一口都不想碰, two
// records of opposite polarity)
// keeps every part: a part
// the extractor reads nothing from, beside one it reads, is an episode of
// its own, numbered in the order said, so nothing said in it is dropped
// and each part is forgotten alone. Sentences of a message that state
// nothing beside its statements (greetings, questions) are not kept, and
// no episode of the whole message is: it would hold every statement's
// words a second time, under another key, so forgetting one statement
// would leave its words readable there. In
// record ids a '#' of the message's id is written %23 and a '%' %25, so
// two messages never name a record alike (message m1#2 is record m1%232,
// not the second record of m1).
//
// A message that replies to a turn (Engine.ReplyEvents; the service's
// and memory run's reply_to) keeps the questions that turn asks as the
// Context of each of its records: indexed and embedded with the
// record's text (spokenText; not shown as its text), kept in the
// record's own events, so forgetting the record forgets them. The
// question is no record of its own, and a record that keeps it takes no
// second share of the turn before at recall (withContext,
// readWithTheTurnBefore).
//
// The projection still reads events.UserMessage, as earlier versions
// wrote it (one event sealed under the user's key): each statement becomes
// a record — the first with the message's whole text — and they are
// forgotten together. Its text is erased from the log only with the user.
// Forget takes a record id ("<m>#1" names the first statement of message
// m, "<m>", where no record or message is itself so named), or the id of
// such a message that names no record.
//
// Invariants kept here (numbers from docs/design.md):
//
//   - 3, exactly-once effect: Apply only reads and writes through the
//     projector.Writer it is given, so the projector commits its state
//     change with the stream sequence in one batch, or nothing.
//   - 6, replay equals live: time comes only from the event (ev.At, and the
//     per-user clock it advances), never from a wall clock; nothing random;
//     every write order and output order is a sort, never a map's order;
//     values are msgpack with sorted map keys. The same events in the same
//     order give byte-identical state. Config (quota, decay) is part of
//     the projection: change it, then replay.
//   - 7, tenants never meet: every key starts with "<tenant>/<user>/" or,
//     for a tenant with a quota, "<tenant>/%tenant/" (see the key layout in
//     record.go), every scan is under one such prefix, and a query without
//     a tenant (ErrNoTenant) or user (ErrNoUser) is an error, never "all
//     tenants". An event writes under its own user's prefix, and only a
//     tenant's quota writes under its tenant's and its other users'.
//   - 8, deletes reach everything, the log included: see forgetting above.
//     The tombstone holds the forgetting event's time and id, never text.
//     In the log a record's text is only in events sealed under its own
//     key (SealScope); Forgotten names the ids whose keys erasure destroys
//     after a forgetting (erase.go), and the view rebuilt then — like every
//     replay after it — reads those events by their envelope alone:
//     ApplyErased leaves the mark of an erased id, without text.
//   - 9, bad input loses nothing: Apply refuses bad input with an error
//     wrapping events.ErrBadInput (ErrInvalid, ErrDuplicateID,
//     ErrVersionConflict, ErrNotFound/ErrForgotten for corrections) before
//     writing anything, so the projection records a typed rejection and goes
//     on.
//
// Concurrency: an Engine holds only its configuration and extractor and is
// safe for concurrent use. Apply must be called for one event at a time per
// store (the projector's one batch per event); Recall, Get, List and
// History may run concurrently with each other on any consistent Reader (a
// snapshot). The Extractor must be deterministic and safe for concurrent
// use; RuleExtractor is.
package memory
