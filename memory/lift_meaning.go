package memory

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/toolstream/toolstream/memory/embed/local"
)

// A lift says what the user may have or do again ("I can finally have
// coffee again", 跟猫待在一起也没事了); it lifts the ban of its own slot. Said in
// other words than the ban ("caffeine" after "I'm staying off coffee",
// "citrus is no problem" after "keep away from grapefruit", "climbing
// steps" after "I can't do stairs"), its slot holds no ban, and without
// more it would stand beside the ban it means. matchBans finds that ban by
// meaning: among the user's bans in force of the lift's kind (the slot's
// subject, food, drink, activity; general meets any) (negative constraints said
// before it, not caps, which are lifted by a measure; a request only when
// the lift names its very thing: "red-eye flights are fine again" after
// "don't book me any red-eye flights"), the one whose object is nearest the lift's — English objects
// by the shipped word vectors (memory/embed/local), one object's words
// holding all of the other's counting as the same thing; Chinese objects
// when one holds the other (猫毛, 猫). The lift then takes that ban's slot
// and supersedes it (audit: superseded_by, supersedes).
//
// A ban the language data shows the lift's thing to be, or to be a kind
// of (below), is ended however far apart the word vectors put the two,
// when it is the only such ban. Otherwise it is conservative, as a lift
// that ends the wrong ban is worse than one that ends none: the nearest
// ban must reach liftRelatedMin and stand liftMarginMin above the next. Word vectors do not tell a kind from a
// sibling (cat and dog are nearer, 0.87, than caffeine and coffee, 0.51),
// so nearness alone ends nothing: the language data (data/things.txt,
// lift_kinds.go) must show the lift's thing to be the ban's, a synonym of
// it (steps, stairs), or broader than it (citrus after grapefruit: the
// ban's thing a kind of the lift's). A narrower lift, its thing a kind of
// the ban's or a thing holding it (cheese after dairy, shrimp after
// shellfish, coffee after caffeine), is a permission the user stated for
// that thing only: the ban stays in force, and the lift is kept active in
// its own slot (TestANarrowerLiftLeavesTheBroaderBan). So is a lift whose
// object the data does not know but whose name holds the ban's and more
// (芒果干 after 芒果, "dried mango" after "mango"; holdsMore), and a lift of a
// thing the ban's holds (caffeine after coffee, lactose after cheese: the
// data's [holds] apart from its kinds), as the holder may be banned for
// more than what it holds. Siblings of one kind (dog and
// cat, peanut and almond) never lift each other, even when one's words
// hold the other's (almond milk, milk). A lift matched by meaning without
// any relation leaves the ban in force and is kept needs_confirmation in
// its own slot, so recall returns it among conflicts and the user can be
// asked (TestASiblingLiftNeverEndsItsBan).
//
// A lift the data relates to several bans (the ban's thing the lift's, or
// a kind of it: "I can eat seafood again" after bans on shrimp and crab,
// 我现在可以吃海鲜了 after 虾 and 螃蟹) ends every one of them, each
// superseded by the lift with its own audit link, the lift standing in its
// own slot (TestALiftEndsEveryBanItCovers); a narrower lift still ends no
// broader ban among them. The data speaks across kinds (dairy, a food,
// covers milk, a drink) where nearness does not, and across languages: a
// thing's keys hold its names in the Chinese lexicon (lift_kinds.go).
//
// A lift held against a ban (needs_confirmation) is the question recall
// puts to the user. Confirmed (said again later, or corrected as the lift
// of its own thing it is: reinforce, correct) it turns active and ends the
// ban it was held against, found again as when it was held
// (confirmHeldLift); declined (the ban said again, the lift forgotten or
// corrected into a ban) it ends nothing (TestServiceConfirmsAHeldLift).
//
// Deterministic: the table is shipped and fixed, so replay equals live.

// liftRelatedMin and liftMarginMin are not fitted to a pair (caffeine
// and coffee read 0.51, alcohol and wine 0.43): nearness alone ends no
// ban, and a ban the data singles out is ended without them. They choose
// the ban a lift is held against when the data relates it to none of the
// user's bans (kept needs_confirmation, for the user to be asked) or to
// several (the nearest, if clear, is ended), and the kind a new favourite
// takes: a cosine of one half is half the way from unrelated to the
// same, and a tenth between the first and the next is the least gap read
// as a choice rather than a tie.
const (
	liftRelatedMin = 0.5  // cosine of the two objects' vectors
	liftMarginMin  = 0.1  // over the next ban's
	liftBansMax    = 1000 // bans of a user looked at; past it, none is matched by meaning
)

// wordVectors loads the shipped table once per engine, on first use.
type wordVectors struct {
	once sync.Once
	w    *local.Words
}

