//go:build invariants

package assembler

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestResponseAccountingInvariant (-tags invariants): a response row
// counting more calls decided than opened, or more text than its bound, is
// an impossible state and panics when stored.
func TestResponseAccountingInvariant(t *testing.T) {
	for _, c := range []struct {
		row  response
		want string
	}{
		{response{Calls: 1, Decided: 2, Status: "completed"}, "2 calls decided of 1"},
		{response{Calls: 1, TextBytes: 11, Status: "completed"}, "11 bytes of text kept, bound 10"},
	} {
		s := &step{a: &Assembler{cfg: Config{TextBytesMax: 10}}, ev: &events.Event{Tenant: "acme", Response: "r1"}, re: &respEntry{row: c.row}}
		func() {
			defer func() {
				p := recover()
				if msg, _ := p.(string); !strings.Contains(msg, c.want) {
					t.Errorf("%+v: recovered %v, want %q", c.row, p, c.want)
				}
			}()
			s.checkResponse()
		}()
	}
}
