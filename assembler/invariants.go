package assembler

import "github.com/toolstream/toolstream/internal/invariants"

// checkResponse is the assembler's accounting invariant, checked with
// -tags invariants each time a response row is stored: no more calls
// decided than opened, the display text kept within Config.TextBytesMax,
// and while the response is open its text row is exactly TextBytes long
// (the bound is enforced on the count, so a count that drifts from the row
// would let the text grow past it or cut it short). It reads the text row,
// which is why it is not always on.
func (s *step) checkResponse() {
	row := &s.re.row
	if row.Decided < 0 || row.Decided > row.Calls {
		invariants.Failf("assembler: %s/%s: %d calls decided of %d", s.ev.Tenant, s.ev.Response, row.Decided, row.Calls)
	}
	if row.TextBytes < 0 || row.TextBytes > s.a.cfg.TextBytesMax {
		invariants.Failf("assembler: %s/%s: %d bytes of text kept, bound %d", s.ev.Tenant, s.ev.Response, row.TextBytes, s.a.cfg.TextBytesMax)
	}
	if row.Status != "" {
		return // the outcome took the text and deleted its row
	}
	tk, err := textKey(s.ev.Tenant, s.ev.Response)
	if err != nil {
		invariants.Failf("assembler: %s/%s: %v", s.ev.Tenant, s.ev.Response, err)
	}
	text, _, err := s.tx.Get(tk)
	if err != nil {
		invariants.Failf("assembler: %s/%s: reading the text: %v", s.ev.Tenant, s.ev.Response, err)
	}
	if len(text) != row.TextBytes {
		invariants.Failf("assembler: %s/%s: the text row holds %d bytes, the count says %d", s.ev.Tenant, s.ev.Response, len(text), row.TextBytes)
	}
}
