package executor

import (
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// delivery is what the executor reads of an input's delivery metadata:
// its stream sequence and how many times it was delivered.
type delivery struct {
	seq       uint64 // the message's stream sequence
	delivered uint64 // deliveries so far, this one included
}

// ackTokensV1 and ackTokensV2 are the token counts of the two forms of a
// JetStream acknowledgement subject:
//
//	$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<tm>.<pending>
//	$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<tm>.<pending>[.<token>...]
//
// the second with at least 11 tokens (a 12th, and any after it, ignored).
const ackTokensV1, ackTokensV2Min = 9, 11

// deliveryOf reads m's delivery from its reply subject without
// allocating (jetstream.Msg's Metadata allocates its result each time,
// about one µs of a no-op call with what the collector makes of it). It
// reads the subject as nats.go's parser does: the same forms are
// accepted, and a form it refuses is refused here with
// jetstream.ErrNotJSMessage, so a message without metadata is still
// terminated by handleCallMsg. A number that is not one reads 0, as there.
func deliveryOf(m jetstream.Msg) (delivery, error) {
	return parseDelivery(m.Reply())
}

func parseDelivery(reply string) (delivery, error) {
	rest, ok := strings.CutPrefix(reply, "$JS.ACK.")
	if !ok {
		return delivery{}, jetstream.ErrNotJSMessage
	}
	switch n := strings.Count(reply, ".") + 1; {
	case n == ackTokensV1:
	case n >= ackTokensV2Min:
		for range 2 { // domain and account hash
			_, rest, _ = strings.Cut(rest, ".")
		}
	default:
		return delivery{}, jetstream.ErrNotJSMessage
	}
	// <stream>.<consumer>.<delivered>.<sseq>.
	for range 2 {
		_, rest, _ = strings.Cut(rest, ".")
	}
	delivered, rest, _ := strings.Cut(rest, ".")
	seq, _, _ := strings.Cut(rest, ".")
	return delivery{seq: parseAckNum(seq), delivered: parseAckNum(delivered)}, nil
}

// parseAckNum reads a decimal number of an acknowledgement subject; 0 when
// it is empty or holds anything but digits (nats.go's parser.ParseNum).
func parseAckNum(s string) uint64 {
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + uint64(c-'0')
	}
	return n
}
