package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/projector"
)

// TestAttackSlowRecallsStallNoOtherTenant: the memory service embeds each
// recall's query with an HTTP embedder whose upstream takes 10 ms an
// answer. A driver's credential (a run of acme's asking as fast as it can)
// sends 200 of acme's recalls at once through the real server; then
// another driver connection asks one of globex's. Victim: globex's recall
// is answered while acme's are still being answered; before, the service
// answered every tenant's recalls one at a time, and globex's came after
// all of acme's. Attacker: every one of acme's is answered, a recall or
// memory.CodeBusy, and a request naming no tenant is refused 400 at once.
func TestAttackSlowRecallsStallNoOtherTenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(10 * time.Millisecond) // the upstream's own pace: what makes a recall slow
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		out := struct {
			Data []datum `json:"data"`
		}{}
		for i := range req.Input {
			out.Data = append(out.Data, datum{i, []float64{1, float64(i), 0.5}})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer upstream.Close()
	embedder, err := embed.NewHTTP(embed.Config{URL: upstream.URL, Model: "slow"})
	if err != nil {
		t.Fatal(err)
	}

	b := bustest.Start(t)
	engine := memory.NewEngine(memory.Config{}, nil)
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "memory")}, memory.NewProjection(engine))
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.Run(rctx) }()
	t.Cleanup(func() { rcancel(); <-done; r.Close() })
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "memory-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	publish := func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, scope)
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}
	if err := (&memory.Service{Engine: engine, Runner: r, Publish: publish, Embedder: embedder}).AddTo(svc); err != nil {
		t.Fatal(err)
	}

	const flood = 200
	acme := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleDriver}).Conn()
	globex := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleDriver}).Conn()
	f := bustest.SendFlood(t, acme, memory.ServicePrefix+".recall", flood, func(i int) []byte {
		return []byte(fmt.Sprintf(`{"tenant":"acme","user":"u1","query":"what do I like %d"}`, i))
	})
	m, err := globex.RequestWithContext(ctx, memory.ServicePrefix+".recall", []byte(`{"tenant":"globex","user":"u1","query":"what do I like"}`))
	if err != nil {
		t.Fatalf("globex's recall: %v", err)
	}
	before := f.Answered()
	if code := m.Header.Get(micro.ErrorCodeHeader); code != "" {
		t.Fatalf("globex's recall refused: %s %s", code, m.Header.Get(micro.ErrorHeader))
	}
	answered := f.Wait(ctx, t)
	t.Logf("acme's flood answered %v; globex answered with %d of acme's answered", answered, before)
	if before >= flood {
		t.Errorf("globex's recall came after all %d of acme's: acme's recalls stalled it", flood)
	}
	if answered[""]+answered[memory.CodeBusy] != flood {
		t.Errorf("acme's flood: answered %v, want recalls and %s refusals only", answered, memory.CodeBusy)
	}
	m, err = globex.RequestWithContext(ctx, memory.ServicePrefix+".recall", []byte(`{"user":"u1","query":"everyone's"}`))
	if err != nil || m.Header.Get(micro.ErrorCodeHeader) != "400" {
		t.Errorf("a recall naming no tenant: %v %q %s", err, m.Header.Get(micro.ErrorCodeHeader), m.Data)
	}
}
