package stack

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// The hostile tenant's probes through JetStream's publish headers on the
// streams producers write (docs/security.md, "Known holes", A, B, C),
// from the connection acme's producer credential gives, against serve's
// wiring on a real embedded server.

// producerClient is tenant's producer as Toolstream's client connects it
// (its creds; its message-id key derived from them).
func producerClient(ctx context.Context, t *testing.T, b *bus.Bus, tenant string) *client.Client {
	t.Helper()
	c, err := client.Connect(ctx, client.WithURL(b.ClientURL()),
		client.WithCredsFile(bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRefusedLastMsgIDNamesNoTenantOrFile: a publish with a wrong
// Nats-Expected-Last-Msg-Id is refused naming the stream's last message
// id, whoever wrote it (hole B). globex's producer writes a stream named
// after its file through client.Writer, at the edge and raw; acme's
// refusals then name neither globex nor the file, and globex's stream
// written again is stored once (the ids still deduplicate: the server
// acknowledges every event of it as a duplicate).
func TestRefusedLastMsgIDNamesNoTenantOrFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	startAssembler(ctx, t, b)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", "openai-chat-deepseek-weather.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	globex, acme := producerClient(ctx, t, b, "globex"), forger(t, b, "acme")
	const file = "payroll-export.jsonl"
	tests := []struct {
		name, stream string
		opts         []client.StreamOption
	}{
		{"at the edge", events.StreamModel,
			[]client.StreamOption{client.WithStream(client.Stream{Tenant: "globex", ID: file, Format: "openai-chat"})}},
		{"raw", events.StreamIn,
			[]client.StreamOption{client.WithRaw(), client.WithStream(client.Stream{Tenant: "globex", ID: file, Format: "openai-chat", Raw: true})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, err := globex.Publish(ctx, bytes.NewReader(data), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			again, err := globex.Publish(ctx, bytes.NewReader(data), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if first.Model == 0 || first.Duplicates != 0 || again.Model != first.Model || again.Duplicates != again.Model {
				t.Errorf("globex's stream written twice: %+v, then %+v: want every event of the second a duplicate", first, again)
			}
			own := "ts.model.acme.probe.i1"
			if tt.stream == events.StreamIn {
				own, _ = events.IngestSubject("acme", "openai-chat", "probe")
			}
			m := nats.NewMsg(own)
			m.Data = []byte("x")
			m.Header.Set(jetstream.ExpectedLastMsgIDHeader, "none")
			_, err = acme.PublishMsg(ctx, m)
			if err == nil {
				t.Fatal("acme's publish expecting last message id none was stored")
			}
			for _, named := range []string{"globex", "payroll", file} {
				if strings.Contains(err.Error(), named) {
					t.Errorf("acme's refusal %q names %q", err, named)
				}
			}
		})
	}
}
