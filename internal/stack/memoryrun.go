package stack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/memory"
)

// MemoryRunConfig is one one-shot run of memory operations (toolstream
// memory run).
type MemoryRunConfig struct {
	// Bus is the log; its Keys seal the writes (memory.SealScope).
	Bus *bus.Bus
	// Dir holds the memory projection's view.
	Dir string
	// Memory configures the engine of the projection and of the recalls.
	Memory memory.Config
	// Logger; nil discards.
	Logger *slog.Logger
}

// MemoryRun reads memory operations from in, one JSON object (memory.Op) a
// line (blank lines and lines starting with # skipped), publishes each
// write as the memory service would (a message as the extractor's records,
// Engine.MessageEvents; the rest as one event, Op.Event), sealed, while the
// memory projection applies them; each recall waits until everything
// before it is applied and writes its answer (Engine.Answer) to out as one
// JSON line. A write whose tenant or user makes no subject is logged and
// skipped; a line that is not JSON, or a write that makes no event, ends
// the run with its line number.
func MemoryRun(ctx context.Context, cfg MemoryRunConfig, in io.Reader, out io.Writer) error {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := cfg.Bus
	n := NewNode(b, cfg.Dir, log)
	defer n.Stop()
	engine := memory.NewEngine(cfg.Memory, nil)
	r, err := n.Start(ctx, memory.NewProjection(engine), nil)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	var last uint64
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		var op memory.Op
		if err := json.Unmarshal(raw, &op); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if op.Op != "recall" {
			evs, err := memoryRunEvents(engine, &op, line)
			if err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			subj, err := events.MemorySubject(op.Tenant, op.User)
			if err != nil {
				// Bad input loses nothing: it still goes to the log, where the
				// projection rejects it with its reason.
				log.Warn("memory op refused", "line", line, "err", err)
				continue
			}
			for _, ev := range evs {
				ack, err := b.PublishSealed(ctx, subj, ev, memory.SealScope(ev))
				if err != nil {
					log.Warn("memory op refused", "line", line, "err", err)
					continue
				}
				last = ack.Sequence
			}
			continue
		}
		if err := r.WaitFor(ctx, last); err != nil {
			return err
		}
		v := r.View()
		ans := engine.Answer(v, &op)
		v.Close()
		if err := enc.Encode(ans); err != nil {
			return err
		}
	}
	return sc.Err()
}

// memoryRunEvents are the events of a write op: a message is written as
// the service writes it (Engine.MessageEvents), an observation, correction
// or forgetting as one event (Op.Event).
func memoryRunEvents(e *memory.Engine, op *memory.Op, line int) ([]*events.Event, error) {
	if op.Op != "message" {
		ev, err := op.Event(line)
		return []*events.Event{ev}, err
	}
	at, err := time.Parse(time.RFC3339Nano, op.Time)
	if op.Time == "" {
		at, err = time.Unix(0, 0).UTC(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("time %q: want RFC 3339: %w", op.Time, err)
	}
	return e.ReplyEvents(op.Tenant, op.User, op.ID, op.Text, op.ReplyTo, at.UnixNano())
}
