package console_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/console"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
)

// TestMemoryPagesAskTheMemoryService: before a memory service runs the
// memory pages answer 503; then /api/memory lists a user's records (an
// empty list, not null, for none), /api/memory/history a record's
// versions, and /api/memory/correct writes a new version against the one
// read: against an older one it is a 409, for a record the user does not
// have a 404, as the service answers them through the Go client.
func TestMemoryPagesAskTheMemoryService(t *testing.T) {
	h := start(t)
	ctx := h.ctx
	op, csrf := h.client(console.Grant{Role: auth.RoleOperator})
	h.getJSON(op, "/api/memory?tenant=acme&user=ann", http.StatusServiceUnavailable, nil)

	n := stack.NewNode(h.b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	engine := memory.NewEngine(memory.Config{}, nil)
	mr, err := n.Start(ctx, memory.NewProjection(engine), nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(h.b.Conn, micro.Config{Name: "toolstream-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	ms := &memory.Service{Engine: engine, Runner: mr, Publish: func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
		ack, err := h.b.PublishSealed(ctx, subj, ev, scope)
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}}
	if err := ms.AddTo(svc); err != nil {
		t.Fatal(err)
	}
	if err := h.b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, client.WithConn(h.b.Conn), client.WithKeys(h.b.Keys))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Observe(ctx, "acme", "ann", client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car",
		Value: "volvo", Text: "Ann drives a Volvo", At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}

	var recs struct{ Records []memory.Record }
	h.getJSON(op, "/api/memory?tenant=acme&user=ann", http.StatusOK, &recs)
	if len(recs.Records) != 1 || recs.Records[0].ID != "car" || recs.Records[0].Text != "Ann drives a Volvo" {
		t.Fatalf("ann's records: %+v", recs)
	}
	var none map[string]any
	h.getJSON(op, "/api/memory?tenant=acme&user=bob", http.StatusOK, &none)
	if rs, ok := none["records"].([]any); !ok || len(rs) != 0 {
		t.Fatalf("bob's records: %v", none)
	}
	version := recs.Records[0].Version
	fix := map[string]any{"tenant": "acme", "user": "ann", "id": "car", "kind": "fact", "subject": "ann", "attribute": "car",
		"value": "saab", "text": "Ann drives a Saab", "expected_version": version}
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"against the version read", fix, http.StatusOK},
		{"against the version replaced", fix, http.StatusConflict},
		{"of a record ann does not have", map[string]any{"tenant": "acme", "user": "ann", "id": "bike", "text": "x", "expected_version": 1}, http.StatusNotFound},
	} {
		if code, body := h.post(op, "/api/memory/correct", csrf, h.srv.URL, tc.body); code != tc.want {
			t.Errorf("a correction %s: %d %s, want %d", tc.name, code, body, tc.want)
		}
	}
	h.getJSON(op, "/api/memory/history?tenant=acme&user=ann&id=car", http.StatusOK, &recs)
	if len(recs.Records) != 2 || recs.Records[1].Text != "Ann drives a Saab" {
		t.Fatalf("the history of car: %+v", recs)
	}
}
