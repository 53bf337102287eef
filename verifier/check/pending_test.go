package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAPendingStatusIsAFalseFlagOfWhatItAwaits: a status value led by a
// pending word (awaiting_, pending_, waiting_, 待, 等待) says that what the
// rest of it names has not happened: a claim that it has is contradicted,
// one that it has not supported, in English and Chinese; a claim saying the
// pending state itself, and a value of a pending word alone or of another
// thing, are left as before.
func TestAPendingStatusIsAFalseFlagOfWhatItAwaits(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"lease": "Flat 4B", "status": "awaiting_signature"}`, "The Flat 4B lease has been signed.", events.VerdictContradicted},
		{`{"lease": "Flat 4B", "status": "awaiting_signature"}`, "The Flat 4B lease has not been signed yet.", events.VerdictSupported},
		{`{"lease": "Flat 4B", "status": "awaiting signature"}`, "The Flat 4B lease is awaiting signature.", events.VerdictSupported},
		{`{"invoice": "INV-31", "state": "pending_payment"}`, "INV-31 has been paid.", events.VerdictContradicted},
		{`{"invoice": "INV-31", "state": "pending_payment"}`, "INV-31 is unpaid.", events.VerdictSupported},
		{`{"permit": "P-5", "status": "waiting_verification"}`, "Permit P-5 has been verified.", events.VerdictContradicted},
		{`{"协议": "租赁协议3号", "状态": "待签署"}`, "租赁协议3号已经签署了。", events.VerdictContradicted},
		{`{"协议": "租赁协议3号", "状态": "待签署"}`, "租赁协议3号还没签署。", events.VerdictSupported},
		{`{"账号": "U-8", "状态": "等待验证"}`, "U-8已经验证了。", events.VerdictContradicted},
		// a pending word alone, or a value of another thing: not read
		{`{"lease": "Flat 4B", "status": "pending"}`, "The Flat 4B lease has been signed.", events.VerdictSupported},
		{`{"lease": "Flat 4B", "status": "awaiting_inspection"}`, "The Flat 4B lease has been signed.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
