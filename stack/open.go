package stack

import (
	"context"
	"fmt"
	"time"

	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/keys"
)

// Open opens the bus cfg describes and its data keys (package keys), which
// seal personal data in the log: an embedded server's are made on first
// use; on an external server `toolstream setup` made the bucket (Open waits
// up to ten seconds for it); a producer's identity (cfg.ConnectOnly) needs
// none. The caller closes the bus.
func Open(ctx context.Context, cfg bus.Config) (*bus.Bus, error) {
	b, err := bus.Open(ctx, cfg)
	if err != nil || cfg.ConnectOnly {
		return b, err
	}
	kr, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: b.Embedded(), Replicas: b.Replicas(), Logger: cfg.Logger, SetupMax: 10 * time.Second})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%w (toolstream setup makes it on a cluster)", err)
	}
	b.Keys = kr
	return b, nil
}
