package stack

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/judging"
	"github.com/toolstream/toolstream/projector"
)

// Durable is one processor's durable consumer on a stream of the log.
type Durable struct{ Stream, Name string }

// Durables lists every processor's durable consumer on b's log: each
// projection's (the partitions' assemblers on a partitioned log), the
// executors' two and the judge's.
func Durables(b *bus.Bus) ([]Durable, error) {
	var out []Durable
	add := func(p projector.Projection) error {
		s, err := events.StreamOfAll(p.Subjects())
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name(), err)
		}
		out = append(out, Durable{s, "ts-" + p.Name()})
		return nil
	}
	cfg := Projections{Logger: slog.New(slog.DiscardHandler)}
	for _, name := range Names() {
		if n := b.Partitions(); name == assembler.Name && n > 0 {
			for p := range n {
				if err := add(cfg.Assembler().Partition(p, bus.PartitionFilter(p))); err != nil {
					return nil, err
				}
			}
			continue
		}
		p, err := New(cfg, name)
		if err != nil {
			return nil, err
		}
		if err := add(p); err != nil {
			return nil, err
		}
	}
	out = append(out, Durable{events.StreamCalls, "ts-executor"}, Durable{events.StreamCalls, "ts-executor-approvals"},
		Durable{events.StreamOut, "ts-judge"})
	return out, nil
}

// CreateConsumers creates every processor's durable consumer (Durables)
// that does not exist yet, as the admin identity: `toolstream setup` on a
// cluster, serve on one machine, before any processor starts. Processors'
// roles only bind them (package auth): none can delete or reconfigure one.
// Existing consumers are left as they are.
func CreateConsumers(ctx context.Context, b *bus.Bus, log *slog.Logger) error {
	ds, err := Durables(b)
	if err != nil {
		return err
	}
	for _, d := range ds {
		switch d.Name {
		case "ts-executor", "ts-executor-approvals", "ts-judge":
			continue
		}
		if err := projector.CreateConsumer(ctx, b.JS, d.Stream, d.Name); err != nil {
			return err
		}
	}
	if err := executor.CreateConsumers(ctx, executor.Config{JS: b.JS}); err != nil {
		return err
	}
	if err := judging.CreateConsumer(ctx, b.JS); err != nil {
		return err
	}
	if log != nil {
		log.Info("durable consumers ready", "consumers", len(ds))
	}
	return nil
}