func (v *wordVectors) get() *local.Words {
	v.once.Do(func() {
		if w, err := local.New(); err == nil {
			v.w = w
		}
	})
	return v.w
}

// liftMatch is what a lift n means among the user's bans in force of
// other slots (matchBans): the ban whose slot n takes, the bans it ends
// beside (each superseded by n, its own audit link), or the ban it is
// held against (n needs the user's confirmation; the ban stays).
type liftMatch struct {
	slot   *Record   // n takes this ban's slot and supersedes it
	others []*Record // n ends these too, standing in its own slot
	held   *Record   // n is held against it
}

// liftedBans decides what the lift n means (matchBans) and marks n
// needs_confirmation when it is held against a ban.
func (x *tx) liftedBans(n *Record, holders []*Record) (liftMatch, error) {
	m, err := x.matchBans(n, holders)
	if m.held != nil {
		n.Status = StatusNeedsConfirmation
	}
	return m, err
}

// matchBans finds the bans the lift n (a positive constraint of a meaning
// slot) means among the user's bans in force said before it (not caps,
// not of another kind, not of n's own slot, which place handles).
//
// The bans the data shows n's thing to be or to be broader than
// (relateThings: same, broader) are all ended: "I can eat seafood again"
// after bans on shrimp and crab ends both, each superseded by the lift.
// One such ban, with none in n's own slot, gives n its slot (as a lift in
// the ban's own words would hold it); several, or one beside a ban of n's
// own slot, leave n in its own slot, and each is superseded from there. A
// ban of n's own slot said after n makes n late: then n ends nothing.
//
// When the data shows none and n's own slot holds no ban, the nearest ban
// by meaning is the one n may mean: ended when the two are named alike
// (one's words holding the other's, the data knowing neither and n's name
// not holding the ban's and more), held against when near but unrelated
// by the data (siblings), and left when the data shows n narrower or held
// in it.
func (x *tx) matchBans(n *Record, holders []*Record) (liftMatch, error) {
	var m liftMatch
	if n.Kind != KindConstraint || n.Polarity != Positive || !meaningSlot(n.Subject) {
		return m, nil
	}
	ownBan := false
	for _, h := range holders {
		if h.Kind == KindConstraint && h.Polarity == Negative && holding(h.Status) {
			if h.ObservedAt > n.ObservedAt {
				return m, nil // n is late in its own slot: it ends nothing
			}
			ownBan = true
		}
	}
	var bans []*Record
	prefix := []byte(x.k.prefix + nsSlot + esc(n.Scope) + "/")
	own := x.k.slotOf(n)
	err := x.w.Scan(prefix, func(key, value []byte) error {
		if len(bans) >= liftBansMax {
			return nil
		}
		v, _ := uvarint(value)
		h, err := x.load(x.k.lastComponent(key), v)
		if err != nil || h == nil {
			return err
		}
		if h.ID != n.ID && h.Kind == KindConstraint && h.Polarity == Negative && holding(h.Status) &&
			h.Subject != "limit" && h.ObservedAt < n.ObservedAt && (h.ValidUntil == 0 || h.ValidUntil > n.ObservedAt) &&
			!bytes.HasPrefix(key, own) {
			bans = append(bans, h)
		}
		return nil
	})
	if err != nil || len(bans) == 0 {
		return m, err
	}
	var best *Record
	var shown []*Record // bans the data shows the lift's thing to be, or to be broader than
	first, second := 0.0, 0.0
	for _, b := range bans {
		if meaningSlot(b.Subject) {
			// the data speaks across kinds: dairy (a food) covers milk (a drink)
			if r := relateThings(n.Subject, n.Attribute, b.Subject, b.Attribute); r == thingSame || r == thingBroader {
				shown = append(shown, b)
			}
		}
		if b.Subject != n.Subject && b.Subject != "general" && n.Subject != "general" && meaningSlot(b.Subject) {
			continue // of another kind: nearness never lifts a food's ban by a drink
		}
		s := x.e.related(n.Attribute, b.Attribute)
		if !meaningSlot(b.Subject) && s < 1 {
			s = 0 // a request is lifted in other words only by its own thing ("red-eye flights are fine again")
		}
		switch {
		case s > first:
			best, first, second = b, s, first
		case s > second:
			second = s
		}
	}
	switch {
	case len(shown) == 1 && !ownBan:
		// The data says it, however far apart the word vectors put the two
		// ("alcohol" after "wine", 0.43): nearness only chooses among bans
		// the data does not single out.
		m.slot = shown[0]
		return m, nil
	case len(shown) > 0:
		m.others = shown // every ban it covers, each ended with its own audit
		return m, nil
	case ownBan:
		return m, nil // its own slot's ban is the one it lifts
	}
	if best == nil || first < liftRelatedMin || first-second < liftMarginMin {
		return m, nil
	}
	switch relateThings(n.Subject, n.Attribute, best.Subject, best.Attribute) {
	case thingSame, thingBroader:
		m.slot = best
		return m, nil
	case thingNarrower, thingHeld:
		// A kind of the ban's thing, or a thing holding it ("cheese" after
		// "no dairy", "coffee" after "no caffeine"): a narrower permission
		// the user stated. It leaves the ban in force, milk and cream still
		// banned, and stands active in its own slot. So does a thing the
		// ban's holds ("caffeine" after "no coffee"): the holder may be
		// banned for more than what it holds.
		return m, nil
	}
	if first < 1 || knownThing(thingKeys(n.Subject, n.Attribute)) && knownThing(thingKeys(best.Subject, best.Attribute)) {
		// Near in meaning (or one's words holding the other's) but not shown
		// to be the ban's thing or a kind of it: a sibling ("dogs" after
		// "cats", "almond milk" after "milk") must not end a safety
		// constraint. The ban stays; the lift is held against it, a
		// statement that needs the user's confirmation.
		m.held = best
		return m, nil
	}
	if holdsMore(n, best) {
		return m, nil
	}
	m.slot = best
	return m, nil
}

