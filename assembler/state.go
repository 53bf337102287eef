package assembler

import (
	"encoding/binary"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// Key layout (all under the projector's state prefix):
//
//	<tenant>\0c\0<response>\0<item>             call: identity, state, provenance
//	<tenant>\0b\0<response>\0<item>             argument bytes: one record per delta, appended
//	<tenant>\0r\0<response>                      response: status, counters
//	<tenant>\0x\0<response>                      its display text so far (appended), until its outcome
//	~open/<tenant>\0<response>                   open responses → last activity (deadlines)
//	~registry                                    the registry spec in effect
//
// Every row of a tenant's data starts with the tenant (invariant 7); the two
// "~" rows are the projection's own bookkeeping ('~' cannot start a tenant).

var (
	prefixOpen  = []byte("~open/")
	keyRegistry = []byte("~registry")
)

type callState uint8

const (
	stateOpen callState = iota
	stateDecided
)

// call is one call's row.
type call struct {
	Name     string    `msgpack:"n,omitempty"`
	CallID   string    `msgpack:"c,omitempty"`
	Index    int       `msgpack:"ix"`
	Order    int       `msgpack:"o"`
	State    callState `msgpack:"s"`
	Outcome  string    `msgpack:"oc,omitempty"`
	Overflow bool      `msgpack:"of,omitempty"`
	From     events.Provenance
	Env      envelope `msgpack:"env"`
	// Serial: completed with a side-effecting tool and no declared
	// dependencies, so the next such call of the response runs after it.
	Serial bool `msgpack:"sr,omitempty"`
}

// envelope is the context a call carries into the events it causes.
type envelope struct {
	User    string `msgpack:"u,omitempty"`
	Session string `msgpack:"ss,omitempty"`
	Run     string `msgpack:"run,omitempty"`
	Step    string `msgpack:"st,omitempty"`
}

// response is one response's row.
type response struct {
	Status    string   `msgpack:"s"` // "" while open, else the ResponseStatus
	Calls     int      `msgpack:"nc"`
	Decided   int      `msgpack:"nd"`
	Env       envelope `msgpack:"env"`
	TextBytes int      `msgpack:"tb,omitempty"` // display text kept (textKey), at most Config.TextBytesMax
	Provider  string   `msgpack:"p,omitempty"`  // ResponseStarted's, for the outcome (the runs' message shape)
	// ClientRuns is ResponseStarted's: the client runs the calls itself,
	// and each CallCompleted says so.
	ClientRuns bool `msgpack:"cr,omitempty"`
	// ToolsOnly and Tools are ResponseStarted's: the only tools the
	// response's calls may name (a child run's).
	ToolsOnly bool     `msgpack:"to,omitempty"`
	Tools     []string `msgpack:"tl,omitempty"`
}

func callKey(tenant, resp, item string) ([]byte, error) {
	return projector.TenantKey(tenant, "c", resp, item)
}

func callsPrefix(tenant, resp string) ([]byte, error) {
	return projector.TenantKey(tenant, "c", resp, "")
}

// argsKey is a call's argument row: its deltas in arrival order, each as a
// record (uvarint length, bytes), appended (projector.Tx.Append).
func argsKey(tenant, resp, item string) ([]byte, error) {
	return projector.TenantKey(tenant, "b", resp, item)
}

// argRecords walks an argument row's records; it reports a corrupt row.
func argRecords(row []byte, fn func(delta []byte)) error {
	for len(row) > 0 {
		n, w := binary.Uvarint(row)
		if w <= 0 || uint64(len(row)-w) < n {
			return fmt.Errorf("assembler: corrupt argument row at %d bytes from its end", len(row))
		}
		fn(row[w : w+int(n)])
		row = row[w+int(n):]
	}
	return nil
}

func respKey(tenant, resp string) ([]byte, error) { return projector.TenantKey(tenant, "r", resp) }

// textKey is a response's display text, appended as it streams.
func textKey(tenant, resp string) ([]byte, error) { return projector.TenantKey(tenant, "x", resp) }

func openKey(tenant, resp string) []byte {
	return append(append(append([]byte(nil), prefixOpen...), tenant+"\x00"...), resp...)
}

func load[T any](tx projector.Reader, key []byte, v *T) (bool, error) {
	b, ok, err := tx.Get(key)
	if err != nil || !ok {
		return false, err
	}
	if err := msgpack.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("assembler: corrupt row %q: %w", key, err)
	}
	return true, nil
}

func store[T any](tx projector.Writer, key []byte, v *T) error {
	if r, ok := any(v).(rowAppender); ok {
		return tx.Set(key, r.appendMsgpack(make([]byte, 0, 128)))
	}
	b, err := msgpack.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Set(key, b)
}
