package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/runs"
)

const tenant = agenttest.Tenant

// driver returns a driver whose rounds go to up through model.
func driver(t testing.TB, p *agenttest.Pipeline, name string, up *fakeup.Server) *agent.Driver {
	t.Helper()
	prod, err := client.Connect(t.Context(), client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	return p.Driver(t, name, &model{url: up.URL, producer: prod})
}

// model is what the gateway does for a round, without HTTP towards the
// client: the request goes to the (fake) upstream and its stream is
// published at the edge as a producer does.
type model struct {
	url      string
	producer *client.Client
	n        atomic.Int32
}

var paths = map[string]string{runs.FormatChat: "/v1/chat/completions", runs.FormatResponses: "/v1/responses", runs.FormatAnthropic: "/v1/messages"}

func (m *model) Round(ctx context.Context, r agent.Round) (*agent.RoundResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url+paths[r.Spec.Format], bytes.NewReader(r.Body))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return &agent.RoundResult{Status: resp.StatusCode, Body: body}, nil
	}
	var seen bytes.Buffer
	s := client.Stream{Tenant: r.Spec.Tenant, Format: r.Spec.Format, ID: fmt.Sprintf("%s-%d", r.Spec.Run, m.n.Add(1)),
		User: r.Spec.User, Session: r.Spec.Session, Run: r.Spec.Run, Step: r.Step,
		ToolsOnly: r.Spec.Parent != "", Tools: r.Spec.Tools}
	// As the gateway does: ctx cuts the read, never the log, so what was
	// read is published to its end (a cut read ends the response
	// incomplete) even when the client went away meanwhile.
	bg := context.WithoutCancel(ctx)
	w, err := m.producer.NewWriter(bg, client.WithStream(s))
	if err != nil {
		return nil, err
	}
	_, rerr := w.ReadFrom(bg, io.TeeReader(resp.Body, &seen))
	if _, err := w.Close(bg); err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	return &agent.RoundResult{Status: http.StatusOK, Response: responseID(seen.Bytes())}, nil
}

// responseID finds the response id in an SSE stream's first data line.
func responseID(sse []byte) string {
	for _, line := range strings.Split(string(sse), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			ID       string              `json:"id"`
			Message  struct{ ID string } `json:"message"`
			Response struct{ ID string } `json:"response"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil {
			for _, id := range []string{ev.Message.ID, ev.Response.ID, ev.ID} {
				if id != "" {
					return id
				}
			}
		}
	}
	return ""
}

func stream(name string) string { return filepath.Join("testdata", "streams", name) }

func recorded(name string) string { return filepath.Join("..", "..", "testdata", "streams", name) }

// chatSpec is a run's first request in Chat Completions.
func chatSpec(run, question string) agent.Spec {
	body, _ := json.Marshal(map[string]any{"model": "fake-1", "messages": []any{map[string]string{"role": "user", "content": question}}})
	return agent.Spec{Tenant: tenant, User: "u1", Run: run, Format: runs.FormatChat, Body: body}
}

// weatherUpstream answers a run's first request with a call of weather
// and its second with the answer; a third is an error.
func weatherUpstream(t testing.TB) *fakeup.Server {
	return fakeup.Start(t, func(n int, _ string, _ []byte) (fakeup.Answer, error) {
		switch n {
		case 1:
			return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
		case 2:
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
}
