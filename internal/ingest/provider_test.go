package ingest_test

import (
	"testing"

	"github.com/toolstream/toolstream/internal/ingest"
)

// TestProvider: the provider names of users and manifests become a format
// ParseFormat takes and whether tagged text is on.
func TestProvider(t *testing.T) {
	for _, c := range []struct {
		name       string
		tagged     bool
		wantFormat string
		wantTagged bool
	}{
		{"anthropic", false, "anthropic", false},
		{" OpenAI-Chat ", false, "openai-chat", false},
		{"openai-chat+tagged", false, "openai-chat", true},
		{"openai-chat", true, "openai-chat", true},
		{"Hermes", false, "auto", true},
		{"qwen", false, "auto", true},
		{"tagged_text", false, "auto", true},
		{"text+tagged", false, "auto", true},
		{"", false, "auto", false},
		{"other", true, "auto", true},
		{"unknown+tagged", false, "auto", true},
		{"unknown", false, "auto", false},
		{"nonsense", false, "nonsense", false}, // ParseFormat refuses it
	} {
		f, tagged := ingest.Provider(c.name, c.tagged)
		if f != c.wantFormat || tagged != c.wantTagged {
			t.Errorf("Provider(%q, %v) = %q, %v; want %q, %v", c.name, c.tagged, f, tagged, c.wantFormat, c.wantTagged)
		}
		if _, err := ingest.ParseFormat(f); (err == nil) != (c.name != "nonsense") {
			t.Errorf("ParseFormat(%q): %v", f, err)
		}
	}
}
