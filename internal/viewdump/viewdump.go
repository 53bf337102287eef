package viewdump

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/nats-io/nuid"
	"github.com/toolstream/toolstream/internal/viewapi"
	"github.com/toolstream/toolstream/projector"
)

const (
	// PageRows is the rows of a page at most, unless a Service or
	// ViewPager is given fewer.
	PageRows = 2000
	// PageBytes is the key and value bytes of a page at most (a message
	// holds 8 MiB).
	PageBytes = 1 << 20
	// IdleMax is how long an unused snapshot stays open.
	IdleMax = time.Minute
	// MaxOpen is the open snapshots at most; past it the least recently
	// used is closed.
	MaxOpen = 16
)

// ErrRemote is returned (as a *RemoteError) when a serve answered a dump
// request with an error.
var ErrRemote = errors.New("viewdump: the serve answered with an error")

// RemoteError is a serve's error answer to a dump request.
type RemoteError struct {
	Projection, Code, Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("dump of %s: %s %s", e.Projection, e.Code, e.Message)
}

// Is reports whether target is ErrRemote.
func (e *RemoteError) Is(target error) bool { return target == ErrRemote }

// Request asks for a page of a view's rows.
type Request struct {
	Projection string `json:"projection"`
	Token      string `json:"token,omitempty"`
	After      []byte `json:"after,omitempty"` // the last key of the previous page
	Limit      int    `json:"limit,omitempty"`
}

// Response is a page of rows of the snapshot Token names, taken at Seq.
type Response struct {
	Token string      `json:"token"`
	Seq   uint64      `json:"seq"`
	Rows  [][2][]byte `json:"rows"`
	Done  bool        `json:"done"`
}

// Lookup finds the runner of a projection this process runs now.
type Lookup func(name string) (*projector.Runner, bool)

// Service serves the dumps (viewapi.DumpPrefix) of the runners of a serve,
// what `replay --diff` compares a rebuilt view with while serve runs: a
// micro.Handler on each projection's subject (AddEndpoints), which names
// the projection it pages through. Close it before the runners close (it
// holds Pebble snapshots).
type Service struct {
	runners  Lookup
	pageRows int
	id       string // this process's part of its session tokens

	mu     sync.Mutex // guards next, open, closed
	next   int
	open   map[string]*session
	closed bool
}

type session struct {
	projection string
	v          *projector.View
	used       time.Time
}

var _ micro.Handler = (*Service)(nil)

// NewService returns a Service over runners whose pages hold at most
// pageRows rows (PageRows when pageRows ≤ 0).
func NewService(runners Lookup, pageRows int) *Service {
	if pageRows <= 0 {
		pageRows = PageRows
	}
	return &Service{runners: runners, pageRows: pageRows, open: map[string]*session{}, id: nuid.Next()}
}

// Handle implements micro.Handler.
func (d *Service) Handle(req micro.Request) {
	var q Request
	if err := json.Unmarshal(req.Data(), &q); err != nil {
		req.Error("400", "bad dump request: "+err.Error(), nil)
		return
	}
	// The subject names the projection; a request naming another in its
	// body is not this subject's.
	name, ok := viewapi.Projection(viewapi.DumpPrefix, req.Subject())
	if !ok || (q.Projection != "" && q.Projection != name) {
		req.Error("400", fmt.Sprintf("dump request for %q on %s", q.Projection, req.Subject()), nil)
		return
	}
	q.Projection = name
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		req.Error("503", "stopping", nil)
		return
	}
	now := time.Now()
	d.expireLocked(now)
	s, ok := d.open[q.Token]
	switch {
	case q.Token == "":
		r, found := d.runners(q.Projection)
		if !found {
			return // another process's
		}
		for len(d.open) >= MaxOpen {
			d.evictOldestLocked()
		}
		d.next++
		q.Token = fmt.Sprintf("%s-%s-%d", q.Projection, d.id, d.next)
		s = &session{projection: q.Projection, v: r.View()}
		d.open[q.Token] = s
	case !ok || s.projection != q.Projection:
		return // another process's session, or one that expired: the asker times out and starts again
	}
	s.used = now
	limit := q.Limit
	if limit <= 0 || limit > d.pageRows {
		limit = d.pageRows
	}
	from := q.After
	if from != nil {
		from = append(bytes.Clone(from), 0) // the first key after it
	}
	resp := Response{Token: q.Token, Seq: s.v.Seq(), Done: true}
	size := 0
	err := s.v.Rows(from, func(k, v []byte) error {
		if len(resp.Rows) >= limit || size >= PageBytes {
			resp.Done = false
			return errPageFull
		}
		resp.Rows = append(resp.Rows, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
		size += len(k) + len(v)
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		req.Error("500", err.Error(), nil)
		return
	}
	if resp.Done {
		s.v.Close()
		delete(d.open, q.Token)
	}
	req.RespondJSON(resp)
}

var errPageFull = errors.New("page full")

func (d *Service) expireLocked(now time.Time) {
	for tok, s := range d.open {
		if now.Sub(s.used) > IdleMax {
			s.v.Close()
			delete(d.open, tok)
		}
	}
}

func (d *Service) evictOldestLocked() {
	var oldest string
	for tok, s := range d.open {
		if oldest == "" || s.used.Before(d.open[oldest].used) {
			oldest = tok
		}
	}
	d.open[oldest].v.Close()
	delete(d.open, oldest)
}

// Close releases every snapshot; later requests are refused.
func (d *Service) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for tok, s := range d.open {
		s.v.Close()
		delete(d.open, tok)
	}
}

