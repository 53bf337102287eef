package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Decisions in the log, together. A call decided in the log alone
// (logrecord.go) looks at the bucket, then publishes its outcome and
// waits for the log's acknowledgement, then acknowledges its input. Done
// call by call, that was two waited round trips per call, each on a
// goroutine of its own (the look's batch, the publish's request), and
// a thousand goroutines contending for the connection's lock: the
// executor spent most of its time per no-op call waking goroutines, not
// working. So decisions made at the same time go to the log together, in a
// window: a decision asked while a window is being sent waits until that
// one's publishes are out, then goes with every decision asked meanwhile
// (up to windowMax) as one window, sent by the goroutine of the first of
// them (the leader), while the log still answers the window before (at
// most windowLanes windows on their way at once, each on a lane of its
// own: its subscriptions and reply subjects):
//
//  1. one look at the bucket for all their keys (look.go's lookNow: one
//     multi_last direct get, answered on the window's own subscription,
//     since the window is a batch already and need not queue for the
//     looker's turns);
//  2. the outcome of each whose key has no record is published, all of
//     them at once, each with its own reply subject; the lead passes to
//     the next window, and every acknowledgement is waited for (at most
//     store.timeout);
//  3. the leader acknowledges the input of each decision whose outcome the
//     log acknowledged storing as new, one after the other (ackInputs: a
//     run of acknowledgements the connection writes in a few writes, not
//     one by each handler as it wakes), then each decision's job gets its
//     look's answer and its publish's acknowledgement and carries on as it
//     did alone: it counts, and acknowledges its input itself where the
//     leader did not (a record found, the subject taken, a failure: the
//     job reads again and decides).
//
// What each call is promised is unchanged, since each decision still goes
// through the same steps in the same order: its look is sent after its
// job asked and answered before its publish, which carries the same
// compare-and-set (Nats-Expected-Last-Subject-Sequence: 0, Nats-Msg-Id);
// its input is acknowledged only once its own outcome's publish was
// acknowledged. The window is no transaction: its publishes land or fail
// each on its own (an expected-sequence refusal is that decision's
// errConflict, as before), and a crash within a window leaves each of its
// calls where a crash at the same point of a call alone would: before its
// publish landed, its redelivered input runs the side-effect-free tool
// again; after, the input finds the outcome and is acknowledged as a
// duplicate. Only one new point exists, between the window's publishes and
// its inputs' acknowledgements, where many calls stand at once; it is the
// before-ack point of each of them (TestCrashInAWindow). Two windows on
// their way at once hold different calls (a call is handled once in a
// process: claimActive), so neither's order depends on the other's.
//
// A window waits at most for the windows ahead of it, each bounded by two
// store.timeout (the look, the publishes), at most InFlightMax /
// windowMax + 1 of them. A decision that gets no acknowledgement in time
// fails with its timeout, and its input is handed back: the record (the
// log) decides on redelivery, as after any lost acknowledgement.

// windowMax bounds the decisions of one window.
const windowMax = lookBatchMax

// window queues the decisions of one executor (the leader's protocol is
// look.go's looker's).
type window struct {
	turns[*decision]

	// free holds decisions no job and no leader refers to any more, with
	// their turn's channel and their message's header map, so a call
	// decided in the log allocates neither (about a kilobyte a call with
	// what the collector makes of it).
	free sync.Pool

	// lanes holds the lanes no window is using (windowLanes of them, made
	// at the first window): a leader takes one before it takes its batch
	// and gives it back once its window is answered.
	lanesOnce sync.Once
	lanes     chan *lane
}

// windowLanes bounds the windows on their way at once. A leader passes
// the lead on as soon as its publishes are sent, so the next window's
// look and publishes go while the log answers the one before, instead of
// every window waiting a look and an acknowledgement round trip in turn.
const windowLanes = 2

// lane is what one window on its way uses alone.
type lane struct {
	// The subscription publish acknowledgements arrive on (inbox.<i>, the
	// i-th decision of the window being sent), made at the lane's first
	// window and ended with the context of the decision that made it, or
	// dropped when a window's answers did not all come in time (so a late
	// answer can never be taken for a later window's); replies holds
	// inbox.<i> for each i used so far, the same for every window of the
	// lane.
	sub     *nats.Subscription
	inbox   string
	replies []string
	// looks is where the answers of the window's looks at the bucket
	// arrive, a window's looks being one batch already (look.go's lookNow).
	looks lookSub
	qs    []*look // reused: the looks of the window being sent
}