// liftAgain ends, for a lift said again (h2, its state as of the newer
// statement), the bans of other slots it covers that were said before
// the newer statement: "seafood is fine again" said once more after "I'm
// allergic to shrimp" ends that ban, as it would had it been said for the
// first time. A ban it is only near in meaning is not held against here:
// the lift stands as it was.
func (x *tx) liftAgain(h2 *Record, holders []*Record) error {
	if h2.Status != StatusActive {
		return nil
	}
	m, err := x.matchBans(h2, holders)
	if err != nil {
		return err
	}
	ends := m.others
	if m.slot != nil {
		ends = append(ends, m.slot)
	}
	for _, b := range ends {
		if err := x.supersede(b, h2); err != nil {
			return err
		}
	}
	return nil
}

// confirmHeldLift ends the ban the held lift h was held against, now that
// the user confirmed it (h2, its confirmed state: said again later, or
// corrected as a lift of its own slot): the ban is superseded by h2, the
// audit link both ways. The ban is found as when h was held (matchBans
// over the bans said before h and in force now); a ban ended or
// forgotten since is not ended again, and nothing is if h was held for
// another reason (a same-time conflict in its own slot).
func (x *tx) confirmHeldLift(h, h2 *Record) error {
	if h.Status != StatusNeedsConfirmation || h2.Status != StatusActive || h2.Kind != KindConstraint ||
		h2.Polarity != Positive || h2.Subject != h.Subject || h2.Attribute != h.Attribute {
		return nil
	}
	holders, err := x.holders(h)
	if err != nil {
		return err
	}
	m, err := x.matchBans(h, holders)
	if err != nil || m.held == nil {
		return err
	}
	return x.supersede(m.held, h2)
}

// holdsMore reports whether the lift's object holds all of the ban's and
// more (芒果干 after 芒果, "dried mango" after "mango"): a thing the data
// does not know, named as a kind of the ban's, is narrower than it, and a
// narrower lift leaves the ban in force. An activity's verb is left out
// ("climb stairs" holds "stairs" and no more).
func holdsMore(lift, ban *Record) bool {
	l, b := thingObject(lift), thingObject(ban)
	if l == b {
		return false
	}
	if hasHan(l) || hasHan(b) {
		return strings.Contains(l, b)
	}
	lw, bw := strings.Fields(l), strings.Fields(b)
	return len(lw) > len(bw) && containsWords(lw, bw)
}

// thingObject is a record's object in lower case, an activity's without
// its verb.
func thingObject(r *Record) string {
	a := strings.ToLower(strings.TrimSpace(r.Attribute))
	if ws := strings.Fields(a); r.Subject == "activity" && len(ws) > 1 {
		return strings.Join(ws[1:], " ")
	}
	return a
}

