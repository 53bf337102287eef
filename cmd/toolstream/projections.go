package main

import (
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/responses"
	"github.com/toolstream/toolstream/runs"
	"github.com/toolstream/toolstream/verifier"
)

// deps are what projections may need from the process. Bus is nil in
// replay, so live-only outputs (previews) are off there.
type deps struct {
	g           *globals
	log         *slog.Logger
	bus         *bus.Bus
	idleTimeout time.Duration
	argsMax     int
	lenient     []string          // tenants whose almost-JSON arguments are repaired (assembler.Config.LenientTenants)
	quotaFlags  quotaFlags        // the assembler's quotas (quotas.go)
	quota       *assembler.Quotas // what quotaFlags says, once read
	trust       *registry.Trust   // registry keys whose changes take effect (registrykeys.go)
	console     string            // serve --console ADDR (console.go)
	gateway     gatewayFlags      // serve --gateway ADDR --gateway-config FILE (gateway.go)
	embed       embedFlags        // serve --embed-url URL --embed-model M (memory.go)
	verify      verifyFlags       // serve and replay --verify-policy FILE (verifypolicy.go)
	policies    verifier.Policies // what verify says, once read
}

// projectionFactories builds a fresh instance of each projection by name.
// Replay needs fresh instances; serve builds one of each it runs.
var projectionFactories = map[string]func(d *deps) (projector.Projection, error){
	responses.Name: func(*deps) (projector.Projection, error) { return responses.Projection{}, nil },
	assembler.IngestName: func(d *deps) (projector.Projection, error) {
		return assembler.NewIngest(assembler.IngestConfig{Logger: d.log}), nil
	},
	verifier.Name: func(d *deps) (projector.Projection, error) {
		return verifier.NewProjection(verifier.ProjectionConfig{DefaultPolicy: d.policies.Default, Policies: d.policies.Tenants}), nil
	},
	memory.Name: func(*deps) (projector.Projection, error) {
		return memory.NewProjection(memory.NewEngine(memory.Config{}, nil)), nil
	},
	assembler.Name: func(d *deps) (projector.Projection, error) { return newAssembler(d), nil },
	runs.Name:      func(*deps) (projector.Projection, error) { return runs.New(runs.Config{}), nil },
	runs.CallsName: func(*deps) (projector.Projection, error) { return runs.Calls{}, nil },
}

// newAssembler builds the assembler: the projection on an unpartitioned
// log, and each partition's (cluster.RunAssemblerPartitions) on a
// partitioned one.
func newAssembler(d *deps) *assembler.Assembler {
	cfg := assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](d.trust), Logger: d.log, IdleTimeout: d.idleTimeout, ArgsBytesMax: d.argsMax, Quotas: d.quota, LenientTenants: d.lenient}
	if d.bus != nil {
		nc := d.bus.Conn
		cfg.Preview = func(subject string, data []byte) { nc.Publish(subject, data) }
	}
	return assembler.New(cfg)
}

func projectionNames() []string {
	var names []string
	for n := range projectionFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newProjection(name string, d *deps) (projector.Projection, error) {
	if p, ok := partitionNumber(name); ok {
		return newAssembler(d).Partition(p, bus.PartitionFilter(p)), nil
	}
	f, ok := projectionFactories[name]
	if !ok {
		return nil, fmt.Errorf("unknown projection %q (known: %s)", name, strings.Join(projectionNames(), ", "))
	}
	return f(d)
}

// partitionNumber reads p from a partition assembler's name
// (assembler.PartitionName).
func partitionNumber(name string) (int, bool) {
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
