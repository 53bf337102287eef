package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Requests whose answer decides something: the bucket's reads and
// compare-and-sets, the looks at the log, the outcomes' publishes.
//
// No identity but the admin may publish into the executor's inbox
// (internal/stack's TestNoRoleWritesIntoTheExecutorsInbox), but any may
// have the server answer there: a publish's reply subject is not checked
// against the publisher's permissions, so a producer's publish with the
// executor's reply subject sends the log's acknowledgement (or refusal) of
// its raw event there, and a direct get by any identity that reads the log
// sends there a stored message, headers and body, which a producer wrote as
// it liked. Such an answer, taken first, would be the answer: an
// acknowledgement of TS_MODEL read as a compare-and-set won (a lease held
// by two executors: a call run twice), a refusal read as one lost (a lease
// taken, then given up as outcome_unknown), a stored message read as a
// record. nats.go's requests take the first answer on a reply subject made
// of the connection's one inbox (which every outcome's publish shows a
// producer) and eight characters of math/rand seeded by the clock.
//
// So the asker's reply subjects are a secret inbox (secretInbox: random
// bytes after the connection's inbox, shown to no subscriber) and sixteen
// random bytes per request, and a request takes only an answer its check
// accepts (the stream and subject it asked about), waiting past any other
// until its timeout (TestABucketRequestTakesNoForeignAnswer,
// TestTheBucketsRepliesShareNoInboxAnOutcomeShows).
type asker struct {
	nc      *nats.Conn
	timeout time.Duration

	mu      sync.Mutex
	sub     *nats.Subscription
	prefix  string // the secret inbox and a dot
	waiting map[string]chan *nats.Msg
	closed  bool

	foreign atomic.Int64 // answers refused by their request's check
	// sent, if set, is told each request's reply subject before the
	// request goes (tests: an answer that came first).
	sent func(reply string)
}

// errAskerClosed: the executor stopped.
var errAskerClosed = errors.New("executor: stopped")

func newAsker(nc *nats.Conn, timeout time.Duration) *asker {
	return &asker{nc: nc, timeout: timeout, waiting: map[string]chan *nats.Msg{}}
}

// close ends the subscription; requests waiting time out.
func (a *asker) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.sub != nil {
		a.sub.Unsubscribe()
		a.sub = nil
	}
}

// open subscribes to the secret inbox, once. a.mu held.
func (a *asker) open() error {
	if a.closed {
		return errAskerClosed
	}
	if a.sub != nil && a.sub.IsValid() {
		return nil
	}
	inbox := secretInbox(a.nc)
	sub, err := a.nc.Subscribe(inbox+".*", a.deliver)
	if err != nil {
		return err
	}
	a.sub, a.prefix = sub, inbox+"."
	return nil
}

// deliver hands an answer to the request its reply subject names; an
// answer to no request waiting is dropped.
func (a *asker) deliver(m *nats.Msg) {
	a.mu.Lock()
	ch := a.waiting[m.Subject]
	a.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- m:
	default: // the request has more answers than it reads: the rest are not its own
	}
}

