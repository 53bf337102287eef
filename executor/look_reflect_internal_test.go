package executor

import (
	"context"
	"strings"
	"testing"
)

// nuidDigits is the alphabet of nats.go's inbox names (nuid): twelve
// characters of prefix shared by every inbox of a process, then ten of a
// sequence that grows by a step between 33 and 333.
const nuidDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// nuidNeighbours returns the inbox names made up to four steps before
// seen, for every step nuid may take: what an attacker who saw seen
// (an outcome's reply subject) can name.
func nuidNeighbours(seen string) []string {
	head, seq := seen[:len(seen)-10], int64(0)
	for _, c := range seen[len(seen)-10:] {
		seq = seq*62 + int64(strings.IndexRune(nuidDigits, c))
	}
	var out []string
	for k := int64(1); k <= 4; k++ {
		for inc := int64(33); inc < 333; inc++ {
			s := seq - k*inc
			var b [10]byte
			for i := 9; i >= 0; i-- {
				b[i] = nuidDigits[s%62]
				s /= 62
			}
			out = append(out, head+string(b[:]))
		}
	}
	return out
}

// TestALooksAnswersCannotBeForgedFromAnInboxSeen: a window's looks at the
// bucket are answered on a subscription made just before the window's
// publish inbox, whose reply subjects every subscriber of the outcomes
// sees (window.go). Had the look's inbox been only the connection's next
// inbox name, its neighbours in nuid's sequence would name it: an
// attacker answering there (a direct get whose reply it sets, which the
// server answers with a 404 wherever the reply points:
// internal/stack's TestReflectedAnswersReachTheExecutorsInbox) for the
// next batches would have the next batch read "none of these records
// exists" before the bucket's own answer, and the window would publish
// outcomes for calls the bucket holds records of. Here the attacker sends
// such a 404 to every batch 1-4 of every inbox up to four steps before the
// one it saw (4,800 answers); the looks' next batch still answers each
// key by the bucket.
func TestALooksAnswersCannotBeForgedFromAnInboxSeen(t *testing.T) {
	f := newLookFixture(t, 30)
	var ls lookSub
	ask := func() []*look {
		qs := make([]*look, len(f.keys))
		for i, k := range f.keys {
			full, subj := entrySubjects(f.s.direct, "acme", k)
			qs[i] = &look{subj: subj, full: full}
		}
		f.s.lookNow(context.Background(), &ls, qs)
		return qs
	}
	f.check(t, f.keys, ask())
	seen := f.nc.NewInbox() // the window's publish inbox, made next
	attacker := f.nc        // any connection: the reply subject is not checked
	for _, inbox := range nuidNeighbours(seen) {
		for batch := 1; batch <= 4; batch++ {
			if err := attacker.PublishRequest(f.api, inbox+"."+string(rune('0'+batch)), []byte(`{"multi_last":["$KV.looks.nothing"]}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := attacker.Flush(); err != nil {
		t.Fatal(err)
	}
	// The forged answers were sent before the batch: a round trip after
	// the flush, every one the server relays has reached its subscriber.
	if _, err := f.nc.Request(f.api, []byte(`{"multi_last":["$KV.looks.nothing"]}`), f.s.timeout); err != nil {
		t.Fatal(err)
	}
	f.check(t, f.keys, ask())
}
