package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/hear"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/registry"
)

// ClientKeyMax bounds a client's call key (MetaCallKey).
const ClientKeyMax = 256

// PublishMax bounds the writing of one call to the log.
const PublishMax = 30 * time.Second

// callIDs are the identities of one MCP call in the log.
type callIDs struct {
	clientKey string // the client's name for it (MetaCallKey), or one made up
	response  string // the response that carries it, and its run
	item      string
	call      string
}

// idsOf derives the call's identities from tenant, user, the client's key,
// the tool and the arguments (canonical: keys sorted): the same five, the
// same call (events written once, the outcome read back); another user's
// or tenant's key never names it, and a key sent again with other
// arguments is another call, never the outcome of the first.
func idsOf(tenant, user, clientKey, tool string, args []byte) callIDs {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err == nil {
		if c, err := json.Marshal(v); err == nil {
			args = c
		}
	}
	h := sha256.Sum256([]byte(tenant + "\x00" + user + "\x00" + clientKey + "\x00" + tool + "\x00" + string(args)))
	id := hex.EncodeToString(h[:16])
	return callIDs{clientKey: clientKey, response: "mcp_" + id, item: "fc_" + id, call: "call_" + id}
}

func newClientKey() string {
	var b [16]byte
	rand.Read(b[:])
	return "mcp-" + hex.EncodeToString(b[:])
}

// callHandler is the tools/call handler of tool for tenant's server.
func (s *Server) callHandler(tenant string, tool *registry.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer func() { // the SDK may run a handler off the request's goroutine: a panic must not end serve
			if p := recover(); p != nil {
				s.log.Error("mcp: panic in a tools/call recovered", "tenant", tenant, "tool", tool.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("mcp: internal error")
			}
		}()
		tokTenant, user := identity(req.Extra.TokenInfo)
		if tokTenant != tenant { // serverFor picked the server by this token: never
			return nil, fmt.Errorf("mcp: the key's tenant is not this server's")
		}
		clientKey, _ := req.Params.Meta[MetaCallKey].(string)
		if len(clientKey) > ClientKeyMax {
			return errorResult("validation_error: _meta[%s] is longer than %d bytes; send a shorter key", MetaCallKey, ClientKeyMax), nil
		}
		if clientKey == "" {
			clientKey = newClientKey()
		}
		args := bytes.TrimSpace(req.Params.Arguments)
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		ids := idsOf(tenant, user, clientKey, tool.Name, args)
		// Once begun, the call is written whole whatever the client does:
		// half a response would wait for its idle deadline, then be an
		// incomplete call.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), PublishMax)
		err = s.publish(pctx, tenant, user, tool.Name, args, ids)
		cancel()
		if err != nil {
			s.log.Warn("mcp: publish a call", "tenant", tenant, "tool", tool.Name, "err", err)
			return nil, fmt.Errorf("the call could not be written to the log: %v; try again with _meta[%s] = %q", err, MetaCallKey, ids.clientKey)
		}
		return s.follow(ctx, req, tenant, tool, ids)
	}
}

// publish writes the call as one function call of an OpenAI Responses
// stream, as a model's would arrive through the gateway.
func (s *Server) publish(ctx context.Context, tenant, user, name string, args []byte, ids callIDs) error {
	w, err := s.cfg.Client.NewWriter(ctx, client.WithStream(client.Stream{
		Tenant: tenant, ID: ids.response, Format: "openai-responses", User: user, Run: ids.response,
	}))
	if err != nil {
		return err
	}
	argStr, _ := json.Marshal(string(args))
	resp := fmt.Sprintf(`{"id":%q,"object":"response","status":"in_progress","model":"mcp"}`, ids.response)
	item := func(status, arguments string) string {
		return fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q,"arguments":%s,"status":%q}`, ids.item, ids.call, name, arguments, status)
	}
	for _, ev := range []string{
		fmt.Sprintf(`{"type":"response.created","sequence_number":0,"response":%s}`, resp),
		fmt.Sprintf(`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":%s}`, item("in_progress", `""`)),
		fmt.Sprintf(`{"type":"response.function_call_arguments.delta","sequence_number":2,"output_index":0,"item_id":%q,"delta":%s}`, ids.item, argStr),
		fmt.Sprintf(`{"type":"response.function_call_arguments.done","sequence_number":3,"output_index":0,"item_id":%q,"arguments":%s}`, ids.item, argStr),
		fmt.Sprintf(`{"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":%s}`, item("completed", string(argStr))),
		fmt.Sprintf(`{"type":"response.completed","sequence_number":5,"response":{"id":%q,"object":"response","status":"completed","model":"mcp"}}`, ids.response),
	} {
		if err := w.Write(ctx, []byte(ev)); err != nil {
			return err
		}
	}
	_, err = w.Close(ctx)
	return err
}

