package viewdump

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/viewapi"
	"github.com/toolstream/toolstream/projector"
)

// Views are the projections a process answers for: each of Names on its
// own subjects (viewapi.Subject), and every partition of each of
// Partitioned on one wildcard (viewapi.Partitions), whichever partitions
// it holds when a request comes.
type Views struct {
	Names       []string
	Partitioned []string
}

// AddEndpoints adds to svc the digest (viewapi.DigestPrefix) and the paged
// dump (viewapi.DumpPrefix) of each of views, found by runners, pageRows
// rows a page (0: PageRows), and returns the dump service: close it before
// the runners close. The subjects name the projection, so a role is
// allowed to answer only those it runs (package auth). No queue group: a
// partition moves between processes, so only the one running it (or
// holding the dump session) answers; the others stay silent.
func AddEndpoints(svc micro.Service, runners Lookup, views Views, pageRows int) (*Service, error) {
	if pageRows <= 0 {
		pageRows = PageRows
	}
	digest := micro.HandlerFunc(func(req micro.Request) {
		name, ok := viewapi.Projection(viewapi.DigestPrefix, req.Subject())
		if !ok {
			return
		}
		r, ok := runners(name)
		if !ok {
			return // another process's
		}
		// The body is empty or names the subject's projection (Digest
		// sends the name): anything else is not a digest request, and
		// is refused rather than answered as one.
		if body := req.Data(); len(body) > 0 && string(body) != name {
			req.Error("400", fmt.Sprintf("digest request on %s: the body names no projection but %q (%d bytes)", req.Subject(), name, len(body)), nil)
			return
		}
		dg, err := r.Digest()
		if err != nil {
			req.Error("500", err.Error(), nil)
			return
		}
		req.RespondJSON(dg)
	})
	dumps := NewService(runners, pageRows)
	// add adds both endpoints, each on the subject of its prefix.
	add := func(endpoint string, subject func(prefix string) (string, error)) error {
		for _, e := range []struct {
			prefix, name string
			h            micro.Handler
		}{{viewapi.DigestPrefix, "digest-", digest}, {viewapi.DumpPrefix, "dump-", dumps}} {
			subj, err := subject(e.prefix)
			if err != nil {
				return err
			}
			if err := svc.AddEndpoint(e.name+endpoint, e.h, micro.WithEndpointSubject(subj), micro.WithEndpointQueueGroupDisabled()); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range views.Names {
		if err := add(name, func(prefix string) (string, error) { return viewapi.Subject(prefix, name) }); err != nil {
			dumps.Close()
			return nil, err
		}
	}
	for _, base := range views.Partitioned {
		if err := add(base+"-partitions", func(prefix string) (string, error) { return viewapi.Partitions(prefix, base), nil }); err != nil {
			dumps.Close()
			return nil, err
		}
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
	subject, err := viewapi.Subject(viewapi.DigestPrefix, name)
	if err != nil {
		return projector.Digest{}, err
	}
	msg, err := nc.RequestWithContext(ctx, subject, []byte(name))
	for until := time.Now().Add(2 * time.Second); errors.Is(err, nats.ErrNoResponders) && time.Now().Before(until); {
		select {
		case <-ctx.Done():
			return projector.Digest{}, err
		case <-time.After(100 * time.Millisecond):
		}
		msg, err = nc.RequestWithContext(ctx, subject, []byte(name))
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
