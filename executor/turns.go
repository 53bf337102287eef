package executor

import "sync"

// Turns: one request queue, served in batches by the requesters
// themselves. A requester that finds no batch on its way sends one (it
// leads); a leader sends one batch only, then hands the lead to the first
// request still queued, so no requester waits for work that is not its own
// for more than one batch. The looks at the bucket (look.go) and the
// decisions published together (window.go) are both queued this way.

// turn is what one request carries through the queue.
type turn struct {
	lead bool          // set before a signal on done that makes this request's goroutine send the next batch
	done chan struct{} // a signal when it must lead, one when it is answered
}

func newTurn() turn { return turn{done: make(chan struct{}, 1)} }

func (t *turn) turnOf() *turn { return t }

// queued is a request that carries a turn.
type queued interface{ turnOf() *turn }

// turns is a queue of requests of one kind.
type turns[T queued] struct {
	mu    sync.Mutex // guards queue and busy
	queue []T        // asked and not yet sent; not empty only while busy
	busy  bool       // a batch is being sent
}

// join queues rs and reports whether the caller must send the next batch.
func (q *turns[T]) join(rs ...T) (lead bool) {
	q.mu.Lock()
	q.queue = append(q.queue, rs...)
	lead = !q.busy
	q.busy = true
	q.mu.Unlock()
	return lead
}

// take removes the first (at most max) queued requests: the batch the
// leader sends.
func (q *turns[T]) take(max int) []T {
	q.mu.Lock()
	n := min(len(q.queue), max)
	batch := make([]T, n)
	copy(batch, q.queue)
	rest := copy(q.queue, q.queue[n:])
	clear(q.queue[rest:])
	q.queue = q.queue[:rest]
	q.mu.Unlock()
	return batch
}

// handOn, once batch is answered, gives the lead to the first request
// still queued (or ends the queue's busy spell) and signals batch's
// answers.
func (q *turns[T]) handOn(batch []T) {
	q.passOn()
	answer(batch)
}

// passOn gives the lead to the first request still queued, or ends the
// queue's busy spell: the leader has sent its batch and its answers may
// still be on their way (answer signals them). A leader passes the lead
// on once.
func (q *turns[T]) passOn() {
	q.mu.Lock()
	if len(q.queue) > 0 {
		next := q.queue[0].turnOf()
		next.lead = true
		next.done <- struct{}{} // it has had no signal yet: room in done
	} else {
		q.busy = false
	}
	q.mu.Unlock()
}

// answer signals batch's answers, after its leader passed the lead on.
func answer[T queued](batch []T) {
	for _, r := range batch {
		r.turnOf().done <- struct{}{}
	}
}

// await waits for t's answer, sending a batch by send each time t is
// handed the lead meanwhile.
func (t *turn) await(send func()) {
	for {
		<-t.done
		if !t.lead {
			return
		}
		t.lead = false
		send()
	}
}
