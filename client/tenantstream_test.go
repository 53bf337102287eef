package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestNoTenantStreamIsTypedError: on the layout with per-tenant ingress
// streams, a producer of a tenant that has no stream yet publishes a
// stream normalised at the edge and one raw: each fails with
// ErrNoTenantStream naming the tenant and the command that makes its
// stream, where the server only says no responders; a tenant with a stream
// publishes the same streams.
func TestNoTenantStreamIsTypedError(t *testing.T) {
	b := bustest.StartTenants(t, "acme")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	chunks := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]}` + "\n\n" +
		`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"
	for _, tc := range []struct {
		tenant string
		raw    bool
		want   error
	}{
		{"globex", false, client.ErrNoTenantStream},
		{"globex", true, client.ErrNoTenantStream},
		{"acme", false, nil},
		{"acme", true, nil},
	} {
		c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tc.tenant}, client.WithPublishTimeout(5*time.Second))
		_, err := c.Publish(ctx, strings.NewReader(chunks), client.WithStream(client.Stream{Tenant: tc.tenant, Format: "openai-chat", ID: "s1", Raw: tc.raw}))
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s raw=%v: %v, want %v", tc.tenant, tc.raw, err, tc.want)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), "creds producer --tenant "+tc.tenant) {
			t.Errorf("%s raw=%v: %v names no way to make the stream", tc.tenant, tc.raw, err)
		}
	}
}
