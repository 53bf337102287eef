package assembler

import (
	"bytes"
	"fmt"

	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// OpenCalls counts, in an assembler view, the responses still open and
// their calls with no decision yet (for metrics). It reads the open-response
// index and the call rows of those responses only, so its cost grows with
// what is open, not with the view. r should be a snapshot (Runner.View).
func OpenCalls(r projector.Reader) (responses, calls int, err error) {
	type open struct{ tenant, resp string }
	var opens []open
	err = r.Scan(prefixOpen, func(k, _ []byte) error {
		tenant, resp, ok := bytes.Cut(k[len(prefixOpen):], []byte{0})
		if !ok {
			return fmt.Errorf("assembler: corrupt open row %q", k)
		}
		opens = append(opens, open{string(tenant), string(resp)})
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	for _, o := range opens {
		prefix, err := callsPrefix(o.tenant, o.resp)
		if err != nil {
			return 0, 0, err
		}
		err = r.Scan(prefix, func(k, v []byte) error {
			var c call
			if err := msgpack.Unmarshal(v, &c); err != nil {
				return fmt.Errorf("assembler: corrupt row %q: %w", k, err)
			}
			if c.State == stateOpen {
				calls++
			}
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
	}
	return len(opens), calls, nil
}
