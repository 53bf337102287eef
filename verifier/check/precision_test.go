package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestWordsBesideANumberThatAreNotItsField: a bound word with a noun or a
// colon between it and the number bounds the noun or nothing ("under
// budget at $2,500" is the spend, under the budget; "ran over: $4,125"
// is no bound), a state said of today is the state now (the flag decides,
// the date is not negated), and a minus after an ideograph is a sign
// (约-740毫米). Each was contradicted though true.
func TestWordsBesideANumberThatAreNotItsField(t *testing.T) {
	const lines = `{"lines": [{"item": "stage", "budgeted_cents": 720000, "spent_cents": 805050}, {"item": "lighting", "budgeted_cents": 210000, "spent_cents": 184000}]}`
	const pens = `{"day": "2026-03-01", "horses": [{"name": "Bramble", "shod": true, "ridden": false}, {"name": "Quill", "shod": false, "ridden": true}]}`
	const lake = `{"lake": "北湖", "readings": [{"site": "A1", "ice_temp_c": -3.6, "net_change_mm": -418}]}`
	wantVerdicts(t, []verdictCase{
		{lines, "Lighting came in under budget at $1,840.", events.VerdictSupported},
		{lines, "Lighting came in under budget at $1,900.", events.VerdictUnsupported},
		{lines, "Lighting spent under $2,000.", events.VerdictSupported},
		{lines, "Lighting spent under $1,500.", events.VerdictContradicted},
		{lines, "The stage ran over: $8,050.50 spent against a $7,200 budget.", events.VerdictSupported},
		{lines, "The stage went over: $8,500 spent.", events.VerdictContradicted},
		{pens, "Bramble was not ridden today.", events.VerdictSupported},
		{pens, "Quill was not ridden today.", events.VerdictContradicted},
		{pens, "Bramble was ridden today.", events.VerdictContradicted},
		{lake, "A1点冰温约-3.6度。", events.VerdictSupported},
		{lake, "A1点净变化为-418毫米。", events.VerdictSupported},
		{lake, "A1点净变化约-420毫米。", events.VerdictSupported},
		{lake, "A1点净变化为-318毫米。", events.VerdictContradicted},
	})
}

// TestACodeThatIsAWordOfTheValueIsNoOtherCode: a code the claim writes as
// one word of a field's value ("an Ed25519 SSH-2 key" beside "Ed25519
// SSH-2") is a part of it, not another identifier; a code that is no word
// of the value is still contradicted.
func TestACodeThatIsAWordOfTheValueIsNoOtherCode(t *testing.T) {
	const hosts = `{"hosts": [{"host": "relay-north", "key_algo": "Ed25519 SSH-2", "port": 2201}, {"host": "relay-south", "key_algo": "RSA-4096 SSH-2", "port": 2202}]}`
	wantVerdicts(t, []verdictCase{
		{hosts, "The relay-north key algo is Ed25519 SSH-2.", events.VerdictSupported},
		{hosts, "The relay-north key algo is RSA-4096 SSH-2.", events.VerdictContradicted},
	})
}
