package viewdump

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/projector"
)

// DigestSubject answers a projection's name with its live view's digest
// (projector.Digest as JSON).
const DigestSubject = "tsv.digest"

// AddEndpoints adds to svc the digest (DigestSubject) and the paged dump
// (Subject) of every view runners finds, pageRows rows a page (0:
// PageRows), and returns the dump service: close it before the runners
// close. Every process that serves views receives every request (no queue
// group): processes run different projections and a partition moves
// between them, so only the one running the projection (or holding the
// dump session) answers; the others stay silent.
func AddEndpoints(svc micro.Service, runners Lookup, pageRows int) (*Service, error) {
	if pageRows <= 0 {
		pageRows = PageRows
	}
	err := svc.AddEndpoint("digest", micro.HandlerFunc(func(req micro.Request) {
		r, ok := runners(string(req.Data()))
		if !ok {
			return // another process's
		}
		dg, err := r.Digest()
		if err != nil {
			req.Error("500", err.Error(), nil)
			return
		}
		req.RespondJSON(dg)
	}), micro.WithEndpointSubject(DigestSubject), micro.WithEndpointQueueGroupDisabled())
	if err != nil {
		return nil, err
	}
	dumps := NewService(runners, pageRows)
	if err := svc.AddEndpoint("dump", dumps, micro.WithEndpointSubject(Subject), micro.WithEndpointQueueGroupDisabled()); err != nil {
		dumps.Close()
		return nil, err
	}
	return dumps, nil
}

// Digest asks a running serve for a projection's live digest. It waits up
// to five seconds for the answer, and asks again for two seconds while
// nothing answers (a serve starting adds its endpoints after its
// projections) before it returns nats.ErrNoResponders.
func Digest(ctx context.Context, nc *nats.Conn, name string) (projector.Digest, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := nc.RequestWithContext(ctx, DigestSubject, []byte(name))
	for until := time.Now().Add(2 * time.Second); errors.Is(err, nats.ErrNoResponders) && time.Now().Before(until); {
		select {
		case <-ctx.Done():
			return projector.Digest{}, err
		case <-time.After(100 * time.Millisecond):
		}
		msg, err = nc.RequestWithContext(ctx, DigestSubject, []byte(name))
	}
	if err != nil {
		return projector.Digest{}, err
	}
	if code := msg.Header.Get(micro.ErrorCodeHeader); code != "" {
		return projector.Digest{}, fmt.Errorf("digest of %s: %s %s", name, code, msg.Header.Get(micro.ErrorHeader))
	}
	var d projector.Digest
	return d, json.Unmarshal(msg.Data, &d)
}
