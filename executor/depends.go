package executor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
)

// Dependency polling: the first look is immediate, then the interval
// doubles up to dependsPollMax.
const (
	dependsPollMin = 5 * time.Millisecond
	dependsPollMax = 250 * time.Millisecond
)

// waitDeps waits until every call this one depends on (DependsOn: call ids
// of the same response, hence the same run and step) has succeeded, and
// the call it runs after (After: the side-effecting call the model gave
// before it) has its outcome, whatever it is. It returns
// a failure when a dependency failed or will never run, or when the wait
// exceeds DependencyWaitMax; errHandBack when the executor stops. The wait
// holds no tenant slot and no lease, so waiting calls never block the
// calls they wait for.
func (j *job) waitDeps() (*failure, error) {
	self := j.ev.CallID
	if self == "" {
		self = j.ev.Item
	}
	pending := slices.Concat(j.cc.DependsOn, j.cc.After)
	slices.Sort(pending)
	pending = slices.Compact(pending)
	onlyAfter := func(dep string) bool { return !slices.Contains(j.cc.DependsOn, dep) }
	if slices.Contains(pending, self) {
		return &failure{events.ErrValidation, fmt.Sprintf("call %s depends on itself; remove it from depends_on", self)}, nil
	}
	step := j.ev.Step
	if step == "" {
		step = j.ev.Response
	}
	deadline := time.Now().Add(j.e.cfg.DependencyWaitMax)
	delay := dependsPollMin
	var unpark func() // the call counts as waiting (fair.go)
	defer func() {
		if unpark != nil {
			unpark()
		}
	}()
	for {
		keep := pending[:0]
		for _, dep := range pending {
			depKey := events.IdempotencyKey(j.tenant, j.ev.Run, step, dep)
			rec, _, err := j.e.store.get(j.e.hard, j.tenant, depKey)
			if err == nil && rec == nil {
				rec, err = j.e.loggedRecord(j.e.hard, j.tenant, depKey) // decided in the log alone?
			}
			if err != nil {
				return nil, err
			}
			switch {
			case rec == nil || rec.State != stateDone && rec.State != stateSkipped:
				keep = append(keep, dep)
			case onlyAfter(dep):
				// ran (or never will): its turn is over, whatever came of it
			case rec.State == stateSkipped:
				return &failure{events.ErrUnavailable, fmt.Sprintf(
					"call %s, which this call depends on, was never run (it was rejected or incomplete); nothing was run — fix %s first", dep, dep)}, nil
			case rec.Outcome.Error != "":
				return &failure{events.ErrUnavailable, fmt.Sprintf(
					"call %s, which this call depends on, failed with %s: %s; nothing was run — fix %s first", dep, rec.Outcome.Error, rec.Outcome.Message, dep)}, nil
			}
		}
		pending = keep
		if len(pending) == 0 {
			return nil, nil
		}
		if time.Now().After(deadline) {
			if len(j.cc.DependsOn) == 0 {
				return &failure{events.ErrUnavailable, fmt.Sprintf(
					"waited %s for call %s, which the model gave before this one (calls with side effects run one after another), and it did not finish; nothing was run", j.e.cfg.DependencyWaitMax, strings.Join(pending, ", "))}, nil
			}
			return &failure{events.ErrUnavailable, fmt.Sprintf(
				"waited %s for calls %s, which this call depends on, and they did not finish; nothing was run", j.e.cfg.DependencyWaitMax, strings.Join(pending, ", "))}, nil
		}
		if unpark == nil {
			var err error
			if unpark, err = j.park(); err != nil {
				return nil, err
			}
		}
		select {
		case <-j.e.soft.Done():
			return nil, errHandBack
		case <-time.After(delay):
		}
		delay = min(2*delay, dependsPollMax)
	}
}
