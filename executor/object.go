package executor

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
	"github.com/vmihailenco/msgpack/v5"
)

// Objects: a contract's object names the business object a call changes
// ("order:{order_id}" → order:A-1). Idempotency keys are per run, so two
// runs refunding one order are two calls; the object record makes them
// meet. It lives in the records' bucket under "o.<tenant>.<base64url(object)>"
// and changes only by compare-and-set, as call records do:
//
//   - Version counts the object's changes made through Toolstream (0: none
//     yet). A change that succeeded moves it on by one; so does one that
//     may have happened (provider_timeout, outcome_unknown, or a holder
//     whose executor stopped: its hold ran out without a release). Other
//     failures leave it.
//   - Holder is the call changing it now, held like a call's lease: owned
//     by an executor until LeaseUntil, renewed every Heartbeat while the
//     call runs. A second call of the object (any run, any user of the
//     tenant) waits, its input handed back every Heartbeat, until the
//     holder releases it or its hold runs out (an executor that stopped
//     mid-call leaves the object locked for at most a LeaseTTL).
//   - A call may name the version its change is based on
//     ($object_version). Another version than the object's is
//     object_conflict and nothing runs. A call that names none is based on
//     what its run knows: an object never changed, or last changed by this
//     same run (the run saw its own result). An object another run (or
//     user) changed since is object_conflict: two runs refunding one order
//     are two changes, and the second runs only when the model says, with
//     $object_version, that it means to change the order as it now is.
//
// Tenants never meet: the tenant is in the record key.
type objectRecord struct {
	Version uint64 `msgpack:"v"`

	Holder     string `msgpack:"h,omitempty"`  // idempotency key of the call changing it now
	HolderRun  string `msgpack:"hr,omitempty"` // its run (runOf)
	HolderUser string `msgpack:"hu,omitempty"`
	HolderTool string `msgpack:"ht,omitempty"`
	Owner      string `msgpack:"o,omitempty"`  // executor holding it
	LeaseUntil int64  `msgpack:"lu,omitempty"` // Unix ns, by the owner's clock

	LastKey  string `msgpack:"lk,omitempty"` // the call that made the last change
	LastRun  string `msgpack:"lr,omitempty"`
	LastUser string `msgpack:"lus,omitempty"`
	LastTool string `msgpack:"lt,omitempty"`
	Unknown  bool   `msgpack:"uk,omitempty"` // the last change may or may not have happened
}

func objectKey(tenant, object string) string {
	return "o." + tenant + "." + base64.RawURLEncoding.EncodeToString([]byte(object))
}

// runOf names the run a call belongs to for the object rule: its run, or
// for a call outside runs its response.
func runOf(ev *events.Event) string {
	if ev.Run != "" {
		return "run " + ev.Run
	}
	return "response " + ev.Response
}

// errObjectBusy: another call holds the object.
var errObjectBusy = errors.New("executor: object held by another call")

// objectHold is a held object: renewed every Heartbeat until released.
type objectHold struct {
	e      *Executor
	tenant string
	k      string // bucket key
	object string

	mu   sync.Mutex // guards rec, rev
	rec  objectRecord
	rev  uint64
	stop chan struct{}
	done chan struct{}
}

func (e *Executor) getObject(ctx context.Context, k string) (objectRecord, uint64, error) {
	var rec objectRecord
	v, rev, err := e.store.entry(ctx, k)
	if err != nil {
		return rec, 0, fmt.Errorf("executor: get object %s: %w", k, err)
	}
	if v == nil {
		return rec, 0, nil
	}
	if err := msgpack.Unmarshal(v, &rec); err != nil {
		return rec, 0, fmt.Errorf("executor: object %s: %w", k, err)
	}
	return rec, rev, nil
}

func (e *Executor) putObject(ctx context.Context, k string, rec *objectRecord, rev uint64) (uint64, error) {
	v, err := msgpack.Marshal(rec)
	if err != nil {
		return 0, err
	}
	var nrev uint64
	err = retryUntil(ctx, e.store.retry, e.store.deadline(), func(ctx context.Context) error {
		nrev, err = e.store.writeOnce(ctx, k, v, rev)
		return err
	})
	return nrev, err
}

