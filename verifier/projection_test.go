package verifier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// projectionLog returns the labelled cases as a log: each case a run with
// its results (CallSucceeded) then its answer (AnswerSubmitted at the
// case's time).
func projectionLog(t testing.TB, cases []checkedCase) []*projector.Msg {
	t.Helper()
	var msgs []*projector.Msg
	add := func(ev *events.Event, subj string) {
		data, err := events.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, &projector.Msg{Seq: uint64(len(msgs) + 1), Subject: subj, Time: ev.At, Data: data})
	}
	for i, cc := range cases {
		run := fmt.Sprintf("run%d", i)
		now, _ := time.Parse(time.RFC3339, cc.rc.Now)
		for k, e := range cc.rc.Evidences() {
			subj, err := events.ResultSubject("acme", fmt.Sprintf("c%d-%d", i, k))
			if err != nil {
				t.Fatal(err)
			}
			at := now
			if !e.At.IsZero() {
				at = e.At
			}
			var body events.Body = &events.CallSucceeded{Name: e.Name, Version: e.Version, Key: run + "/" + e.CallID, Result: e.Result, FreshFor: e.FreshFor}
			if e.Failed != nil {
				body = &events.CallFailed{Name: e.Name, Version: e.Version, Key: run + "/" + e.CallID, Error: events.ErrorType(e.Failed.Error), Message: e.Failed.Message}
			}
			add(&events.Event{ID: fmt.Sprintf("r%d-%d", i, k), Tenant: "acme", Run: run, CallID: e.CallID, At: at.UnixNano(), Body: body}, subj)
		}
		subj, _ := events.AnswerSubject("acme", fmt.Sprintf("resp%d", i))
		add(&events.Event{ID: fmt.Sprintf("a%d", i), Tenant: "acme", Run: run, Response: fmt.Sprintf("resp%d", i), At: now.UnixNano(),
			Body: &events.AnswerSubmitted{Text: cc.rc.Answer}}, subj)
	}
	return msgs
}

// applyIn applies msgs to a fresh view in batches of the sizes sizes picks
// and returns the view's digest and the local projection.
func applyIn(t *testing.T, msgs []*projector.Msg, sizes func() int) (projector.Digest, *projector.Local) {
	t.Helper()
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), NewProjection(ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for i := 0; i < len(msgs); {
		n := min(max(sizes(), 1), len(msgs)-i)
		if _, err := l.Apply(context.Background(), msgs[i:i+n]...); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	d, err := l.Runner().Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d, l
}

// The projection verifies against the indexes it made when the results
// arrived and gives the verdicts Check gives; its view's digest is the same
// whatever the batches the log is applied in (replay equals live).
func TestProjectionIndexedEvidence(t *testing.T) {
	cases := checkedSet(t)
	if testing.Short() {
		cases = cases[:20]
	}
	msgs := projectionLog(t, cases)
	one, l := applyIn(t, msgs, func() int { return len(msgs) })
	for i, cc := range cases {
		v, err := Get(l.Runner().View(), "acme", fmt.Sprintf("resp%d", i))
		if err != nil {
			t.Fatalf("%s: %v", cc.rc.Name, err)
		}
		got, _ := json.Marshal(v.Verified.Claims)
		want, _ := json.Marshal(cc.rep.Claims)
		if !bytes.Equal(got, want) || v.Verified.Faithfulness != cc.rep.Faithfulness || !slices.Equal(v.Undecided, cc.rep.Undecided) {
			t.Errorf("%s: the projection's verdicts differ from Check's:\n%s\n%s", cc.rc.Name, got, want)
		}
	}
	// The digest of the whole set, and of a part of it applied three ways.
	if one.Keys == 0 {
		t.Fatalf("empty view: %s", one)
	}
	msgs = projectionLog(t, cases[:12])
	all, _ := applyIn(t, msgs, func() int { return len(msgs) })
	each, _ := applyIn(t, msgs, func() int { return 1 })
	rng := rand.New(rand.NewPCG(5, 6))
	mixed, _ := applyIn(t, msgs, func() int { return 1 + rng.IntN(7) })
	if all.Sum != each.Sum || all.Sum != mixed.Sum {
		t.Fatalf("digests depend on batches: one batch %s, one per message %s, mixed %s", all, each, mixed)
	}
}

// A row stored before results were indexed (no index, or an index of
// another format) is indexed when an answer needs it: the same verdicts.
func TestEvidenceRowWithoutIndex(t *testing.T) {
	set := checkedSet(t)
	cc := set[slices.IndexFunc(set, func(cc checkedCase) bool { return len(cc.rc.Evidence) >= 2 })]
	now, _ := time.Parse(time.RFC3339, cc.rc.Now)
	rows := memRows{}
	for i, e := range cc.rc.Evidences() {
		r := evidenceRow{CallID: e.CallID, Name: e.Name, Version: e.Version, Result: e.Result, FreshFor: int64(e.FreshFor)}
		if !e.At.IsZero() {
			r.At = e.At.UnixNano()
		}
		if e.Failed != nil {
			r.Error, r.Message = e.Failed.Error, e.Failed.Message
		}
		if i%2 == 1 {
			r.Index = []byte{0xff} // a format no verifier writes
		}
		b, _ := msgpack.Marshal(&r)
		k, _ := projector.TenantKey("acme", "ev", "run:x", "")
		rows[string(seqSuffix(k, uint64(i+1)))] = b
	}
	parts, failed, err := evidenceParts(rows, "acme", "run:x")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := NewChecker(CheckerConfig{}).CheckKept(cc.rc.Answer, parts, failed, now)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rep)
	want, _ := json.Marshal(cc.rep)
	if !bytes.Equal(got, want) {
		t.Fatalf("verdicts differ:\n%s\n%s", got, want)
	}
}

