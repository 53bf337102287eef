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

// TestAPendingStatusContradictsOnlyAClaimThatSaysItHappened: a status
// still to come (pending_review, awaiting_pickup, 待审核) contradicts a
// claim only when the claim's own aspect words, in its language, say the
// thing has happened (was collected, is reviewed, 已经审核了); a claim saying it is
// under way (is being reviewed, 正在审核) or held until it happens says the
// pending state in other words, and is not contradicted.
func TestAPendingStatusContradictsOnlyAClaimThatSaysItHappened(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		contradicted  bool
	}{
		{`{"permit": "P-5", "status": "pending_review"}`, "Permit P-5 is still being reviewed.", false},
		{`{"permit": "P-5", "status": "pending_review"}`, "Permit P-5 is currently under review.", false},
		{`{"shipment": "S-9", "status": "awaiting_pickup"}`, "S-9 is held at the depot until pickup.", false},
		{`{"报销单": "BX-12", "状态": "待审核"}`, "BX-12正在审核。", false},
		{`{"报销单": "BX-12", "状态": "待审核"}`, "BX-12还在审核", false},
		// the thing said to have happened: contradicted, in either language
		{`{"permit": "P-5", "status": "pending_review"}`, "Permit P-5 was reviewed last week.", true},
		{`{"shipment": "S-9", "status": "awaiting_collection"}`, "S-9 has already been collected.", true},
		{`{"报销单": "BX-12", "状态": "待审核"}`, "BX-12已经审核了。", true},
		{`{"permit": "P-5", "status": "pending_review"}`, "Permit P-5 is reviewed and valid.", true},
	} {
		got, why := checkOne(t, c, tc.result, tc.claim, now)
		if (got == events.VerdictContradicted) != tc.contradicted {
			t.Errorf("%q beside %s: %s (%s), want contradicted %v", tc.claim, tc.result, got, why, tc.contradicted)
		}
	}
}
