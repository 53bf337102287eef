package verifier

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/toolstream/toolstream/events"
)

func TestApplyJudgeVerdictsIgnoresJunk(t *testing.T) {
	r := Report{Claims: []events.ClaimVerdict{{Text: "x", Verdict: events.VerdictUnsupported}}, Undecided: []int{0}}
	got := ApplyJudgeVerdicts(r, []events.JudgeVerdict{{Claim: 5, Verdict: events.VerdictSupported}, {Claim: 0, Verdict: "maybe"}})
	if got.Claims[0].Verdict != events.VerdictUnsupported || !slices.Equal(got.Undecided, []int{0}) || got.Faithfulness != 0 {
		t.Fatalf("got %+v", got)
	}
}

func TestValidateEvidence(t *testing.T) {
	if err := ValidateEvidence(Evidence{CallID: "c", Result: json.RawMessage(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []Evidence{{CallID: "", Result: json.RawMessage(`{}`)}, {CallID: "c", Result: json.RawMessage(`{"a":`)}} {
		if err := ValidateEvidence(e); !errors.Is(err, ErrBadEvidence) {
			t.Errorf("ValidateEvidence(%+v) = %v", e, err)
		}
	}
}
