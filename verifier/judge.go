package verifier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/toolstream/toolstream/events"
)

// Judge decides claims the deterministic checker could not (Report's
// Undecided). It belongs to the verifier; implementations may call a model.
//
// Judge returns one verdict per claim it decides; it may leave claims out.
// It returns an error wrapping ErrJudgeUnavailable when it cannot answer
// and ErrJudgeResponse when its answer breaks the contract.
type Judge interface {
	Judge(ctx context.Context, req JudgeRequest) (JudgeResponse, error)
}

// JudgeClaim is one claim put to a judge; Index is its position in the
// Report's Claims.
type JudgeClaim struct {
	Index int    `json:"index"`
	Text  string `json:"text"`
}

// JudgeEvidence is one tool result shown to a judge.
type JudgeEvidence struct {
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Version int             `json:"version"`
	Result  json.RawMessage `json:"result"`
}

// JudgeRequest is the body a judge receives.
type JudgeRequest struct {
	Claims   []JudgeClaim    `json:"claims"`
	Evidence []JudgeEvidence `json:"evidence"`
}

// JudgeVerdict is a judge's verdict on one claim.
type JudgeVerdict struct {
	Index   int            `json:"index"`
	Verdict events.Verdict `json:"verdict"`
	Reason  string         `json:"reason,omitempty"`
}

// JudgeResponse is the body a judge answers with.
type JudgeResponse struct {
	Verdicts []JudgeVerdict `json:"verdicts"`
}

// JudgeRequestBytesMax and JudgeResponseBytesMax bound what an HTTPJudge
// sends and reads.
const (
	JudgeRequestBytesMax  = 8 << 20
	JudgeResponseBytesMax = 1 << 20
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
// else is a *JudgeStatusError. An HTTPJudge is safe for concurrent use.
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
// ErrJudgeUnavailable when the request fails or the status is not 2xx, and
// ErrJudgeResponse when the body breaks the contract.
func (j *HTTPJudge) Judge(ctx context.Context, req JudgeRequest) (JudgeResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: encode request: %w", err)
	}
	if len(body) > JudgeRequestBytesMax {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: request of %d bytes over %d: %w", len(body), JudgeRequestBytesMax, ErrJudgeUnavailable)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: %w: %v", ErrJudgeUnavailable, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := j.client.Do(hr)
	if err != nil {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: post: %w: %v", ErrJudgeUnavailable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, JudgeResponseBytesMax+1))
	if err != nil {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: read: %w: %v", ErrJudgeUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return JudgeResponse{}, &JudgeStatusError{StatusCode: resp.StatusCode, Body: string(data[:min(len(data), 512)])}
	}
	if len(data) > JudgeResponseBytesMax {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: response over %d bytes: %w", JudgeResponseBytesMax, ErrJudgeResponse)
	}
	var out JudgeResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return JudgeResponse{}, fmt.Errorf("verifier: judge: decode: %w: %v", ErrJudgeResponse, err)
	}
	if err := validateVerdicts(req, out); err != nil {
		return JudgeResponse{}, err
	}
	return out, nil
}

func validVerdict(v events.Verdict) bool {
	switch v {
	case events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported, events.VerdictNotCheckable:
		return true
	}
	return false
}

// validateVerdicts checks a response against its request: known verdicts,
// asked indices, each at most once.
func validateVerdicts(req JudgeRequest, resp JudgeResponse) error {
	seen := map[int]bool{}
	for _, v := range resp.Verdicts {
		if !validVerdict(v.Verdict) {
			return fmt.Errorf("verifier: judge: verdict %q for claim %d: %w", v.Verdict, v.Index, ErrJudgeResponse)
		}
		if !slices.ContainsFunc(req.Claims, func(c JudgeClaim) bool { return c.Index == v.Index }) {
			return fmt.Errorf("verifier: judge: claim %d was not asked: %w", v.Index, ErrJudgeResponse)
		}
		if seen[v.Index] {
			return fmt.Errorf("verifier: judge: claim %d judged twice: %w", v.Index, ErrJudgeResponse)
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
// j (wrapping ErrJudgeUnavailable or ErrJudgeResponse).
func AskJudge(ctx context.Context, j Judge, r Report, evidence []Evidence) (Report, []events.JudgeVerdict, error) {
	if len(r.Undecided) == 0 {
		return r, nil, nil
	}
	req := JudgeRequest{}
	for _, i := range r.Undecided {
		if i >= 0 && i < len(r.Claims) {
			req.Claims = append(req.Claims, JudgeClaim{Index: i, Text: r.Claims[i].Text})
		}
	}
	for _, e := range dedupeEvidence(evidence) {
		if json.Valid(e.Result) {
			req.Evidence = append(req.Evidence, JudgeEvidence{CallID: e.CallID, Name: e.Name, Version: e.Version, Result: e.Result})
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
	return ApplyJudgeVerdicts(r, vs), vs, nil
}

// ApplyJudgeVerdicts returns a copy of r with recorded judge verdicts in
// place of the deterministic ones, those claims no longer undecided and
// Faithfulness recomputed. Verdicts for unknown claims or with an unknown
// verdict are ignored.
func ApplyJudgeVerdicts(r Report, vs []events.JudgeVerdict) Report {
	out := Report{Claims: slices.Clone(r.Claims)}
	decided := map[int]bool{}
	for _, v := range vs {
		if v.Claim < 0 || v.Claim >= len(out.Claims) || !validVerdict(v.Verdict) {
			continue
		}
		c := &out.Claims[v.Claim]
		c.Verdict = v.Verdict
		c.Reason = "judge: " + v.Reason
		if v.Verdict != events.VerdictSupported {
			c.Evidence = nil
		}
		decided[v.Claim] = true
	}
	for _, i := range r.Undecided {
		if !decided[i] {
			out.Undecided = append(out.Undecided, i)
		}
	}
	supported, checkable := 0, 0
	for _, c := range out.Claims {
		switch c.Verdict {
		case events.VerdictSupported:
			supported++
			checkable++
		case events.VerdictContradicted, events.VerdictUnsupported:
			checkable++
		}
	}
	out.Faithfulness = faithfulness(supported, checkable)
	return out
}

// ValidateEvidence reports whether e can serve as evidence: a call id and
// a result that is one JSON value. It returns an error wrapping
// ErrBadEvidence otherwise.
func ValidateEvidence(e Evidence) error {
	if e.CallID == "" {
		return fmt.Errorf("verifier: evidence from %q without a call id: %w", e.Name, ErrBadEvidence)
	}
	if !json.Valid(e.Result) {
		return fmt.Errorf("verifier: evidence %s: result is not JSON: %w", e.CallID, ErrBadEvidence)
	}
	return nil
}
