package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/ingest"
)

// The plain program: the like-with-like baseline of the whole path. What a competent engineer would write with JetStream alone to do the
// work Toolstream's edge and assembler do: parse each provider chunk once,
// merge a call's (or a text's) consecutive deltas at the edge, store one
// message per run of deltas and one per event an assembler needs (the
// others dropped, as Toolstream's edge drops them), read everything back,
// assemble each call's arguments and store one outcome per call and per
// response. It does not seal, dedupe by message id, or keep a view: those
// are Toolstream's and the rows say so.

// plainStream is the plain program's own stream.
const plainStream = "BENCH_PLAIN"

// plainChunk is the few fields of an OpenAI Responses event the plain
// program reads; encoding/json skips the rest.
type plainChunk struct {
	Type      string `json:"type"`
	ItemID    string `json:"item_id"`
	Delta     string `json:"delta"`
	Arguments string `json:"arguments"`
	Text      string `json:"text"`
	Item      *struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
	} `json:"item"`
	Response *struct {
		ID string `json:"id"`
	} `json:"response"`
}

// plainMsg is what the plain program stores.
type plainMsg struct {
	T    string `json:"t"`           // started, call, args, args_done, text, text_done, completed
	Resp string `json:"r,omitempty"` // response id (started, completed)
	Item string `json:"i,omitempty"` // item id
	Call string `json:"c,omitempty"` // call id (call)
	Name string `json:"n,omitempty"` // tool name (call)
	Data string `json:"d,omitempty"` // merged deltas, or the done event's whole text
}