// lane waits for a lane no window is using.
func (w *window) lane() *lane {
	w.lanesOnce.Do(func() {
		w.lanes = make(chan *lane, windowLanes)
		for range windowLanes {
			w.lanes <- &lane{}
		}
	})
	return <-w.lanes
}

// decision is one job's outcome to record in the log.
type decision struct {
	turn
	tenant, key string
	msg         *nats.Msg
	buf         outcomeMsgBuf // msg's storage
	look        look          // the look at the bucket for key, when the window's looks go together
	// carrier is the job's input, acknowledged by the window's leader
	// once the log acknowledged storing the outcome (settled says so);
	// nil leaves the acknowledgement to the job.
	carrier jetstream.Msg
	// answers
	found   bool // the bucket holds a record for key: nothing was published
	acked   bool // the log acknowledged the publish: ack holds its answer
	ack     jetstream.PubAck
	err     error // of the look, or of the publish
	settled bool  // the leader acknowledged carrier
}

// decideInLog looks at the bucket for key and, when it holds no record,
// publishes out (outcomeMsg's message: the outcome of the call whose input
// is at inputSeq and that names its tool name, with its compare-and-set
// headers), in a window with the decisions asked meanwhile. found reports
// a record (nothing was published); otherwise dup and err are the
// publish's: dup, the log already held a message of out's id.
//
// Its decision is reused once answered: by then the leader that sent it
// has signalled it (turns.handOn signals each of its batch once, and does
// not touch one again), and a decision is answered by one window only.
func (e *Executor) decideInLog(ctx context.Context, tenant, key string, out *outcome, inputSeq uint64, name string, carrier jetstream.Msg) (found, dup, settled bool, err error) {
	d, _ := e.window.free.Get().(*decision)
	if d == nil {
		d = &decision{turn: newTurn()}
	}
	d.tenant, d.key, d.carrier = tenant, key, carrier
	d.msg = d.buf.set(out, e.msgID(out.Subject, out.ID), inputSeq, name, true)
	send := func() { e.sendWindow(ctx) }
	if e.window.join(d) {
		send()
	}
	d.await(send)
	found, dup, settled, err = d.found, d.acked && d.ack.Duplicate, d.settled, d.err
	if err == nil && !found && !d.acked { // cannot happen: a publish is answered or fails
		err = fmt.Errorf("executor: publish outcome %s: %w", out.ID, jetstream.ErrInvalidJSAck)
	}
	d.buf.reset()
	d.tenant, d.key, d.msg, d.carrier, d.found, d.acked, d.err, d.settled = "", "", nil, nil, false, false, nil, false
	d.ack.Sequence, d.ack.Duplicate = 0, false // the stream's name is kept for the next answer
	e.window.free.Put(d)
	return found, dup, settled, err
}

// sendWindow sends the first window of queued decisions (this job's own
// first among them) on a lane of its own, hands the lead on once its
// publishes are sent, and signals the answers once they came.
func (e *Executor) sendWindow(ctx context.Context) {
	w := &e.window
	ln := w.lane()
	batch := w.take(windowMax)

	e.lookAll(ctx, ln, batch)
	var put []*decision
	for _, d := range batch {
		if d.err == nil && !d.found {
			if h := e.cfg.Hooks; h != nil && h.BeforePublish != nil {
				h.BeforePublish(d.key)
			}
			put = append(put, d)
		}
	}
	// A decision alone goes the same way: a request's reply subject takes
	// the first answer that comes, and a subscriber of the outcome's
	// subject sees it before the log answers, so another identity could
	// have an answer reflected there first (ackedBy).
	waiting := 0
	if len(put) > 0 {
		waiting = e.sendAll(ctx, ln, put)
	}
	w.passOn()
	if waiting > 0 {
		e.awaitAll(ctx, ln, put, waiting)
	}
	w.lanes <- ln
	e.ackInputs(put)
	answer(batch)
}

