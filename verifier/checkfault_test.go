package verifier

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A fault of the checker's on one answer (a panic: heldout7's blind run
// found one, a range from a row to itself) is that answer's rejection, with
// the fault as its reason, and the next answer is verified: one answer,
// which any producer can write, does not stop the verifier for every
// tenant, nor again at each replay.
func TestACheckerFaultRejectsItsAnswerAlone(t *testing.T) {
	p := NewProjection(ProjectionConfig{})
	kept := p.check
	p.check = func(text string, parts []*evidence.EvidenceIndex, failed []evidence.Evidence, now time.Time) (Report, error) {
		if text == "boom" {
			var s []int
			_ = s[len(text)] // a fault of the checker's
		}
		return kept(text, parts, failed, now)
	}
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano()
	var msgs []*projector.Msg
	for i, text := range []string{"boom", "The order shipped."} {
		subj, _ := events.AnswerSubject("acme", fmt.Sprintf("resp%d", i))
		data, err := events.Encode(&events.Event{ID: fmt.Sprintf("a%d", i), Tenant: "acme", Run: fmt.Sprintf("run%d", i),
			Response: fmt.Sprintf("resp%d", i), At: at, Body: &events.AnswerSubmitted{Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, &projector.Msg{Seq: uint64(i + 1), Subject: subj, Time: at, Data: data})
	}
	if _, err := l.Apply(context.Background(), msgs...); err != nil {
		t.Fatalf("a fault of the checker's stopped the projection: %v", err)
	}
	if _, err := Get(l.Runner().View(), "acme", "resp0"); !errors.Is(err, ErrNotVerified) {
		t.Errorf("the answer the checker failed on: %v, want no verdict", err)
	}
	if _, err := Get(l.Runner().View(), "acme", "resp1"); err != nil {
		t.Errorf("the next answer: %v", err)
	}
	rej, err := l.Runner().Rejections()
	if err != nil {
		t.Fatal(err)
	}
	if len(rej) != 1 || rej[0].Seq != 1 {
		t.Fatalf("rejections %+v, want the first answer's", rej)
	}
	if r := fmt.Sprint(rej[0]); !strings.Contains(r, "checker failed") || !strings.Contains(r, "index out of range") {
		t.Errorf("rejection %s does not say the checker failed and how", r)
	}
}
