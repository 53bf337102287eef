package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// httpTool POSTs the arguments as JSON to the contract's URL, with the
// contract's headers (their references resolved now: a secret that cannot
// be resolved is unavailable, and nothing is sent), the idempotency key in
// an Idempotency-Key header and the tenant in Toolstream-Tenant. A 2xx JSON
// body is the result, read up to max bytes (more is a tool_error). Other
// answers become typed errors: a body {"error": {"type": …, "message": …}}
// names its own type; otherwise 400/409/422 are business_rejected, 408/504
// provider_timeout, 429/502/503 unavailable, anything else tool_error. A
// connection that could not be made is unavailable (nothing was sent).
//
// Redirects are not followed unless the contract says follow_redirects:
// same_origin, and then only to the URL's own scheme, host and port; any
// other redirect is a tool_error, and neither the arguments nor the
// headers are sent where it points.
type httpTool struct {
	client *http.Client
	spec   *registry.HTTPSpec
	max    int
}

var _ Tool = (*httpTool)(nil)

// Invoke makes the request; the secrets resolved for it are redacted from
// all it returns (redactor), an upstream's error body included.
func (t *httpTool) Invoke(ctx context.Context, call Call) (json.RawMessage, error) {
	red := &redactor{}
	out, err := t.invoke(ctx, call, red)
	return red.outcome(call.Name, out, err)
}

func (t *httpTool) invoke(ctx context.Context, call Call, red *redactor) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.spec.URL, bytes.NewReader(call.Args))
	if err != nil {
		return nil, Errorf(events.ErrToolError, "cannot build the request to %s: %v", t.spec.URL, err)
	}
	for k, v := range t.spec.Headers {
		val, err := red.resolve(k, v)
		if err != nil {
			return nil, Errorf(events.ErrUnavailable, "%s needs the header %s, and %v; nothing was sent — an operator must provide it", call.Name, k, err)
		}
		req.Header.Set(k, val)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Idempotency-Key", call.Key)
	req.Header.Set("Toolstream-Tenant", call.Tenant)
	req.Header.Set("Toolstream-Attempt", strconv.Itoa(call.Attempt))
	identityHeaders(req.Header, call)
	client := *t.client
	client.CheckRedirect = t.checkRedirect
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re *redirectError
		if errors.As(err, &re) {
			return nil, Errorf(events.ErrToolError, "%s", re.Error())
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, Errorf(events.ErrUnavailable, "cannot reach %s: %v; try again later", t.spec.URL, op.Err)
		}
		return nil, Errorf(events.ErrToolError, "request to %s failed: %v", t.spec.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.max)+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Errorf(events.ErrToolError, "reading the answer of %s: %v", t.spec.URL, err)
	}
	if len(body) > t.max {
		return nil, Errorf(events.ErrToolError, "the answer of %s exceeds %d bytes; ask for less", t.spec.URL, t.max)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if len(bytes.TrimSpace(body)) == 0 {
			return json.RawMessage("null"), nil
		}
		if !json.Valid(body) {
			return nil, Errorf(events.ErrToolError, "%s answered HTTP %d with a body that is not JSON", t.spec.URL, resp.StatusCode)
		}
		return body, nil
	}
	if te := typedError(body); te != nil {
		return nil, te
	}
	msg := fmt.Sprintf("%s answered HTTP %d: %s", t.spec.URL, resp.StatusCode, red.tail(body, 512, false))
	switch resp.StatusCode {
	case 400, 409, 422:
		return nil, Errorf(events.ErrBusinessRejected, "%s", msg)
	case 408, 504:
		return nil, Errorf(events.ErrProviderTimeout, "%s", msg)
	case 429, 502, 503:
		return nil, Errorf(events.ErrUnavailable, "%s; try again later", msg)
	}
	return nil, Errorf(events.ErrToolError, "%s", msg)
}

// redirectsMax bounds the redirects an http tool follows (same origin).
const redirectsMax = 10

// redirectError is a redirect an http tool does not follow.
type redirectError struct {
	from, to string // origins
	status   int
	why      string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d, a redirect to %s, which was not followed (%s); nothing was sent there — fix the tool's url", e.from, e.status, e.to, e.why)
}

// checkRedirect is the http client's CheckRedirect for this tool: it runs
// before a redirect is followed, so refusing here sends nothing to the new
// place.
func (t *httpTool) checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	e := &redirectError{from: origin(from), to: origin(req.URL)}
	if req.Response != nil {
		e.status = req.Response.StatusCode
	}
	switch {
	case t.spec.FollowRedirects != registry.RedirectsSameOrigin:
		e.why = "the contract follows no redirects; follow_redirects: same_origin would follow those to " + e.from
	case e.to != e.from:
		e.why = "follow_redirects: same_origin follows redirects to " + e.from + " only"
	case len(via) > redirectsMax:
		e.why = fmt.Sprintf("more than %d redirects", redirectsMax)
	default:
		return nil
	}
	return e
}

// origin is a URL's scheme://host:port, the port always written.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// typedError reads {"error": {"type": …, "message": …}} from a tool's
// answer; nil when the answer is not one or names no type a tool may
// report.
func typedError(body []byte) *ToolError {
	var v struct {
		Error *struct {
			Type    events.ErrorType `json:"type"`
			Message string           `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.Error == nil || !toolErrorTypes[v.Error.Type] {
		return nil
	}
	return &ToolError{Type: v.Error.Type, Message: v.Error.Message}
}

// tail returns the last n bytes of b as text, trimmed.
func tail(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		b = append([]byte("…"), b[len(b)-n:]...)
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}