// ackInputs acknowledges, one after the other, the input of each decision
// of put whose outcome the log acknowledged storing as new: the point a
// call alone acknowledges its input at, reached by the window's calls
// together, so their acknowledgements leave in a run (a few writes to the
// connection) instead of one by each call's handler as it wakes. A
// decision refused, found taken or failed is left to its job, as before.
func (e *Executor) ackInputs(put []*decision) {
	h := e.cfg.Hooks
	for _, d := range put {
		if d.carrier == nil || d.err != nil || !d.acked || d.ack.Duplicate {
			continue
		}
		if h != nil && h.BeforeAck != nil {
			h.BeforeAck(d.key)
		}
		d.settled = true
		if err := d.carrier.Ack(); err != nil {
			e.log.Debug("ack failed; the record decides on redelivery", "key", d.key, "err", err)
		}
	}
}

// lookAll answers whether the bucket holds a record for each decision's
// key, by the looker's batches.
func (e *Executor) lookAll(ctx context.Context, ln *lane, batch []*decision) {
	if len(batch) == 1 || e.store.direct == "" {
		for _, d := range batch {
			d.found, d.err = e.store.exists(ctx, d.tenant, d.key)
		}
		return
	}
	if err := ctx.Err(); err != nil {
		for _, d := range batch {
			d.err = err
		}
		return
	}
	qs := ln.qs[:0]
	for _, d := range batch {
		full, subj := entrySubjects(e.store.direct, d.tenant, d.key)
		d.look = look{subj: subj, full: full}
		qs = append(qs, &d.look)
	}
	e.store.lookNow(ctx, &ln.looks, qs)
	clear(qs)
	ln.qs = qs[:0]
	for _, d := range batch {
		d.found, d.err = d.look.found, d.look.err
		if errors.Is(d.err, errNoDirect) { // the bucket allows no direct gets after all
			rec, _, err := e.store.get(ctx, d.tenant, d.key)
			d.found, d.err = rec != nil, err
		} else if d.err != nil {
			d.err = fmt.Errorf("executor: look for record %s: %w", d.key, d.err)
		}
		d.look = look{}
	}
}

// publishAll publishes each decision's outcome with a reply subject of its
// own on the lane ln and waits for every acknowledgement, at most
// store.timeout (sendAll, then awaitAll).
func (e *Executor) publishAll(ctx context.Context, ln *lane, put []*decision) {
	if waiting := e.sendAll(ctx, ln, put); waiting > 0 {
		e.awaitAll(ctx, ln, put, waiting)
	}
}

// failAll fails each decision of ds not answered yet with err.
func failAll(ds []*decision, err error) {
	for _, d := range ds {
		if !d.acked && d.err == nil {
			d.err = err
		}
	}
}

// sendAll publishes each decision's outcome with a reply subject of its
// own on the lane ln, and returns how many went out.
func (e *Executor) sendAll(ctx context.Context, ln *lane, put []*decision) int {
	w := ln
	nc := e.store.nc
	if err := ctx.Err(); err != nil {
		failAll(put, err)
		return 0
	}
	if w.sub == nil || !w.sub.IsValid() {
		w.inbox = nc.NewInbox()
		sub, err := nc.SubscribeSync(w.inbox + ".>")
		if err != nil {
			failAll(put, fmt.Errorf("executor: publish %d outcomes: %w", len(put), err))
			return 0
		}
		w.sub, w.replies = sub, w.replies[:0]
		context.AfterFunc(ctx, func() { sub.Unsubscribe() })
	}
	// Nothing on the subscription before this window's publishes answers
	// them: a late answer, or one another identity had the server send
	// there (a reflected acknowledgement, below).
	for n, _, _ := w.sub.Pending(); n > 0; n-- {
		if _, err := w.sub.NextMsg(time.Millisecond); err != nil {
			break
		}
	}
	prefix := w.inbox + "."
	for len(w.replies) < len(put) {
		w.replies = append(w.replies, prefix+strconv.Itoa(len(w.replies)))
	}
	waiting := 0
	for i, d := range put {
		d.msg.Reply = w.replies[i]
		if err := nc.PublishMsg(d.msg); err != nil {
			d.err = fmt.Errorf("executor: publish outcome: %w", err)
			continue
		}
		waiting++
	}
	return waiting
}

