package gateway

import (
	"encoding/json"
	"net/http"
)

// API is one of the provider APIs the gateway serves.
type API string

const (
	APIChat      API = "chat"      // OpenAI Chat Completions
	APIResponses API = "responses" // OpenAI Responses
	APIMessages  API = "messages"  // Anthropic Messages
)

// Kind returns the upstream kind that serves api.
func (a API) Kind() Kind {
	if a == APIMessages {
		return KindAnthropic
	}
	return KindOpenAI
}

// format is the ingest format of api's streams.
func (a API) format() string {
	switch a {
	case APIChat:
		return "openai-chat"
	case APIResponses:
		return "openai-responses"
	}
	return "anthropic"
}

// path is the path of api under an upstream's base URL.
func (a API) path() string {
	switch a {
	case APIChat:
		return "/chat/completions"
	case APIResponses:
		return "/responses"
	}
	return "/messages"
}

// ErrorBody is an error in the shape api's provider answers errors with:
// OpenAI's {"error":{"message","type","param","code"}}, Anthropic's
// {"type":"error","error":{"type","message"}}. typ is the provider's error
// type for status (see errorType).
func ErrorBody(api API, status int, message string) []byte {
	typ, code := errorType(api, status)
	var v any
	if api.Kind() == KindAnthropic {
		v = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}}
	} else {
		v = map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}}
	}
	b, _ := json.Marshal(v) // maps of strings: cannot fail
	return b
}

// errorType is the provider's error type (and OpenAI's code) for status.
func errorType(api API, status int) (typ string, code any) {
	anthropic := api.Kind() == KindAnthropic
	switch status {
	case http.StatusUnauthorized:
		if anthropic {
			return "authentication_error", nil
		}
		return "invalid_request_error", "invalid_api_key"
	case http.StatusForbidden:
		if anthropic {
			return "permission_error", nil
		}
		return "invalid_request_error", "permission_denied"
	case http.StatusNotFound:
		if anthropic {
			return "not_found_error", nil
		}
		return "invalid_request_error", "not_found"
	case http.StatusNotImplemented:
		if anthropic {
			return "api_error", nil
		}
		return "server_error", "not_implemented"
	case http.StatusTooManyRequests:
		if anthropic {
			return "rate_limit_error", nil
		}
		return "rate_limit_error", "rate_limit_exceeded"
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusInternalServerError:
		if anthropic {
			return "api_error", nil
		}
		return "server_error", nil
	}
	return "invalid_request_error", nil
}

// WriteError writes an error in api's provider shape.
func WriteError(w http.ResponseWriter, api API, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(ErrorBody(api, status, message))
}