// follow waits for the call's outcome in the runs view, telling the client
// what it waits for, and answers with it.
func (s *Server) follow(ctx context.Context, req *sdk.CallToolRequest, tenant string, tool *registry.Tool, ids callIDs) (*sdk.CallToolResult, error) {
	c := s.cfg.Client
	subj, err := events.RunSubject(tenant, ids.response)
	if err != nil {
		return nil, err
	}
	// Woken by the run's events and the rechecks after them (internal/
	// hear): an event can be heard before the view shows it.
	var wake <-chan struct{}
	if h, err := hear.Subject(c.Conn(), subj, s.cfg.Poll); err == nil {
		defer h.Close()
		wake = h.C()
	}
	poll := time.NewTicker(s.cfg.Poll)
	defer poll.Stop()
	progress := time.NewTicker(s.cfg.ProgressEvery)
	defer progress.Stop()
	give := time.NewTimer(s.cfg.CallWait)
	defer give.Stop()
	token := req.Params.GetProgressToken()
	var said string
	n := 0
	tell := func(msg string, tick bool) {
		if token == nil || msg == said && !tick {
			return
		}
		said = msg
		n++
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
	}
	waiting := "the call is written to the log; waiting for the assembler's decision"
	for {
		call, err := s.callOf(ctx, tenant, ids)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			s.log.Debug("mcp: read the runs view", "tenant", tenant, "response", ids.response, "err", err)
		case call != nil:
			if res, done, msg := s.outcome(ctx, tenant, tool, call, ids); done {
				return res, nil
			} else if msg != "" {
				waiting = msg
			}
		}
		tell(waiting, false)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-give.C:
			return errorResult("still waiting after %s (%s). The call goes on; call %s again with the same arguments and _meta {%q: %q} for its outcome",
				s.cfg.CallWait, waiting, registry.WireName(tool.Name), MetaCallKey, ids.clientKey), nil
		case <-progress.C:
			tell(waiting, true)
		case <-wake:
		case <-poll.C:
		}
	}
}

// callOf is the call as the runs view shows it; nil while it shows none.
func (s *Server) callOf(ctx context.Context, tenant string, ids callIDs) (*runs.Call, error) {
	rounds, err := s.cfg.Client.Rounds(ctx, tenant, ids.response)
	if errors.Is(err, client.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, r := range rounds {
		for i := range r.Calls {
			if r.Calls[i].CallID == ids.call || r.Calls[i].Item == ids.item {
				return &r.Calls[i], nil
			}
		}
		if r.Ended != "" && r.Ended != events.StatusCompleted && len(r.Calls) == 0 {
			return &runs.Call{State: runs.CallIncomplete, Reason: r.EndReason, Detail: r.EndError}, nil
		}
	}
	return nil, nil
}

// outcome answers a call in a terminal state (done); otherwise it says
// what the call waits for.
func (s *Server) outcome(ctx context.Context, tenant string, tool *registry.Tool, call *runs.Call, ids callIDs) (*sdk.CallToolResult, bool, string) {
	switch call.State {
	case runs.CallRejected, runs.CallIncomplete:
		return errorResult("%s (%s): %s%s", call.State, call.Reason, call.Detail, fix(call.Reason)), true, ""
	case runs.CallWaiting:
		return nil, false, fmt.Sprintf("waiting for a person to approve the call (toolstream approve %s)", call.Key)
	case runs.CallRunning, runs.CallPending:
		return nil, false, "running " + tool.Name
	case runs.CallSucceeded, runs.CallFailed, runs.CallDenied, runs.CallUnknown:
	default:
		return nil, false, fmt.Sprintf("the call is %s", call.State)
	}
	key := call.Key
	if key == "" {
		key = events.IdempotencyKey(tenant, ids.response, ids.response, ids.call)
	}
	r, err := s.cfg.Client.CallResult(ctx, tenant, key, tool.Name)
	if err != nil {
		// The view saw the result before this read: read again.
		return nil, false, fmt.Sprintf("reading the outcome of %s", key)
	}
	if !r.OK {
		return errorResult("%s: %s", r.Error, r.Message), true, ""
	}
	res := &sdk.CallToolResult{}
	text := string(r.Result)
	if r.RawRef != "" && len(r.Result) == 0 {
		text = fmt.Sprintf(`{"summary":%q,"raw_ref":%q}`, r.Summary, r.RawRef)
	}
	res.Content = []sdk.Content{&sdk.TextContent{Text: text}}
	if t := bytes.TrimSpace(r.Result); len(t) > 0 && t[0] == '{' {
		res.StructuredContent = json.RawMessage(t)
	}
	return res, true, ""
}

// fix says what to do about a call the assembler did not run.
func fix(r events.Reason) string {
	switch r {
	case events.ReasonInvalidJSON, events.ReasonNotAnObject, events.ReasonSchemaViolation, events.ReasonTooLarge:
		return "; fix the arguments and call again"
	case events.ReasonPermission, events.ReasonQuotaExceeded:
		return "; nothing ran — an operator must grant it, or call another tool"
	case events.ReasonUnknownTool:
		return "; call a tool tools/list shows"
	}
	return "; nothing ran"
}

// errorResult is a tool error the model reads: what went wrong and what
// to do.
func errorResult(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
