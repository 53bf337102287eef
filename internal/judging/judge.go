package judging

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier"
)

// Judge decides claims the deterministic checker could not (a
// verifier.Report's Undecided); implementations may call a model.
//
// Judge returns one verdict per claim it decides; it may leave claims out.
// It returns an error wrapping ErrUnavailable when it cannot answer
// and ErrResponse when its answer breaks the contract.
type Judge interface {
	Judge(ctx context.Context, req Request) (Response, error)
}

// Claim is one claim put to a judge; Index is its position in the
// Report's Claims.
type Claim struct {
	Index int    `json:"index"`
	Text  string `json:"text"`
}

// Evidence is one tool result shown to a judge.
type Evidence struct {
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Version int             `json:"version"`
	Result  json.RawMessage `json:"result"`
}

// Request is the body a judge receives.
type Request struct {
	Claims   []Claim    `json:"claims"`
	Evidence []Evidence `json:"evidence"`
}

// Verdict is a judge's verdict on one claim.
type Verdict struct {
	Index   int            `json:"index"`
	Verdict events.Verdict `json:"verdict"`
	Reason  string         `json:"reason,omitempty"`
}

// Response is the body a judge answers with.
type Response struct {
	Verdicts []Verdict `json:"verdicts"`
}

// RequestBytesMax and ResponseBytesMax bound what an HTTPJudge
// sends and reads.
const (
	RequestBytesMax  = 8 << 20
	ResponseBytesMax = 1 << 20
)

// HTTPJudge is a Judge behind an HTTP endpoint. The contract:
//
//	POST <url>
//	Content-Type: application/json
//	{"claims":   [{"index": 3, "text": "It will arrive tomorrow."}],
//	 "evidence": [{"call_id": "c1", "name": "get_stock", "version": 1, "result": {…}}]}
//
//	200 OK
//	{"verdicts": [{"index": 3, "verdict": "unsupported", "reason": "no delivery date"}]}
//
// verdict is one of supported, contradicted, unsupported, not_checkable;
// index must be one that was asked. Any 2xx status is success; anything
// else is a *StatusError. An HTTPJudge is safe for concurrent use.
type HTTPJudge struct {
	url    string
	client *http.Client
}

var _ Judge = (*HTTPJudge)(nil)

// NewHTTPJudge returns a judge that posts to url with client
// (http.DefaultClient when nil). Deadlines come from the context.
func NewHTTPJudge(url string, client *http.Client) *HTTPJudge {
	if client == nil {
		client = http.DefaultClient
	}
	return &HTTPJudge{url: url, client: client}
}

// Judge posts req and decodes the verdicts. It returns an error wrapping
// ErrUnavailable when the request fails or the status is not 2xx, and
// ErrResponse when the body breaks the contract.
func (j *HTTPJudge) Judge(ctx context.Context, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("judging: judge: encode request: %w", err)
	}
	if len(body) > RequestBytesMax {
		return Response{}, fmt.Errorf("judging: judge: request of %d bytes over %d: %w", len(body), RequestBytesMax, ErrUnavailable)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("judging: judge: %w: %v", ErrUnavailable, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := j.client.Do(hr)
	if err != nil {
		return Response{}, fmt.Errorf("judging: judge: post: %w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, ResponseBytesMax+1))
	if err != nil {
		return Response{}, fmt.Errorf("judging: judge: read: %w: %v", ErrUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Response{}, &StatusError{StatusCode: resp.StatusCode, Body: string(data[:min(len(data), 512)])}
	}
	if len(data) > ResponseBytesMax {
		return Response{}, fmt.Errorf("judging: judge: response over %d bytes: %w", ResponseBytesMax, ErrResponse)
	}
	var out Response
	if err := json.Unmarshal(data, &out); err != nil {
		return Response{}, fmt.Errorf("judging: judge: decode: %w: %v", ErrResponse, err)
	}
	if err := validateVerdicts(req, out); err != nil {
		return Response{}, err
	}
	return out, nil
}

// validVerdict reports one of the four verdicts a judge may give.
func validVerdict(v events.Verdict) bool {
	switch v {
	case events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported, events.VerdictNotCheckable:
		return true
	}
	return false
}

// validateVerdicts checks a response against its request: known verdicts,
// asked indices, each at most once.
func validateVerdicts(req Request, resp Response) error {
	seen := map[int]bool{}
	for _, v := range resp.Verdicts {
		if !validVerdict(v.Verdict) {
			return fmt.Errorf("judging: judge: verdict %q for claim %d: %w", v.Verdict, v.Index, ErrResponse)
		}
		if !slices.ContainsFunc(req.Claims, func(c Claim) bool { return c.Index == v.Index }) {
			return fmt.Errorf("judging: judge: claim %d was not asked: %w", v.Index, ErrResponse)
		}
		if seen[v.Index] {
			return fmt.Errorf("judging: judge: claim %d judged twice: %w", v.Index, ErrResponse)
		}
		seen[v.Index] = true
	}
	return nil
}

// AskJudge puts r's undecided claims to j with the evidence and returns
// the report with the judge's verdicts applied, and those verdicts as
// events to record (replay applies them with ApplyJudgeVerdicts and never
// calls the judge again). With nothing undecided it returns r unchanged
// without calling j. On error r is returned unchanged with the error from
// j (wrapping ErrUnavailable or ErrResponse).
func AskJudge(ctx context.Context, j Judge, r verifier.Report, evidence []verifier.Evidence) (verifier.Report, []events.JudgeVerdict, error) {
	if len(r.Undecided) == 0 {
		return r, nil, nil
	}
	req := Request{}
	for _, i := range r.Undecided {
		if i >= 0 && i < len(r.Claims) {
			req.Claims = append(req.Claims, Claim{Index: i, Text: r.Claims[i].Text})
		}
	}
	for _, e := range verifier.LatestEvidence(evidence) {
		if json.Valid(e.Result) {
			req.Evidence = append(req.Evidence, Evidence{CallID: e.CallID, Name: e.Name, Version: e.Version, Result: e.Result})
		}
	}
	resp, err := j.Judge(ctx, req)
	if err != nil {
		return r, nil, err
	}
	if err := validateVerdicts(req, resp); err != nil {
		return r, nil, err
	}
	vs := make([]events.JudgeVerdict, 0, len(resp.Verdicts))
	for _, v := range resp.Verdicts {
		vs = append(vs, events.JudgeVerdict{Claim: v.Index, Verdict: v.Verdict, Reason: v.Reason})
	}
	slices.SortFunc(vs, func(a, b events.JudgeVerdict) int { return a.Claim - b.Claim })
	return verifier.ApplyJudgeVerdicts(r, vs), vs, nil
}
