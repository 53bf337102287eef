package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Looks at the bucket, together. A decision recorded in the log looks at
// the bucket just before it publishes (logrecord.go); alone, that look is
// a request and an answer per call, after the outcome's publish the
// largest cost such a call adds to the log's work. When many calls are
// decided at once their looks go together: a look asked while another is
// on its way waits for that one to come back, then goes with every look
// asked meanwhile (up to lookBatchMax) as one direct get of the last
// entries of their record keys (multi_last). The bucket answers with the
// records that exist and an end marker, or, in the common case, one "no
// results" for the whole batch.
//
// Each look is still sent after its job asked and answered before its job
// publishes, so the order logrecord.go argues from holds; a look waits at
// most for the batches ahead of it, each bounded by store.timeout (at most
// InFlightMax / lookBatchMax + 1 batches, as each job looks once at a
// time). A batch of one is the single direct get. A server that does not
// answer a multi_last get (an older one, or a role without the stream's
// direct get subject) gets single looks from then on.

// lookBatchMax bounds the keys of one batched look (the server answers at
// most 1024).
const lookBatchMax = 256

// looker queues the looks of one store, in turns (turns.go).
type looker struct {
	turns[*look]
	mu      sync.Mutex // guards noMulti
	noMulti bool       // the server refused a multi_last get
	// bytesMax, when set, bounds the bytes of a batch's answer; past it
	// the server holds the rest back and they are looked at one by one
	// (0: the server's own bound, its max pending bytes).
	bytesMax int

	// The leader's alone (batches are sent one at a time).
	lookSub
}

// lookSub is where the answers of one sender's batched looks arrive: a
// subscription on inbox.<batch>, inbox a secret (secretInbox), made at
// the first batch and ended with
// the context of the look that made it. Its sender sends one batch at a
// time (the looker's leader, or a window's, window.go).
type lookSub struct {
	sub   *nats.Subscription
	inbox string
	batch uint64
}

// look is one job's question: does the bucket hold an entry at subj (a
// record, not a deletion)?
type look struct {
	turn
	subj  string
	full  string // the entry's subject ("$KV.<bucket>." + subj), when the asker built it
	next  *look  // the next look of a batch at the same subject (lookMany)
	found bool
	err   error
}

// existsTogether answers whether the bucket holds a record at the key
// subject subj (record key after "$KV.<bucket>."), in a batch with the
// looks asked meanwhile.
func (s *store) existsTogether(ctx context.Context, subj string) (bool, error) {
	q := &look{turn: newTurn(), subj: subj}
	send := func() { s.sendLooks(ctx) }
	if s.looks.join(q) {
		send()
	}
	q.await(send)
	return q.found, q.err
}

// lookNow answers qs (looks of record key subjects, made by the caller and
// not queued) by one batch sent on the caller's own subscription ls, which
// the caller uses for one batch at a time: a window's looks (window.go),
// already batched by the window, neither wait in the looker's queue nor
// need its turns.
func (s *store) lookNow(ctx context.Context, ls *lookSub, qs []*look) {
	s.looks.mu.Lock()
	multi := !s.looks.noMulti && len(qs) > 1
	s.looks.mu.Unlock()
	if !multi {
		s.lookEach(qs)
		return
	}
	s.lookMany(ctx, ls, qs)
}

// entrySubjects returns the subject a multi_last look names for the record
// of tenant and key ("$KV.<bucket>." + recordKey(tenant, key)) and, as a
// part of it, the record key itself, both in one allocation; full is ""
// when direct is no bucket's direct get prefix.
func entrySubjects(direct, tenant, key string) (full, subj string) {
	_, bucket, ok := strings.Cut(direct, ".$KV.")
	if !ok {
		return "", recordKey(tenant, key)
	}
	prefix := "$KV." + bucket // bucket ends with its dot
	full = recordKeyWith(prefix[:len(prefix)-1], tenant, key)
	return full, full[len(prefix):]
}

// sendLooks sends the first batch of queued looks (this job's own look
// first among them), hands the lead on and signals the answers.
func (s *store) sendLooks(ctx context.Context) {
	l := &s.looks
	batch := l.take(lookBatchMax)
	l.mu.Lock()
	multi := !l.noMulti && len(batch) > 1
	l.mu.Unlock()

	if multi {
		s.lookMany(ctx, &l.lookSub, batch)
	} else {
		for _, q := range batch {
			q.found, q.err = s.lookOne(q.subj)
		}
	}

	l.handOn(batch)
}

// errNoDirect: the bucket answers no direct gets; exists reads the
// record instead.
var errNoDirect = errors.New("executor: no direct gets")

// lookOne is a single direct get of the last entry at subj.
func (s *store) lookOne(subj string) (bool, error) {
	var m *nats.Msg
	var err error
	if s.ask != nil {
		m, err = s.ask.ask(context.Background(), &nats.Msg{Subject: s.direct + subj}, entryAnswer(s.stream, s.subjects+subj))
	} else {
		m, err = s.nc.Request(s.direct+subj, nil, s.timeout)
	}
	if errors.Is(err, nats.ErrNoResponders) {
		return false, errNoDirect
	}
	if err != nil {
		return false, err
	}
	switch st := m.Header.Get("Status"); {
	case st == "404":
		return false, nil
	case st != "":
		return false, fmt.Errorf("status %s %s", st, m.Header.Get("Description"))
	}
	return live(m.Header), nil
}

