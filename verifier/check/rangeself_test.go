package check

import (
	"testing"
	"time"
)

// A range whose two ends name the same row ("from Kiln 2 to Kiln 2", a
// row named by two of its values, 1号到1号) has no rows between them: the
// checker reads the claim, and does not panic on it (it did: slice bounds
// out of range in MembersBetween, found by heldout7's blind run).
func TestARangeFromARowToItselfHasNothingBetween(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	rows := `{"kilns":[{"kiln":"Kiln 1","code":"K1","temp_c":980},{"kiln":"Kiln 2","code":"K2","temp_c":1020},{"kiln":"Kiln 3","code":"K3","temp_c":1100}]}`
	zh := `{"窑":[{"名称":"1号窑","温度":980},{"名称":"2号窑","温度":1020},{"名称":"3号窑","温度":1100}]}`
	for _, tc := range []struct{ result, claim string }{
		{rows, "From Kiln 2 to Kiln 2 the temperature was 1020 °C."},
		{rows, "From Kiln 2 to K2 the temperature stayed at 1020 °C."},
		{rows, "Kiln 1 to Kiln 3 ran between 980 and 1100 °C."},
		{zh, "2号窑到2号窑的温度是1020度。"},
	} {
		checkOne(t, c, tc.result, tc.claim, now) // must not panic
	}
}
