package stack

import (
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/auth"
)

// guardConnections bounds each tenant's producer's connections to the
// embedded server (auth.ConnGuard, auth.ProducerConnsMax) from a
// connection of the system account: NATS bounds connections per account
// only, and every role shares the log's.
func (s *Stack) guardConnections() error {
	b := s.cfg.Bus
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleSys})
	if err != nil {
		return err
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("toolstream-connguard"))...)
	if err != nil {
		return fmt.Errorf("connection guard: %w", err)
	}
	s.onStop(nc.Close)
	g := auth.NewConnGuard(nc, b.Auth().AccountPublicKey(), 0, s.log)
	s.goRun("connection guard", g.Run)
	return nil
}
