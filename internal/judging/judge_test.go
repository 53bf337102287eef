package judging

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier"
)

// judgeServer is a real HTTP judge: it decides every claim it is sent with
// the verdict its handler picks, and records the requests.
func judgeServer(t *testing.T, decide func(Claim) Verdict) (*httptest.Server, *[]Request) {
	t.Helper()
	var got []Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want POST application/json", http.StatusBadRequest)
			return
		}
		var req Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got = append(got, req)
		var resp Response
		for _, c := range req.Claims {
			resp.Verdicts = append(resp.Verdicts, decide(c))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func TestHTTPJudgeDecidesUndecidedClaims(t *testing.T) {
	ev := []verifier.Evidence{{CallID: "c1", Name: "get_product", Version: 1, Result: json.RawMessage(`{"name":"Trail Shoe","stock":8,"material":"mesh upper"}`)}}
	answer := "The Trail Shoe has 8 pairs in stock. It is fully waterproof."
	r := verifier.NewChecker(verifier.CheckerConfig{}).Check(answer, ev, time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC))
	if !slices.Equal(r.Undecided, []int{1}) {
		t.Fatalf("undecided = %v, want [1] (claims %+v)", r.Undecided, r.Claims)
	}
	srv, reqs := judgeServer(t, func(c Claim) Verdict {
		return Verdict{Index: c.Index, Verdict: events.VerdictContradicted, Reason: "mesh is not waterproof"}
	})
	j := NewHTTPJudge(srv.URL, srv.Client())
	got, vs, err := AskJudge(context.Background(), j, r, ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(*reqs) != 1 || len((*reqs)[0].Claims) != 1 || (*reqs)[0].Claims[0].Text != "It is fully waterproof." ||
		len((*reqs)[0].Evidence) != 1 || (*reqs)[0].Evidence[0].CallID != "c1" {
		t.Fatalf("judge saw %+v", *reqs)
	}
	if got.Claims[1].Verdict != events.VerdictContradicted || got.Claims[0].Verdict != events.VerdictSupported {
		t.Fatalf("verdicts after judge: %+v", got.Claims)
	}
	if len(got.Undecided) != 0 || got.Faithfulness != 0.5 {
		t.Fatalf("undecided %v faithfulness %v", got.Undecided, got.Faithfulness)
	}
	want := []events.JudgeVerdict{{Claim: 1, Verdict: events.VerdictContradicted, Reason: "mesh is not waterproof"}}
	if !slices.Equal(vs, want) {
		t.Fatalf("recorded verdicts %+v, want %+v", vs, want)
	}
	// Replay applies the recorded verdicts without a judge.
	replayed := verifier.ApplyJudgeVerdicts(r, vs)
	a, _ := json.Marshal(replayed)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Fatalf("replay differs:\n%s\n%s", a, b)
	}
}

func TestAskJudgeNothingUndecided(t *testing.T) {
	called := false
	srv, _ := judgeServer(t, func(c Claim) Verdict { called = true; return Verdict{} })
	r := verifier.Report{Faithfulness: 1, Claims: []events.ClaimVerdict{{Text: "Hi!", Verdict: events.VerdictNotCheckable}}}
	got, vs, err := AskJudge(context.Background(), NewHTTPJudge(srv.URL, nil), r, nil)
	if err != nil || vs != nil || called || got.Faithfulness != 1 {
		t.Fatalf("AskJudge with nothing undecided: %+v %v %v called=%v", got, vs, err, called)
	}
}

func TestHTTPJudgeErrors(t *testing.T) {
	req := Request{Claims: []Claim{{Index: 2, Text: "x"}}}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
	}{
		{"status", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		}, ErrUnavailable},
		{"not json", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }, ErrResponse},
		{"bad verdict", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"verdicts":[{"index":2,"verdict":"maybe"}]}`)
		}, ErrResponse},
		{"unasked index", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"verdicts":[{"index":7,"verdict":"supported"}]}`)
		}, ErrResponse},
		{"twice", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"verdicts":[{"index":2,"verdict":"supported"},{"index":2,"verdict":"unsupported"}]}`)
		}, ErrResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			_, err := NewHTTPJudge(srv.URL, srv.Client()).Judge(context.Background(), req)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
	var se *StatusError
	srv := httptest.NewServer(tests[0].handler)
	defer srv.Close()
	_, err := NewHTTPJudge(srv.URL, nil).Judge(context.Background(), req)
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("error %v, want *StatusError 503", err)
	}
	// Unreachable and cancelled.
	srv.Close()
	if _, err := NewHTTPJudge(srv.URL, nil).Judge(context.Background(), req); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("closed server: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewHTTPJudge("http://127.0.0.1:1", nil).Judge(ctx, req); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestAskJudgeErrorKeepsReport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }))
	defer srv.Close()
	r := verifier.Report{Faithfulness: 0, Claims: []events.ClaimVerdict{{Text: "x", Verdict: events.VerdictUnsupported}}, Undecided: []int{0}}
	got, vs, err := AskJudge(context.Background(), NewHTTPJudge(srv.URL, nil), r, nil)
	if !errors.Is(err, ErrUnavailable) || vs != nil || got.Claims[0].Verdict != events.VerdictUnsupported {
		t.Fatalf("got %+v %v %v", got, vs, err)
	}
}