// ask publishes m with a reply subject of its own and returns the first
// answer accept takes, waiting past the others, at most the asker's
// timeout (nats.ErrTimeout) or until ctx ends. The server's "no
// responders" (a 503, which it sends to the publisher alone) is
// nats.ErrNoResponders.
func (a *asker) ask(ctx context.Context, m *nats.Msg, accept func(*nats.Msg) bool) (*nats.Msg, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var tok [16]byte
	rand.Read(tok[:])
	ch := make(chan *nats.Msg, 4)
	a.mu.Lock()
	if err := a.open(); err != nil {
		a.mu.Unlock()
		return nil, err
	}
	reply := a.prefix + hex.EncodeToString(tok[:])
	a.waiting[reply] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiting, reply)
		a.mu.Unlock()
	}()
	if a.sent != nil {
		a.sent(reply)
	}
	m.Reply = reply
	err := a.nc.PublishMsg(m)
	m.Reply = ""
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(a.timeout)
	defer t.Stop()
	for {
		select {
		case r := <-ch:
			if r.Header.Get("Status") == "503" && len(r.Data) == 0 && r.Header.Get("Nats-Stream") == "" {
				return nil, nats.ErrNoResponders
			}
			if accept(r) {
				return r, nil
			}
			a.foreign.Add(1)
		case <-t.C:
			return nil, nats.ErrTimeout
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// entryAnswer accepts the answer to a direct get of the last message on
// subject of stream: that message (it names both), or "none" (a 404,
// which names nothing: only the secret reply subject keeps another's out).
func entryAnswer(stream, subject string) func(*nats.Msg) bool {
	return func(m *nats.Msg) bool {
		switch m.Header.Get("Status") {
		case "":
			return m.Header.Get("Nats-Stream") == stream && m.Header.Get("Nats-Subject") == subject
		case "404":
			return m.Header.Get("Nats-Stream") == "" && len(m.Data) == 0
		}
		// The server's other answers to a direct get (408, 413) name
		// nothing either; a stored message never lacks its stream.
		return m.Header.Get("Nats-Stream") == ""
	}
}

// ackAnswer accepts the log's answer to a publish on a subject of stream:
// an acknowledgement or a refusal that names it (readPubAckTo), and no
// stored message (a direct get's answer names its stream in a header, and
// its body is whatever was stored).
func ackAnswer(stream string) func(*nats.Msg) bool {
	return func(m *nats.Msg) bool {
		if m.Header.Get("Nats-Stream") != "" {
			return false
		}
		var ack jetstream.PubAck
		readPubAckTo(m.Data, &ack)
		return ack.Stream == stream
	}
}

// getMsg reads the message at seq of stream name (with subj, the first
// on subj at or after seq) by a direct get, taking only an answer that is
// that message: of that stream, at seq (or, with subj, on subj and not
// before seq). jetstream.ErrMsgNotFound when there is none.
func (a *asker) getMsg(ctx context.Context, name string, seq uint64, subj string) (*jetstream.RawStreamMsg, error) {
	req := fmt.Appendf(nil, `{"seq":%d}`, seq)
	if subj != "" {
		req = fmt.Appendf(nil, `{"seq":%d,"next_by_subj":%q}`, seq, subj)
	}
	m, err := a.ask(ctx, &nats.Msg{Subject: "$JS.API.DIRECT.GET." + name, Data: req}, func(m *nats.Msg) bool {
		if m.Header.Get("Status") != "" || m.Header.Get("Nats-Stream") != name {
			return entryAnswer(name, subj)(m) && m.Header.Get("Status") != ""
		}
		got, err := strconv.ParseUint(m.Header.Get("Nats-Sequence"), 10, 64)
		if err != nil {
			return false
		}
		if subj == "" {
			return got == seq
		}
		return got >= seq && m.Header.Get("Nats-Subject") == subj
	})
	if err != nil {
		return nil, err
	}
	switch st := m.Header.Get("Status"); st {
	case "":
	case "404":
		return nil, jetstream.ErrMsgNotFound
	default:
		return nil, fmt.Errorf("status %s %s", st, m.Header.Get("Description"))
	}
	got, _ := strconv.ParseUint(m.Header.Get("Nats-Sequence"), 10, 64)
	at, _ := time.Parse(time.RFC3339Nano, m.Header.Get("Nats-Time-Stamp"))
	return &jetstream.RawStreamMsg{Subject: m.Header.Get("Nats-Subject"), Sequence: got, Header: m.Header, Data: m.Data, Time: at}, nil
}

// readMsg reads the message at seq of stream s, named name where it
// answers direct gets on the default API ("" where not), with subj the
// first on subj at or after seq: by the asker's getMsg where it can.
func (e *Executor) readMsg(ctx context.Context, s jetstream.Stream, name string, seq uint64, subj string) (*jetstream.RawStreamMsg, error) {
	if name == "" || e.store.ask == nil {
		if subj != "" {
			return s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		}
		return s.GetMsg(ctx, seq)
	}
	return e.store.ask.getMsg(ctx, name, seq, subj)
}
