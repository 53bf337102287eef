package gateway_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/gateway"
)

// TestOverlongHeaderIDsAreRefused: a Toolstream-User or Toolstream-Run of
// 5,000 bytes went into the run's bucket key and subjects; the NATS server
// closed the driver's connection (its control line is 4 KiB) and every run
// after it, of every tenant, was answered 500 until serve restarted. Such
// a header is now 400 before anything is asked, and a run after it runs.
func TestOverlongHeaderIDsAreRefused(t *testing.T) {
	rg := startRunGateway(t)
	long := strings.Repeat("a", 5000)
	for _, h := range []string{gateway.HeaderUser, gateway.HeaderRun, gateway.HeaderSession, gateway.HeaderStep} {
		resp, err := rg.post(context.Background(), t, "long-1", "weather in San Francisco?", map[string]string{h: long})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), h) {
			t.Errorf("%s of 5000 bytes: %d %.200s, want 400 naming the header", h, resp.StatusCode, b)
		}
	}
	resp, err := rg.post(context.Background(), t, "ok-1", "weather in San Francisco?", map[string]string{gateway.HeaderUser: strings.Repeat("b", gateway.HeaderIDBytesMax)})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, _ := readAll(t, resp.Body)
	if resp.StatusCode != http.StatusOK || len(evs) == 0 {
		t.Fatalf("a run after them: %d, %d events", resp.StatusCode, len(evs))
	}
}
