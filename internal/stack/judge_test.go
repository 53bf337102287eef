package stack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/judging"
	"github.com/toolstream/toolstream/verifier"
)

// A stack given a judge (serve --judge URL) puts the verifier's undecided
// claims to it and the view gets its verdicts; without the verifier in the
// process it refuses to start.
func TestStackAsksTheJudge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req judging.Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var resp judging.Response
		for _, c := range req.Claims {
			resp.Verdicts = append(resp.Verdicts, judging.Verdict{Index: c.Index, Verdict: events.VerdictContradicted, Reason: "mesh is not waterproof"})
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	judge := judging.Config{Judge: judging.NewHTTPJudge(srv.URL, srv.Client())}

	if _, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{Clock}, Judge: judge}); !errors.Is(err, ErrJudgeWithoutVerifier) {
		t.Fatalf("a judge without the verifier: %v", err)
	}
	s, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{verifier.Name}, Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	at := time.Now().UnixNano()
	subj, _ := events.ResultSubject("acme", "c1")
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "r1", Tenant: "acme", User: "ann", Run: "run1", CallID: "c1", At: at,
		Body: &events.CallSucceeded{Name: "get_product", Key: "acme/run1/-/c1", Result: []byte(`{"name":"Trail Shoe","stock":8,"material":"mesh upper"}`)}}); err != nil {
		t.Fatal(err)
	}
	subj, _ = events.AnswerSubject("acme", "resp1")
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "a1", Tenant: "acme", User: "ann", Run: "run1", Response: "resp1", At: at,
		Body: &events.AnswerSubmitted{Text: "The Trail Shoe has 8 pairs in stock. It is fully waterproof."}}); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Runner(verifier.Name)
	for {
		view := r.View()
		v, err := verifier.Get(view, "acme", "resp1")
		view.Close()
		if err == nil && v.Judged == 1 {
			if c := v.Verified.Claims[1]; c.Verdict != events.VerdictContradicted || len(v.Undecided) != 0 {
				t.Fatalf("judged: %+v", v)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the judge's verdict never reached the view: %+v %v", v, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