// awaitAll waits for the acknowledgements of the waiting publishes of put
// that sendAll sent on ln, at most store.timeout. A decision the log
// answers with no responders (a leader change) is published again alone
// (publish, which tries again); one left without an answer fails with
// nats.ErrTimeout.
func (e *Executor) awaitAll(ctx context.Context, ln *lane, put []*decision, waiting int) {
	w := ln
	prefix := w.inbox + "."
	var again []*decision
	deadline := time.Now().Add(e.store.timeout)
	for waiting > 0 {
		m, err := w.sub.NextMsg(time.Until(deadline))
		if err != nil {
			failAll(put, fmt.Errorf("executor: publish outcome: %w", nats.ErrTimeout))
			// Answers still to come must not reach a later window, which
			// uses the same reply subjects: the next makes a new inbox.
			w.sub.Unsubscribe()
			w.sub = nil
			break
		}
		rest, ok := strings.CutPrefix(m.Subject, prefix)
		i, err := strconv.Atoi(rest)
		if !ok || err != nil || i < 0 || i >= len(put) || put[i].acked || put[i].err != nil {
			continue // a repeat, or not an answer to this window
		}
		d := put[i]
		if m.Header.Get("Nats-Stream") != "" {
			continue // a stored message a direct get sent here: its body is whatever was stored (ackAnswer)
		}
		if m.Header.Get("Status") == "503" { // no responders
			waiting--
			again = append(again, d)
			d.err = nats.ErrNoResponders // until published again below
			continue
		}
		err = readPubAckTo(m.Data, &d.ack)
		if !ackedBy(&d.ack, d.msg.Subject) {
			continue // another stream's, acknowledgement or refusal, or no stream's: not this publish's answer (ackedBy)
		}
		waiting--
		d.err = err
		d.acked = d.err == nil
	}
	for _, d := range again {
		d.msg.Reply = ""
		d.err = nil
		d.setAck(e.publish(ctx, d.msg))
	}
}

// ackedBy reports whether ack, an acknowledgement by the log, can be the
// answer to a publish on subject: it names the stream that holds subject.
// A reply subject is no secret (every subscriber of the outcome's subject
// sees it), and an identity that may publish to any stream can have the
// server answer its own publish there: a producer publishing its raw
// events with the executor's reply subject puts an acknowledgement of
// TS_IN in the executor's inbox (internal/stack's
// TestReflectedAnswersReachTheExecutorsInbox). Nor does it take a
// refusal that another stream gives (a producer's publish with a wrong
// expected sequence reflected there: the log's "wrong last sequence" of
// TS_IN would read as this outcome's subject taken), or an answer naming
// no stream (a reader's reflected direct get, a 404 with no body): such an
// answer is not taken; the publish's own still comes. A subject of no
// stream known to events is not checked.
func ackedBy(ack *jetstream.PubAck, subject string) bool {
	want, err := events.StreamOf(subject)
	return err != nil || ack.Stream == want
}

// setAck keeps a publish's answer.
func (d *decision) setAck(ack *jetstream.PubAck, err error) {
	d.err = err
	if d.acked = err == nil && ack != nil; d.acked {
		d.ack = *ack
	}
}

// readPubAckTo reads the log's answer to a publish into to, as publish
// reads it. A refusal is an error, with the stream that refused in
// to.Stream (the server names it as it names the stream of an
// acknowledgement), so ackedBy judges a refusal as it judges an
// acknowledgement; an answer that is neither leaves to.Stream empty.
func readPubAckTo(data []byte, to *jetstream.PubAck) error {
	if plainPubAckTo(data, to) {
		return nil
	}
	var ack pubAck
	if err := json.Unmarshal(data, &ack); err != nil {
		*to = jetstream.PubAck{}
		return jetstream.ErrInvalidJSAck
	}
	*to = jetstream.PubAck{Stream: ack.Stream}
	if ack.Error != nil {
		return ack.Error
	}
	if ack.Stream == "" {
		return jetstream.ErrInvalidJSAck
	}
	*to = ack.PubAck
	return nil
}