// holdObject takes the object the call changes, or says why not: a
// conflict outcome (nothing runs), errObjectBusy (another call holds it:
// hand the input back), errConflict (the record changed: read again).
func (j *job) holdObject(tool *registry.Tool, object string) (*objectHold, *outcome, error) {
	e := j.e
	k := objectKey(j.tenant, object)
	rec, rev, err := e.getObject(e.hard, k)
	if err != nil {
		return nil, nil, err
	}
	now := e.cfg.Clock().UnixNano()
	mine := rec.Holder == j.key // a takeover of this call: checked when it first took the object
	if rec.Holder != "" && !mine {
		if rec.LeaseUntil > now {
			return nil, nil, errObjectBusy
		}
		// The holder's executor stopped mid-change: its change may have
		// happened.
		j.logger().Warn("object holder stopped mid-change; its change counts as unknown", "object", object, "holder", rec.Holder)
		rec.Version++
		rec.LastKey, rec.LastRun, rec.LastUser, rec.LastTool, rec.Unknown = rec.Holder, rec.HolderRun, rec.HolderUser, rec.HolderTool, true
	}
	if !mine && rec.LastKey != j.key {
		if base, given, _ := registry.ObjectVersion(j.cc.Arguments); given && base != rec.Version {
			return nil, j.objectConflict(tool, object, rec, fmt.Sprintf("your change is based on version %d", base)), nil
		} else if !given && rec.Version > 0 && rec.LastRun != runOf(j.ev) {
			return nil, j.objectConflict(tool, object, rec, "your run has not seen that change"), nil
		}
	}
	rec.Holder, rec.HolderRun, rec.HolderUser, rec.HolderTool = j.key, runOf(j.ev), j.ev.User, tool.Name
	rec.Owner, rec.LeaseUntil = e.owner, e.cfg.Clock().Add(e.cfg.LeaseTTL).UnixNano()
	nrev, err := e.putObject(e.hard, k, &rec, rev)
	if err != nil {
		return nil, nil, err
	}
	h := &objectHold{e: e, tenant: j.tenant, k: k, object: object, rec: rec, rev: nrev, stop: make(chan struct{}), done: make(chan struct{})}
	go h.renew()
	return h, nil, nil
}

func (j *job) objectConflict(tool *registry.Tool, object string, rec objectRecord, why string) *outcome {
	by := "another call"
	if rec.LastUser != "" {
		by += " of user " + rec.LastUser
	}
	if rec.LastRun != "" {
		by += " in " + rec.LastRun
	}
	if rec.LastTool != "" {
		by += " (tool " + rec.LastTool + ")"
	}
	may := ""
	if rec.Unknown {
		may = " (that change may or may not have happened: its executor stopped)"
	}
	msg := fmt.Sprintf("%s is at version %d, last changed by %s%s, and %s; nothing was run — read %s again and, if your change still applies, call again with \"%s\": %d",
		object, rec.Version, by, may, why, object, registry.ObjectVersionField, rec.Version)
	return j.failed(tool, events.ErrObjectConflict, msg, 0)
}

// renew extends the hold every Heartbeat until release stops it.
func (h *objectHold) renew() {
	defer close(h.done)
	t := time.NewTicker(h.e.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-h.e.hard.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		next := h.rec
		next.LeaseUntil = h.e.cfg.Clock().Add(h.e.cfg.LeaseTTL).UnixNano()
		if nrev, err := h.e.putObject(h.e.hard, h.k, &next, h.rev); err == nil {
			h.rec, h.rev = next, nrev
		} else {
			h.e.log.Warn("object hold renewal failed", "tenant", h.tenant, "object", h.object, "err", err)
		}
		h.mu.Unlock()
	}
}

// halt stops renewing; the hold stays in the bucket until it runs out (a
// takeover of the same call takes it again).
func (h *objectHold) halt() {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	<-h.done
}

// letObjectGo releases the object the job holds, unchanged, when the call
// did not get its lease (nothing was invoked): the loop reads the call
// again and, if it still runs here, takes the object again. Without it
// the hold would run out, and the next holder would count a change that
// never began.
func (j *job) letObjectGo() {
	if j.hold != nil {
		j.hold.release(j.key, nil)
		j.hold = nil
	}
}

// release ends the hold after the call's outcome is recorded (out), or
// when nothing was invoked (nil): the version moves on when the change
// happened or may have. A hold another executor took meanwhile (the same
// call taken over) is left alone: the compare-and-set fails.
func (h *objectHold) release(key string, out *outcome) {
	h.halt()
	h.mu.Lock()
	defer h.mu.Unlock()
	next := h.rec
	if next.Holder != key {
		return
	}
	switch {
	case out == nil: // nothing was invoked
	case out.Error == "", out.Error == events.ErrProviderTimeout, out.Error == events.ErrOutcomeUnknown:
		next.Version++
		next.LastKey, next.LastRun, next.LastUser, next.LastTool = next.Holder, next.HolderRun, next.HolderUser, next.HolderTool
		next.Unknown = out.Error != ""
	}
	next.Holder, next.HolderRun, next.HolderUser, next.HolderTool, next.Owner, next.LeaseUntil = "", "", "", "", "", 0
	if _, err := h.e.putObject(h.e.hard, h.k, &next, h.rev); err != nil {
		// The hold runs out by itself; the next holder counts the change as unknown.
		h.e.log.Warn("object release failed", "tenant", h.tenant, "object", h.object, "err", err)
	}
}