// live reports whether a bucket entry's headers are a value, not a
// deletion.
func live(h nats.Header) bool {
	op := h.Get("KV-Operation")
	return op != "DEL" && op != "PURGE"
}

// lookMany answers batch by one multi_last direct get, its answers taken
// on l. Looks it leaves unanswered (the server stopped early, or refused
// the request) are made one by one.
func (s *store) lookMany(ctx context.Context, l *lookSub, batch []*look) {
	api, prefix, ok := strings.Cut(s.direct, ".$KV.")
	if !ok { // not a bucket's direct get prefix: cannot happen for directGetPrefix
		s.lookEach(batch)
		return
	}
	prefix = "$KV." + prefix
	// The looks of each subject, chained by next (a subject is asked
	// once however many looks name it).
	bySubj := make(map[string]*look, len(batch))
	req := struct {
		MultiLast []string `json:"multi_last"`
		MaxBytes  int      `json:"max_bytes,omitempty"`
	}{MultiLast: make([]string, 0, len(batch)), MaxBytes: s.looks.bytesMax}
	for _, q := range batch {
		full := q.full
		if full == "" {
			full = prefix + q.subj
		}
		q.next = bySubj[full]
		if q.next == nil {
			req.MultiLast = append(req.MultiLast, full)
		}
		bySubj[full] = q
	}
	defer func() {
		for _, q := range batch {
			q.next = nil
		}
	}()
	body, err := json.Marshal(req)
	if err != nil {
		s.lookEach(batch)
		return
	}
	answer := func(subj string, found bool) {
		for q := bySubj[subj]; q != nil; q = q.next {
			q.found = found
		}
		delete(bySubj, subj)
	}
	unanswered := func() []*look {
		var left []*look
		for _, q := range bySubj {
			for ; q != nil; q = q.next {
				left = append(left, q)
			}
		}
		return left
	}
	fail := func(err error) {
		for _, q := range bySubj {
			for ; q != nil; q = q.next {
				q.err = err
			}
		}
	}
	if l.sub == nil || !l.sub.IsValid() {
		l.inbox = secretInbox(s.nc)
		sub, err := s.nc.SubscribeSync(l.inbox + ".*")
		if err != nil {
			fail(fmt.Errorf("a look for %d records together: %w", len(batch), err))
			return
		}
		l.sub = sub
		context.AfterFunc(ctx, func() { sub.Unsubscribe() })
	}
	l.batch++
	reply := l.inbox + "." + strconv.FormatUint(l.batch, 10)
	if err := s.nc.PublishRequest(api, reply, body); err != nil {
		fail(fmt.Errorf("a look for %d records together: %w", len(batch), err))
		return
	}
	deadline := time.Now().Add(s.timeout)
	for {
		m, err := l.sub.NextMsg(time.Until(deadline))
		if errors.Is(err, nats.ErrNoResponders) { // no direct gets: one by one from now on
			s.noMulti()
			s.lookEach(unanswered())
			return
		}
		if err != nil {
			fail(fmt.Errorf("a look for %d records together: %w", len(batch), err))
			return
		}
		if m.Subject != reply {
			continue // the answer to an earlier batch that timed out
		}
		switch st := m.Header.Get("Status"); st {
		case "": // an entry that exists
			answer(m.Header.Get("Nats-Subject"), live(m.Header))
		case "404": // none of them exists
			for subj := range bySubj {
				answer(subj, false)
			}
			return
		case "204": // the end: the rest do not exist, unless some were held back
			if pending, _ := strconv.Atoi(m.Header.Get("Nats-Num-Pending")); pending > 0 {
				s.lookEach(unanswered())
				return
			}
			for subj := range bySubj {
				answer(subj, false)
			}
			return
		case "408", "503": // not understood (an older server), or no direct gets: one by one from now on
			s.noMulti()
			s.lookEach(unanswered())
			return
		default:
			s.lookEach(unanswered())
			return
		}
	}
}

// secretInbox returns an inbox of nc's that no other identity can name.
// A batch's answers are taken by their reply subject alone (a 404 names no
// stream or subject), and an inbox name is the process's nuid: a prefix
// shared by every inbox of the process and a sequence that grows by a
// small step, so the window's publish inbox, made next and seen by every
// subscriber of the outcomes, would name this one within a few thousand
// guesses (TestALooksAnswersCannotBeForgedFromAnInboxSeen). Sixteen random
// bytes after it make it no neighbour of any name seen.
func secretInbox(nc *nats.Conn) string {
	var b [16]byte
	rand.Read(b[:])
	return nc.NewInbox() + "." + hex.EncodeToString(b[:])
}

// noMulti makes every later batch single looks.
func (s *store) noMulti() {
	s.looks.mu.Lock()
	s.looks.noMulti = true
	s.looks.mu.Unlock()
}

func (s *store) lookEach(qs []*look) {
	for _, q := range qs {
		q.found, q.err = s.lookOne(q.subj)
	}
}