// favoriteKind returns the kind of favourite n means when its own is not
// known (favorite/general: "actually I prefer durian now" with durian in
// no kinds table): the kind of the user's newest current favourite n's
// sentence names beside it ("I prefer rummy over cribbage these days",
// 其实我现在更喜欢绣球了，向日葵看腻了; 凤凰单丛 named 单丛), else that of the one nearest it in
// meaning — its value or its kind's name, by related — so that the new one
// supersedes the old favourite of that kind instead of standing beside it.
// "" if none is near enough (liftRelatedMin, liftMarginMin over the next
// kind): favourites of one kind are alike, so here the word vectors'
// nearness of siblings is what is wanted.
func (x *tx) favoriteKind(n *Record) (string, error) {
	if n.Kind != KindPreference || n.Subject != "favorite" || n.Attribute != "general" || n.Value == "" ||
		n.Polarity != Positive {
		return "", nil
	}
	score := map[string]float64{}
	var named *Record
	prefix := []byte(x.k.prefix + nsSlot + esc(n.Scope) + "/" + esc("favorite") + "/")
	said := tokenize(n.Text)
	err := x.eachHead(prefix, func(h *Record) error {
		if h.ID == n.ID || h.Attribute == "general" || h.Kind != KindPreference || h.Polarity != Positive || !holding(h.Status) {
			return nil
		}
		if vt := tokenize(h.Value); len(vt) > 0 && !sameWords(h.Value, n.Value) && (allIn(vt, said) || namesTail(n.Text, h.Value) || namesHead(n.Text, h.Value)) &&
			(named == nil || h.ObservedAt > named.ObservedAt || h.ObservedAt == named.ObservedAt && h.ID > named.ID) {
			named = h // the favourite it replaces, named beside it
		}
		s := max(x.e.related(n.Value, h.Value), x.e.related(n.Value, h.Attribute))
		score[h.Attribute] = max(score[h.Attribute], s)
		return nil
	})
	if err != nil || named != nil {
		if named != nil {
			return named.Attribute, err
		}
		return "", err
	}
	return nearestKind(score), nil
}

// namesTail reports whether text names a Chinese value by its last two
// characters or more, as a name is said short (凤凰单丛 as 单丛).
func namesTail(text, value string) bool {
	r := []rune(value)
	return hasHan(value) && len(r) > 2 && strings.Contains(text, string(r[len(r)-2:]))
}

// namesHead reports whether text names a Chinese value of three
// characters or more by its first two and its last (牛油麻辣锅 as 牛油锅).
func namesHead(text, value string) bool {
	r := []rune(value)
	return hasHan(value) && len(r) > 3 && strings.Contains(text, string(r[:2])+string(r[len(r)-1:]))
}

// eachHead calls fn with the record each slot key under prefix holds, in
// key order, for the first liftBansMax keys (a user's slots looked at by
// meaning: favoriteKind, reasonBans).
func (x *tx) eachHead(prefix []byte, fn func(h *Record) error) error {
	seen := 0
	return x.w.Scan(prefix, func(key, value []byte) error {
		if seen++; seen > liftBansMax {
			return nil
		}
		v, _ := uvarint(value)
		h, err := x.load(x.k.lastComponent(key), v)
		if err != nil || h == nil {
			return err
		}
		return fn(h)
	})
}

// nearestKind returns the kind of score's highest, or "" if it is below
// liftRelatedMin or within liftMarginMin of another kind's (two kinds
// tied are ambiguous, whatever their names). The kinds are taken in
// sorted order, so the answer never hangs on the map's order.
func nearestKind(score map[string]float64) string {
	best, first, second := "", 0.0, 0.0
	for _, k := range slices.Sorted(maps.Keys(score)) {
		switch s := score[k]; {
		case s > first:
			best, first, second = k, s, first
		case s > second:
			second = s
		}
	}
	if best == "" || first < liftRelatedMin || first-second < liftMarginMin {
		return ""
	}
	return best
}

// meaningSlot: requests and caps are lifted by their own verb and measure,
// not by a thing near in meaning.
func meaningSlot(subject string) bool { return subject != "request" && subject != "limit" }

// related scores how near two objects are in meaning, in [0, 1].
func (e *Engine) related(a, b string) float64 {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return 1
	}
	if hasHan(a) || hasHan(b) {
		if a != "" && b != "" && (strings.Contains(a, b) || strings.Contains(b, a)) {
			return 1
		}
		return 0
	}
	wa, wb := strings.Fields(a), strings.Fields(b)
	if containsWords(wa, wb) || containsWords(wb, wa) {
		return 1
	}
	w := e.vectors.get()
	if w == nil {
		return 0
	}
	vs, err := w.Embed(context.Background(), []string{a, b})
	if err != nil {
		return 0
	}
	var c float64
	for i := range vs[0] {
		c += float64(vs[0][i]) * float64(vs[1][i])
	}
	return max(c, 0)
}

// containsWords reports whether every word of b is a word of a (the
// singular of a plural counting).
func containsWords(a, b []string) bool {
	if len(b) == 0 {
		return false
	}
	for _, y := range b {
		found := false
		for _, x := range a {
			if x == y || singular(x) == singular(y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}
