package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

// Projections is what the projections take from the process: the same in
// serve and in a replay of its views (a replay must be given serve's
// settings, or its rebuild differs).
type Projections struct {
	// Logger; nil discards.
	Logger *slog.Logger
	// Preview publishes the assembler's live previews (nil: none, as in
	// replay).
	Preview func(subject string, data []byte)
	// IdleTimeout is the assembler's event-time deadline for silent
	// responses (assembler.Config.IdleTimeout).
	IdleTimeout time.Duration
	// ArgsBytesMax bounds call arguments (assembler.Config.ArgsBytesMax).
	ArgsBytesMax int
	// LenientTenants have their almost-JSON arguments repaired.
	LenientTenants []string
	// Quotas are the assembler's per-tenant quotas (nil: none).
	Quotas *assembler.Quotas
	// Trust holds the keys whose registry changes the assembler accepts
	// (nil: none is).
	Trust *registry.Trust
	// Policies are the verifier's tenant policies.
	Policies verifier.Policies
	// Memory configures memory's engine (its quotas are part of the view;
	// the stack's memory service answers with the same engine settings).
	Memory memory.Config
	// DeleteRaw deletes a clear raw event from TS_IN once ingest has read
	// its sealed copy (assembler.IngestConfig.DeleteRaw; Start sets it to
	// the bus's, a replay leaves it nil). Ingest always seals raw events.
	DeleteRaw func(ctx context.Context, seq uint64) error
}

// Factory builds a fresh instance of one projection.
type Factory func() projector.Projection

// Catalogue is every projection by name, each built with cfg. A replay
// needs fresh instances: call the factory once per run.
func Catalogue(cfg Projections) map[string]Factory {
	return map[string]Factory{
		responses.Name: func() projector.Projection { return responses.Projection{} },
		assembler.IngestName: func() projector.Projection {
			return assembler.NewIngest(assembler.IngestConfig{Logger: cfg.Logger, SealRaw: true, DeleteRaw: cfg.DeleteRaw})
		},
		verifier.Name: func() projector.Projection {
			return verifier.NewProjection(verifier.ProjectionConfig{DefaultPolicy: cfg.Policies.Default, Policies: cfg.Policies.Tenants})
		},
		memory.Name:    func() projector.Projection { return memory.NewProjection(memory.NewEngine(cfg.Memory, nil)) },
		assembler.Name: func() projector.Projection { return cfg.Assembler() },
		runs.Name:      func() projector.Projection { return runs.New(runs.Config{}) },
		runs.CallsName: func() projector.Projection { return runs.Calls{} },
	}
}

// Names are the catalogue's projections, sorted (partitions not listed).
func Names() []string {
	var names []string
	for n := range Catalogue(Projections{}) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New builds the projection name: one of Names, or a partition assembler
// (assembler.PartitionName). An unknown name is ErrUnknown.
func New(cfg Projections, name string) (projector.Projection, error) {
	if p, ok := PartitionNumber(name); ok {
		return cfg.Assembler().Partition(p, bus.PartitionFilter(p)), nil
	}
	f, ok := Catalogue(cfg)[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// Assembler builds the assembler: the projection on an unpartitioned log,
// and each partition's on a partitioned one.
func (cfg Projections) Assembler() *assembler.Assembler {
	return assembler.New(assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](cfg.Trust), Logger: cfg.Logger,
		IdleTimeout: cfg.IdleTimeout, ArgsBytesMax: cfg.ArgsBytesMax, Quotas: cfg.Quotas, LenientTenants: cfg.LenientTenants, Preview: cfg.Preview})
}

// PartitionNumber reads p from a partition assembler's name
// (assembler.PartitionName).
func PartitionNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, assembler.Name+"-p")
	if !ok {
		return 0, false
	}
	p, err := strconv.Atoi(rest)
	if err != nil || p < 0 || assembler.PartitionName(p) != name {
		return 0, false
	}
	return p, true
}

// DeleteRaw deletes, overwriting it, the clear raw event at seq in TS_IN
// (Projections.DeleteRaw): ingest's, once the event's sealed copy is
// stored, and with tenant streams its copy in the tenant's ingress stream
// too (logread.DeleteClear) where b may (bus.Bus.DeletesTenantCopies:
// serve's embedded admin); a cluster's assembler role leaves that copy to
// the admin's Bus.TrimTenants. One already gone (deleted before, or past
// retention) is no error.
func DeleteRaw(b *bus.Bus) func(ctx context.Context, seq uint64) error {
	return func(ctx context.Context, seq uint64) error {
		var h nats.Header
		if b.TenantStreams() && b.DeletesTenantCopies() { // the origin is in the stored copy's header
			st := b.Stream(events.StreamIn)
			if st == nil {
				return fmt.Errorf("stack: stream %s not reachable", events.StreamIn)
			}
			gctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			m, err := st.GetMsg(gctx, seq)
			cancel()
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("stack: read clear raw event %d: %w", seq, err)
			}
			h = m.Header
		}
		if err := logread.DeleteClear(ctx, b.Stream, events.StreamIn, seq, h); err != nil {
			return fmt.Errorf("stack: delete clear raw event: %w", err)
		}
		return nil
	}
}
