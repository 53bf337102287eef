package executor

import (
	"slices"
	"sync"
)

// workers runs functions on goroutines kept for the executor's life, so a
// call costs neither a new goroutine nor the growth of a fresh goroutine's
// stack (together about a tenth of the CPU the executor's handler spent
// per no-op call). The executor has two: the handlers of its inputs (one
// per in-flight slot) and the invokers its tools run on.
//
// A function goes to the worker that became idle last, to a new worker
// while fewer than max live, and to a goroutine of its own otherwise (a
// tool that ignores its timeout keeps its worker busy: the pool never
// waits for one). Last idle first matters: the collector shrinks the stack
// of a goroutine that uses little of it, as an idle worker does, and a
// worker's next call grows it again, copying it each time. Handed out in
// turn, as a channel's receivers are, every one of a thousand workers got
// one call between two collections and grew its stack on nearly every
// call (runtime.copystack was 8% of the executor's CPU per no-op call);
// handed out last idle first, the few workers the load keeps busy keep
// their stacks grown and the others stay idle. Workers end when stop is
// closed; a function given after that still runs.
type workers struct {
	max  int
	stop <-chan struct{}

	mu   sync.Mutex // guards idle and live
	idle []*worker  // the last idle last
	live int
}

// worker is one goroutine of workers; next carries its next function (at
// most one: it is sent only to a worker taken off the idle list).
type worker struct{ next chan func() }

func newWorkers(max int, stop <-chan struct{}) *workers {
	return &workers{max: max, stop: stop}
}

// run starts f and returns at once.
func (p *workers) run(f func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.next <- f // buffered: never waits
		return
	}
	if p.live >= p.max {
		p.mu.Unlock()
		go f()
		return
	}
	p.live++
	p.mu.Unlock()
	go p.loop(&worker{next: make(chan func(), 1)}, f)
}

func (p *workers) loop(w *worker, f func()) {
	for {
		f()
		p.mu.Lock()
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		select {
		case f = <-w.next:
			continue
		case <-p.stop:
		}
		p.mu.Lock()
		if i := slices.Index(p.idle, w); i >= 0 {
			p.idle = slices.Delete(p.idle, i, i+1)
			p.live--
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		f = <-w.next // run took it off the idle list: its function is on its way
	}
}
