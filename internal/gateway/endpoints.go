package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The endpoints besides the three model APIs: the models the
// gateway routes to (GET /v1/models, /v1/models/{id}), embeddings passed
// through (POST /v1/embeddings), and every other path or method answered
// with the provider's own error shape instead of Go's plain-text 404.

// model is one model a client may name: its id (what the request's model
// says), the upstream it goes to.
type model struct {
	ID       string
	Upstream string
}

// configuredModels lists the models of the configured upstreams
// (Upstream.Models) as a request names them: the bare name (it goes to
// the pool of the upstreams listing it; Upstream is the first) and
// "upstream/model".
func (g *Gateway) configuredModels() []model {
	var out []model
	seen := map[string]bool{}
	add := func(id, up string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, model{ID: id, Upstream: up})
		}
	}
	for _, u := range g.cfg.File.Upstreams {
		for _, m := range u.Models {
			add(m, u.Name)
			add(u.Name+"/"+m, u.Name)
		}
	}
	return out
}

// modelsFor is configuredModels less those the key of hash may not use
// (its policy's models, keys.go).
func (g *Gateway) modelsFor(hash string) []model {
	ms := g.configuredModels()
	k := g.key(hash)
	if k == nil || len(k.Models) == 0 {
		return ms
	}
	out := ms[:0]
	for _, m := range ms {
		if k.allows(m.ID) {
			out = append(out, m)
		}
	}
	return out
}

// anthropicShape reports whether a request that names no API came from
// an Anthropic client: the Anthropic SDK always sends anthropic-version.
func anthropicShape(r *http.Request) API {
	if r.Header.Get("Anthropic-Version") != "" {
		return APIMessages
	}
	return APIChat
}

func (m model) openai() map[string]any {
	return map[string]any{"id": m.ID, "object": "model", "created": 0, "owned_by": m.Upstream}
}

func (m model) anthropic() map[string]any {
	return map[string]any{"type": "model", "id": m.ID, "display_name": m.ID, "created_at": "1970-01-01T00:00:00Z"}
}

// models serves GET /v1/models: the configured models, in the OpenAI
// shape or, to an Anthropic client, Anthropic's.
func (g *Gateway) models(w http.ResponseWriter, r *http.Request) {
	api := anthropicShape(r)
	_, sl, ok := g.admit(w, r, api)
	if !ok {
		return
	}
	defer sl.release()
	ms := g.modelsFor(sl.key)
	data := make([]any, 0, len(ms))
	for _, m := range ms {
		if api == APIMessages {
			data = append(data, m.anthropic())
		} else {
			data = append(data, m.openai())
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if api == APIMessages {
		var firstID, lastID any
		if len(ms) > 0 {
			firstID, lastID = ms[0].ID, ms[len(ms)-1].ID
		}
		w.Write(mustJSON(map[string]any{"data": data, "has_more": false, "first_id": firstID, "last_id": lastID}))
		return
	}
	w.Write(mustJSON(map[string]any{"object": "list", "data": data}))
}

// model serves GET /v1/models/{id...}: one configured model, or the
// provider's 404.
func (g *Gateway) model(w http.ResponseWriter, r *http.Request) {
	api := anthropicShape(r)
	_, sl, ok := g.admit(w, r, api)
	if !ok {
		return
	}
	defer sl.release()
	id := r.PathValue("id")
	for _, m := range g.modelsFor(sl.key) {
		if m.ID == id {
			w.Header().Set("Content-Type", "application/json")
			if api == APIMessages {
				w.Write(mustJSON(m.anthropic()))
			} else {
				w.Write(mustJSON(m.openai()))
			}
			return
		}
	}
	WriteError(w, api, http.StatusNotFound, fmt.Sprintf("The model %q does not exist on this gateway (GET /v1/models lists them).", id))
}

// embeddingsTimeout bounds one embeddings request upstream.
const embeddingsTimeout = 2 * time.Minute

// embeddings serves POST /v1/embeddings: passed to the OpenAI upstream the
// model names ("upstream/model", else the first of kind openai) with the
// upstream's key, and its answer back unchanged. An embedding is no model
// stream: nothing of it goes to the log.
func (g *Gateway) embeddings(w http.ResponseWriter, r *http.Request) {
	_, sl, ok := g.admit(w, r, APIChat)
	if !ok {
		return
	}
	defer sl.release()
	body, ok := g.readBody(w, r, APIChat)
	if !ok {
		return
	}
	if k := g.key(sl.key); k != nil { // the key's models, budgets and rates (keys.go)
		if no := g.police(k, modelOf(body)); no != nil {
			g.refuse(w, APIChat, k, no)
			return
		}
	}
	up, out, err := g.route(APIChat, "", body)
	if err != nil {
		WriteError(w, APIChat, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), embeddingsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(up.BaseURL, "/")+"/embeddings", bytes.NewReader(out))
	if err != nil {
		WriteError(w, APIChat, http.StatusBadGateway, err.Error())
		return
	}
	copyRequestHeader(req.Header, r.Header)
	req.Header.Set("Content-Type", "application/json")
	if up.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+up.APIKey)
	}
	resp, err := g.cfg.Client.Do(req)
	if err != nil {
		WriteError(w, APIChat, http.StatusBadGateway, fmt.Sprintf("%v: %s: %v", ErrUpstream, up.Name, err))
		return
	}
	defer resp.Body.Close()
	copyResponseHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, io.LimitReader(resp.Body, responseBodyMax))
}

// notFound answers every path and method the gateway does not serve with
// the provider's 404 (405 for a served path asked with another method),
// in the shape of the API the path names.
func (g *Gateway) notFound(w http.ResponseWriter, r *http.Request) {
	api := apiOfPath(r.URL.Path)
	if !strings.Contains(r.URL.Path, "/messages") && !strings.Contains(r.URL.Path, "/responses") && r.Header.Get("Anthropic-Version") != "" {
		api = APIMessages
	}
	switch r.URL.Path {
	case "/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/embeddings", "/v1/models":
		w.Header().Set("Allow", map[bool]string{true: "GET", false: "POST"}[r.URL.Path == "/v1/models"])
		WriteError(w, api, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s is not served (this path takes %s).", r.Method, r.URL.Path, w.Header().Get("Allow")))
		return
	}
	WriteError(w, api, http.StatusNotFound, fmt.Sprintf("%s %s is not served by the Toolstream gateway (it serves /v1/chat/completions, /v1/responses, /v1/messages, /v1/embeddings and /v1/models).", r.Method, r.URL.Path))
}

// keyNoMemory reports whether the key of hash leaves its users' memory
// out of run mode (Key.Memory false).
func (g *Gateway) keyNoMemory(hash string) bool {
	k := g.key(hash)
	return k != nil && k.Memory != nil && !*k.Memory
}

// keyBuiltinsOff reports whether the key of hash turns run mode's
// toolstream_plan and toolstream_delegate off (Key.Plans, Key.Delegate
// false).
func (g *Gateway) keyBuiltinsOff(hash string) (plans, delegate bool) {
	k := g.key(hash)
	if k == nil {
		return false, false
	}
	return k.Plans != nil && !*k.Plans, k.Delegate != nil && !*k.Delegate
}

// keyExecutes reports whether the key of hash asks for passthrough's
// calls to run on the server (Key.Execute).
func (g *Gateway) keyExecutes(hash string) bool {
	k := g.key(hash)
	return k != nil && k.Execute
}
