package executor

import (
	"encoding/json"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// Authorisation (a contract's authorize: {http: URL}): grants are per
// tenant, but whether this end user may act on this object is the
// business's to say. Before a call runs — before its approval is asked,
// its object taken or anything invoked — the executor POSTs
//
//	{"tenant": …, "user": …, "run": …, "step": …, "tool": …, "object": …, "arguments": {…}}
//
// to URL, with the contract's headers and the identity headers every http
// tool gets (Toolstream-Tenant, Toolstream-User, Toolstream-Run,
// Toolstream-Step, Toolstream-Object; identity.go), under the tool's
// timeout. The answer {"allow": true} lets the call go on; {"allow":
// false, "reason": "…"} refuses it with permission_denied (the reason in
// the message, the tool never runs); a service that cannot be reached or
// answers anything else refuses it with unavailable: it fails closed. The
// user is the call's envelope user, which only the tenant's own producers
// can write.
type authorizeRequest struct {
	Tenant    string          `json:"tenant"`
	User      string          `json:"user"`
	Run       string          `json:"run,omitempty"`
	Step      string          `json:"step,omitempty"`
	Tool      string          `json:"tool"`
	Object    string          `json:"object,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
}

type authorizeAnswer struct {
	Allow  *bool  `json:"allow"`
	Reason string `json:"reason"`
}

// authorize asks the contract's authorisation service; nil: allowed.
func (j *job) authorize(tool *registry.Tool, args []byte) *failure {
	object, err := tool.ObjectKey(args)
	if err != nil {
		return &failure{events.ErrValidation, err.Error() + "; fix the arguments and call again"}
	}
	body, err := json.Marshal(authorizeRequest{
		Tenant: j.tenant, User: j.ev.User, Run: j.ev.Run, Step: j.ev.Step, Tool: tool.Name, Object: object, Arguments: args,
	})
	if err != nil {
		return &failure{events.ErrUnavailable, "cannot write the authorisation request: " + err.Error()}
	}
	call := j.call(tool, body, 0)
	call.Object = object
	svc := &httpTool{client: j.e.cfg.HTTPClient, spec: &registry.HTTPSpec{URL: tool.Authorize.URL, Headers: tool.Authorize.Headers, FollowRedirects: registry.RedirectsNone}, max: 64 << 10}
	out, terr, abandoned := j.invoke(j.e.hard, svc, tool, call)
	what := "the call's user"
	if j.ev.User != "" {
		what = "user " + j.ev.User
	}
	if object != "" {
		what += " on " + object
	}
	switch {
	case abandoned:
		return &failure{events.ErrUnavailable, "the executor stopped while asking whether " + what + " may act; nothing was run"}
	case terr != nil:
		return &failure{events.ErrUnavailable, fmt.Sprintf("the authorisation service of %s did not answer whether %s may act (%s: %s); nothing was run — try again later", tool.Name, what, terr.Type, terr.Message)}
	}
	var a authorizeAnswer
	if json.Unmarshal(out, &a) != nil || a.Allow == nil {
		return &failure{events.ErrUnavailable, fmt.Sprintf("the authorisation service of %s answered %s, not {\"allow\": true|false}; nothing was run", tool.Name, excerptOf(out))}
	}
	if !*a.Allow {
		msg := fmt.Sprintf("%s may not call %s (its authorisation service refused", what, tool.Name)
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		return &failure{events.ErrPermissionDenied, msg + "); nothing was run — act only on objects of this user, or ask a person who may"}
	}
	return nil
}

func excerptOf(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
