package trace

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestResponseStartedNamesWhatItKnows: a stream whose provider gave no
// model (a hand-written Chat Completions stream, README section 6) was
// traced "response started (openai-chat )".
func TestResponseStartedNamesWhatItKnows(t *testing.T) {
	for _, tc := range []struct {
		provider, model, want string
	}{
		{"openai-chat", "gpt-4.1", "response started (openai-chat gpt-4.1)"},
		{"openai-chat", "", "response started (openai-chat)"},
		{"", "claude-sonnet-4", "response started (claude-sonnet-4)"},
		{"", "", "response started"},
	} {
		ev := &events.Event{Tenant: "acme", Body: &events.ResponseStarted{Provider: tc.provider, Model: tc.model}}
		if got := modelStep(logEntry{Seq: 1, Ev: ev}).What; got != tc.want {
			t.Errorf("provider %q, model %q: %q, want %q", tc.provider, tc.model, got, tc.want)
		}
	}
}
