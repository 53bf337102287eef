package executor

import "sync/atomic"

// invokers runs invocations on goroutines kept for the executor's life,
// so a call costs neither a new goroutine nor the growth of a fresh
// goroutine's stack under the tool (together about a tenth of the CPU the
// executor's handler spent per no-op call). An invocation goes to an idle worker if there is one,
// to a new worker while fewer than max live, and to a goroutine of its own
// otherwise (a tool that ignores its timeout keeps its worker busy: the
// pool never waits for one). Workers end when stop is closed.
type invokers struct {
	work chan func() // unbuffered: a send succeeds only to an idle worker
	live atomic.Int64
	max  int64
	stop <-chan struct{}
}

func newInvokers(max int, stop <-chan struct{}) *invokers {
	return &invokers{work: make(chan func()), max: int64(max), stop: stop}
}

// run starts f and returns at once.
func (p *invokers) run(f func()) {
	select {
	case p.work <- f:
		return
	default:
	}
	if p.live.Add(1) > p.max {
		p.live.Add(-1)
		go f()
		return
	}
	go p.loop(f)
}

func (p *invokers) loop(f func()) {
	defer p.live.Add(-1)
	for {
		f()
		select {
		case f = <-p.work:
		case <-p.stop:
			return
		}
	}
}
