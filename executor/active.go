package executor

import (
	"hash/maphash"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// activeCall is a call handled in this process: its carrier and since when.
type activeCall struct {
	carrier jetstream.Msg
	since   time.Time
}

// activeShards is how many parts the set of calls handled in this process
// is split into, each with a lock of its own. With one lock every handler
// took it twice a call (claim and release), and under load a holder
// descheduled with the lock held made the others queue behind it: in a
// mutex profile of 20,000 no-op calls (load average 35) the waits on that
// one lock were 63% of all the process's lock waits. A key goes to one
// part by its hash, so two handlers of the same call still meet.
const activeShards = 64

// activeSet is the set of calls handled in this process, by key.
type activeSet struct {
	seed   maphash.Seed
	shards [activeShards]activeShard
}

type activeShard struct {
	mu    sync.Mutex
	calls map[string]activeCall
	_     [48]byte // keep neighbouring locks off one cache line
}

func newActiveSet() *activeSet {
	s := &activeSet{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].calls = map[string]activeCall{}
	}
	return s
}

func (s *activeSet) shard(key string) *activeShard {
	return &s.shards[maphash.String(s.seed, key)%activeShards]
}

// claim adds key, carried by m since now; false if it is there already.
func (s *activeSet) claim(key string, m jetstream.Msg, now time.Time) bool {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.calls[key]; ok {
		return false
	}
	sh.calls[key] = activeCall{m, now}
	return true
}

// release removes key.
func (s *activeSet) release(key string) {
	sh := s.shard(key)
	sh.mu.Lock()
	delete(sh.calls, key)
	sh.mu.Unlock()
}

// older appends to keys and msgs each call handled since before t and its
// carrier, one part locked at a time.
func (s *activeSet) older(t time.Time, keys []string, msgs []jetstream.Msg) ([]string, []jetstream.Msg) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k, a := range sh.calls {
			if a.since.Before(t) {
				keys = append(keys, k)
				msgs = append(msgs, a.carrier)
			}
		}
		sh.mu.Unlock()
	}
	return keys, msgs
}
