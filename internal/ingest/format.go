package ingest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Format names a provider's streaming protocol.
type Format string

const (
	// FormatAuto detects the format from the first event that decides it
	// (see Detect).
	FormatAuto Format = "auto"
	// FormatOpenAIResponses is the OpenAI Responses API event stream.
	FormatOpenAIResponses Format = "openai-responses"
	// FormatOpenAIChat is the OpenAI Chat Completions chunk stream, spoken by
	// every OpenAI-compatible server (DeepSeek, Groq, Mistral, xAI, OpenRouter,
	// vLLM, Ollama…).
	FormatOpenAIChat Format = "openai-chat"
	// FormatAnthropic is the Anthropic Messages event stream.
	FormatAnthropic Format = "anthropic"
	// FormatGemini is the Gemini / Vertex streamGenerateContent chunk stream,
	// including streamed function-call arguments (partialArgs).
	FormatGemini Format = "gemini"
)

// formatAliases maps every accepted spelling to its format. It is only read.
var formatAliases = map[string]Format{
	"":                  FormatAuto,
	"auto":              FormatAuto,
	"openai-responses":  FormatOpenAIResponses,
	"responses":         FormatOpenAIResponses,
	"openai_responses":  FormatOpenAIResponses,
	"openai-chat":       FormatOpenAIChat,
	"openai_chat":       FormatOpenAIChat,
	"openai":            FormatOpenAIChat,
	"chat":              FormatOpenAIChat,
	"chat-completions":  FormatOpenAIChat,
	"chat_completions":  FormatOpenAIChat,
	"openai-compatible": FormatOpenAIChat,
	"anthropic":         FormatAnthropic,
	"claude":            FormatAnthropic,
	"messages":          FormatAnthropic,
	"gemini":            FormatGemini,
	"google":            FormatGemini,
	"vertex":            FormatGemini,
}

// ParseFormat returns the format named s (case-insensitive): one of the
// Format constants or an alias ("openai", "chat", "responses", "claude",
// "google", "vertex"…). The empty string is FormatAuto. Any other name
// returns ErrUnknownFormat.
func ParseFormat(s string) (Format, error) {
	if f, ok := formatAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return f, nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownFormat, s)
}

// valid reports whether f is one of the Format constants.
func (f Format) valid() bool {
	switch f {
	case FormatAuto, FormatOpenAIResponses, FormatOpenAIChat, FormatAnthropic, FormatGemini:
		return true
	}
	return false
}

// probe holds the top-level fields Detect looks at.
type probe struct {
	Type           *string         `json:"type"`
	SequenceNumber json.RawMessage `json:"sequence_number"`
	Object         string          `json:"object"`
	Choices        json.RawMessage `json:"choices"`
	Candidates     json.RawMessage `json:"candidates"`
	PromptFeedback json.RawMessage `json:"promptFeedback"`
	UsageMetadata  json.RawMessage `json:"usageMetadata"`
	ModelVersion   json.RawMessage `json:"modelVersion"`
	Response       json.RawMessage `json:"response"`
	Error          json.RawMessage `json:"error"`
}

// Detect names the format of one raw provider event:
//
//   - OpenAI Responses: "type" starting with "response.", an "error" type with
//     a "sequence_number", or (for producers that dropped the SSE event name)
//     no "type" but a "response" object;
//   - Anthropic: the types message_start, content_block_start/delta/stop,
//     message_delta, message_stop, and "error" without a sequence number;
//   - Chat Completions: "object" "chat.completion.chunk", or "choices";
//   - Gemini: "candidates", "promptFeedback", or "usageMetadata" /
//     "modelVersion" without "choices";
//   - an in-band error object alone ({"error":{…}}) is Gemini when the error
//     has a "status", else Chat Completions.
//
// An event that is valid in several formats but decides nothing (a bare
// {"type":"ping"}) returns FormatAuto and a nil error. Bytes that are not a
// JSON object return ErrMalformedInput; an object no format recognises returns
// ErrUnknownFormat.
func Detect(raw []byte) (Format, error) {
	if err := checkObject(raw); err != nil {
		return "", err
	}
	var p probe
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnknownShape, err)
	}
	if p.Type != nil {
		t := *p.Type
		switch {
		case strings.HasPrefix(t, "response."):
			return FormatOpenAIResponses, nil
		case t == "error":
			if present(p.SequenceNumber) {
				return FormatOpenAIResponses, nil
			}
			return FormatAnthropic, nil
		case t == "message_start", t == "message_delta", t == "message_stop",
			strings.HasPrefix(t, "content_block_"):
			return FormatAnthropic, nil
		case t == "ping":
			return FormatAuto, nil
		}
	}
	switch {
	case p.Object == "chat.completion.chunk" || p.Object == "chat.completion" || present(p.Choices):
		return FormatOpenAIChat, nil
	case present(p.Candidates) || present(p.PromptFeedback) || present(p.UsageMetadata) || present(p.ModelVersion):
		return FormatGemini, nil
	case p.Type == nil && isObject(p.Response):
		return FormatOpenAIResponses, nil
	case present(p.Error):
		var e struct {
			Status json.RawMessage `json:"status"`
		}
		if isObject(p.Error) && json.Unmarshal(p.Error, &e) == nil && present(e.Status) {
			return FormatGemini, nil
		}
		return FormatOpenAIChat, nil
	}
	return "", fmt.Errorf("%w: cannot tell the format of this event", ErrUnknownFormat)
}