// memRows is a projector.Reader over a map.
type memRows map[string][]byte

func (m memRows) Get(k []byte) ([]byte, bool, error) { v, ok := m[string(k)]; return v, ok, nil }

func (m memRows) Scan(prefix []byte, fn func(k, v []byte) error) error {
	var keys []string
	for k := range m {
		if strings.HasPrefix(k, string(prefix)) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn([]byte(k), m[k]); err != nil {
			return err
		}
	}
	return nil
}

// A judge verdict decides a claim the checker left undecided, once: the
// same verdict published again and a verdict on a claim the checker
// decided change nothing and emit nothing.
func TestJudgeVerdictDecidesAnUndecidedClaimOnce(t *testing.T) {
	var msgs []*projector.Msg
	add := func(ev *events.Event, subj string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		data, err := events.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, &projector.Msg{Seq: uint64(len(msgs) + 1), Subject: subj, Time: ev.At, Data: data})
	}
	at := time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC).UnixNano()
	subj, err := events.ResultSubject("acme", "c1")
	add(&events.Event{ID: "r1", Tenant: "acme", Run: "run1", CallID: "c1", At: at,
		Body: &events.CallSucceeded{Name: "get_item", Key: "run1/c1", Result: []byte(`{"name":"Kettle","price":{"amount":12,"currency":"EUR"}}`)}}, subj, err)
	subj, err = events.AnswerSubject("acme", "resp1")
	add(&events.Event{ID: "a1", Tenant: "acme", Run: "run1", Response: "resp1", At: at,
		Body: &events.AnswerSubmitted{Text: "The Kettle costs 12 EUR. It is fully waterproof."}}, subj, err)
	for i, claim := range []int{1, 1, 0} {
		add(&events.Event{ID: events.JudgeVerdictID("acme", "resp1", claim) + fmt.Sprint("#", i), Tenant: "acme", Run: "run1", Response: "resp1", At: at,
			Body: &events.JudgeVerdict{Claim: claim, Verdict: events.VerdictContradicted, Reason: "mesh is not waterproof"}}, subj, err)
	}
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), NewProjection(ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ids []string
	for _, m := range msgs {
		out, err := l.Apply(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			ids = append(ids, e.Event.ID)
		}
	}
	want := []string{events.VerifiedID("acme", "resp1"), events.JudgedID("acme", "resp1", 1)}
	if !slices.Equal(ids, want) {
		t.Fatalf("emitted %v, want %v", ids, want)
	}
	v, err := Get(l.Runner().View(), "acme", "resp1")
	if err != nil {
		t.Fatal(err)
	}
	cl := v.Verified.Claims
	if v.Judged != 1 || len(v.Undecided) != 0 || cl[0].Verdict != events.VerdictSupported || cl[1].Verdict != events.VerdictContradicted ||
		cl[1].Reason != "judge: mesh is not waterproof" || v.Verified.Faithfulness != 0.5 {
		t.Fatalf("after the judge: judged %d undecided %v faithfulness %v claims %+v", v.Judged, v.Undecided, v.Verified.Faithfulness, cl)
	}
}