// plainEdge parses input (JSON lines) and calls emit with each message to
// store, consecutive deltas of one item merged into one.
func plainEdge(input []byte, emit func(plainMsg) error) error {
	var run plainMsg // the open run of deltas
	var buf []byte
	flush := func() error {
		if run.T == "" {
			return nil
		}
		run.Data = string(buf)
		err := emit(run)
		run, buf = plainMsg{}, buf[:0]
		return err
	}
	return ingest.ReadEvents(bytes.NewReader(input), func(raw []byte) error {
		var c plainChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		var kind string
		switch c.Type {
		case "response.function_call_arguments.delta":
			kind = "args"
		case "response.output_text.delta":
			kind = "text"
		}
		if kind != "" {
			if run.T != kind || run.Item != c.ItemID {
				if err := flush(); err != nil {
					return err
				}
				run = plainMsg{T: kind, Item: c.ItemID}
			}
			buf = append(buf, c.Delta...)
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		switch c.Type {
		case "response.created":
			if c.Response != nil {
				return emit(plainMsg{T: "started", Resp: c.Response.ID})
			}
		case "response.output_item.added":
			if c.Item != nil && c.Item.Type == "function_call" {
				return emit(plainMsg{T: "call", Item: c.Item.ID, Call: c.Item.CallID, Name: c.Item.Name})
			}
		case "response.function_call_arguments.done":
			return emit(plainMsg{T: "args_done", Item: c.ItemID, Data: c.Arguments})
		case "response.output_text.done":
			return emit(plainMsg{T: "text_done", Item: c.ItemID, Data: c.Text})
		case "response.completed":
			if c.Response != nil {
				return emit(plainMsg{T: "completed", Resp: c.Response.ID})
			}
		}
		return nil // events an assembler does not need
	})
}

// plainAssembler assembles what plainEdge stored: each call's arguments
// from its merged deltas, checked against the done event and for valid
// JSON; an outcome per call and per completed response.
type plainAssembler struct {
	calls map[string]*plainCall
	bad   int
}

type plainCall struct {
	id, name string
	args     []byte
}

type plainOutcome struct {
	Call      string          `json:"call,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
}

// apply decodes one stored message and returns an outcome to store, if any.
func (a *plainAssembler) apply(data []byte) (*plainOutcome, error) {
	var m plainMsg
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	switch m.T {
	case "call":
		a.calls[m.Item] = &plainCall{id: m.Call, name: m.Name}
	case "args":
		if c := a.calls[m.Item]; c != nil {
			c.args = append(c.args, m.Data...)
		}
	case "args_done":
		c := a.calls[m.Item]
		if c == nil {
			return nil, nil
		}
		delete(a.calls, m.Item)
		if string(c.args) != m.Data || !json.Valid(c.args) {
			a.bad++
			return nil, nil
		}
		return &plainOutcome{Call: c.id, Name: c.name, Arguments: c.args}, nil
	case "completed":
		return &plainOutcome{Response: m.Resp}, nil
	}
	return nil, nil
}

// PlainResult is what one plain run stored.
type PlainResult struct {
	Stored   int // messages the edge stored
	Outcomes int // outcomes stored
	Elapsed  time.Duration
}

// plainRun runs the plain program on b: one goroutine per input (a
// producer each) parses and publishes at the edge, one consumer reads
// everything back, assembles and publishes the outcomes; it returns when
// every outcome's acknowledgement came back. The stream is deleted after.
func plainRun(ctx context.Context, b *bus.Bus, inputs [][]byte) (PlainResult, error) {
	var res PlainResult
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: plainStream, Subjects: []string{"plain.>"}, Storage: jetstream.FileStorage}); err != nil {
		return res, err
	}
	defer func() { _ = b.JS.DeleteStream(context.WithoutCancel(ctx), plainStream) }()
	cons, err := b.JS.OrderedConsumer(ctx, plainStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"plain.in.>"}})
	if err != nil {
		return res, err
	}
	var (
		read   atomic.Int64
		want   atomic.Int64 // set once every producer is done
		outs   atomic.Int64
		lastMu sync.Mutex
		last   jetstream.PubAckFuture
		failed atomic.Pointer[error]
		done   = make(chan struct{})
		once   sync.Once
	)
	want.Store(-1)
	finish := func() {
		if w := want.Load(); w >= 0 && read.Load() == w {
			once.Do(func() { close(done) })
		}
	}
	asm := &plainAssembler{calls: map[string]*plainCall{}}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		out, err := asm.apply(m.Data())
		if err == nil && out != nil {
			var data []byte
			if data, err = json.Marshal(out); err == nil {
				var f jetstream.PubAckFuture
				if f, err = publishAsync(ctx, b.JS, "plain.out", data); err == nil {
					lastMu.Lock()
					last = f
					lastMu.Unlock()
					outs.Add(1)
				}
			}
		}
		if err != nil {
			failed.CompareAndSwap(nil, &err)
		}
		read.Add(1)
		finish()
	}, jetstream.PullMaxMessages(BatchMax))
	if err != nil {
		return res, err
	}
	defer cc.Stop()
	start := time.Now()
	var stored atomic.Int64
	errs := make(chan error, len(inputs))
	for i, in := range inputs {
		go func() {
			subj := "plain.in.s" + strconv.Itoa(i)
			var last jetstream.PubAckFuture
			err := plainEdge(in, func(m plainMsg) error {
				data, err := json.Marshal(m)
				if err != nil {
					return err
				}
				last, err = publishAsync(ctx, b.JS, subj, data)
				stored.Add(1)
				return err
			})
			if err == nil {
				_, err = waitPublished(ctx, b.JS, last)
			}
			errs <- err
		}()
	}
	for range inputs {
		if err := <-errs; err != nil {
			return res, err
		}
	}
	want.Store(stored.Load())
	finish()
	select {
	case <-done:
	case <-ctx.Done():
		return res, fmt.Errorf("bench: plain program read %d of %d: %w", read.Load(), stored.Load(), ctx.Err())
	}
	if p := failed.Load(); p != nil {
		return res, *p
	}
	lastMu.Lock()
	f := last
	lastMu.Unlock()
	if _, err := waitPublished(ctx, b.JS, f); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	res.Stored, res.Outcomes = int(stored.Load()), int(outs.Load())
	if asm.bad > 0 {
		return res, fmt.Errorf("bench: plain program: %d calls' arguments did not assemble", asm.bad)
	}
	return res, nil
}

// PlainOffline runs the plain program's edge and assembler over input
// without a server and returns the messages it would store and the
// outcomes (a test of what the baseline does).
func PlainOffline(input []byte) (stored, outcomes int, err error) {
	asm := &plainAssembler{calls: map[string]*plainCall{}}
	err = plainEdge(input, func(m plainMsg) error {
		stored++
		data, err := json.Marshal(m)
		if err != nil {
			return err
		}
		out, err := asm.apply(data)
		if out != nil {
			outcomes++
		}
		return err
	})
	if err == nil && asm.bad > 0 {
		err = fmt.Errorf("bench: %d calls did not assemble", asm.bad)
	}
	return stored, outcomes, err
}