// Pager returns a page of rows after a key (nil: from the first) and
// whether it was the last page.
type Pager func(after []byte) (rows [][2][]byte, done bool, err error)

// ViewPager pages through a local view, pageRows rows a page (PageRows
// when pageRows ≤ 0).
func ViewPager(v *projector.View, pageRows int) Pager {
	if pageRows <= 0 {
		pageRows = PageRows
	}
	return func(after []byte) ([][2][]byte, bool, error) {
		var from []byte
		if after != nil {
			from = append(bytes.Clone(after), 0)
		}
		var rows [][2][]byte
		done := true
		err := v.Rows(from, func(k, val []byte) error {
			if len(rows) >= pageRows {
				done = false
				return errPageFull
			}
			rows = append(rows, [2][]byte{bytes.Clone(k), bytes.Clone(val)})
			return nil
		})
		if err != nil && !errors.Is(err, errPageFull) {
			return nil, false, fmt.Errorf("viewdump: rows: %w", err)
		}
		return rows, done, nil
	}
}

// Open opens a dump of a running serve's view: its checkpoint and a pager
// over the snapshot, asked on the projection's subject
// (viewapi.DumpPrefix). It returns nats.ErrNoResponders when no serve
// answers it, and waits for ctx (or ten seconds a request) when none runs
// the projection.
func Open(ctx context.Context, nc *nats.Conn, name string) (uint64, Pager, error) {
	subject, err := viewapi.Subject(viewapi.DumpPrefix, name)
	if err != nil {
		return 0, nil, err
	}
	ask := func(q Request) (Response, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		data, _ := json.Marshal(q)
		msg, err := nc.RequestWithContext(ctx, subject, data)
		if err != nil {
			return Response{}, err
		}
		if code := msg.Header.Get(micro.ErrorCodeHeader); code != "" {
			return Response{}, &RemoteError{Projection: name, Code: code, Message: msg.Header.Get(micro.ErrorHeader)}
		}
		var r Response
		return r, json.Unmarshal(msg.Data, &r)
	}
	first, err := ask(Request{Projection: name})
	if err != nil {
		return 0, nil, err
	}
	token, pending := first.Token, &first
	return first.Seq, func(after []byte) ([][2][]byte, bool, error) {
		if pending != nil { // the first page came with the snapshot
			r := pending
			pending = nil
			return r.Rows, r.Done, nil
		}
		r, err := ask(Request{Projection: name, Token: token, After: after})
		return r.Rows, r.Done, err
	}, nil
}

// Iter walks a pager row by row.
type Iter struct {
	page Pager
	buf  [][2][]byte
	i    int
	last []byte
	done bool
}

// NewIter returns an iterator over the rows of page.
func NewIter(page Pager) *Iter { return &Iter{page: page} }

// Next returns the next row; ok is false after the last.
func (it *Iter) Next() (k, v []byte, ok bool, err error) {
	for it.i >= len(it.buf) {
		if it.done {
			return nil, nil, false, nil
		}
		if it.buf, it.done, err = it.page(it.last); err != nil {
			return nil, nil, false, err
		}
		it.i = 0
		if len(it.buf) > 0 {
			it.last = it.buf[len(it.buf)-1][0]
		}
	}
	r := it.buf[it.i]
	it.i++
	return r[0], r[1], true, nil
}
