package main

import (
	"log/slog"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

// deps are the flags and the process's parts the projections take (the
// catalogue is package stack's). Bus is nil in replay, so live-only outputs
// (previews) are off there.
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
	memFlags    memoryFlags       // serve and replay --memory-* (memoryflags.go)
	memory      memory.Config     // what memFlags say, once read
}

// projections is the catalogue's configuration the flags say.
func (d *deps) projections() stack.Projections {
	p := stack.Projections{Logger: d.log, IdleTimeout: d.idleTimeout, ArgsBytesMax: d.argsMax, LenientTenants: d.lenient,
		Quotas: d.quota, Trust: d.trust, Policies: d.policies, Memory: d.memory}
	if d.bus != nil {
		nc := d.bus.Conn
		p.Preview = func(subject string, data []byte) { nc.Publish(subject, data) }
	}
	return p
}

func projectionNames() []string { return stack.Names() }

func newProjection(name string, d *deps) (projector.Projection, error) {
	return stack.New(d.projections(), name)
}
