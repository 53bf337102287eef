package bench

import (
	"context"
	"fmt"

	"github.com/toolstream/toolstream/internal/bus"
)

// Traffic is what a bus's client connection sent and received and what
// its server's streams hold, read at one moment: the difference of two
// readings around a side of a row is that side's traffic with the log
// (its requests and acknowledgements out, its deliveries and answers in)
// and the messages it stored.
type Traffic struct {
	Out, In uint64 // messages written and read by b.Conn (nats.go's statistics)
	Stored  uint64 // messages held by all of the server's streams
}

// TrafficOf reads b's connection's message counts and the messages all
// its streams hold.
func TrafficOf(ctx context.Context, b *bus.Bus) (Traffic, error) {
	st := b.Conn.Stats()
	n, err := storedMessages(ctx, b)
	if err != nil {
		return Traffic{}, fmt.Errorf("bench: list streams: %w", err)
	}
	return Traffic{Out: st.OutMsgs, In: st.InMsgs, Stored: uint64(n)}, nil
}

// Sub returns t minus before: the traffic between the two readings (the
// listing's own request and answer are in it, two messages a reading).
func (t Traffic) Sub(before Traffic) Traffic {
	return Traffic{Out: t.Out - before.Out, In: t.In - before.In, Stored: t.Stored - before.Stored}
}
