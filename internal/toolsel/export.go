package toolsel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/toolstream/toolstream/registry"
)

// The formats tools are written in.
const (
	// FormatOpenAIChat: Chat Completions' tools,
	// {"type":"function","function":{"name","description","parameters"}}.
	FormatOpenAIChat = "openai-chat"
	// FormatOpenAIResponses: the Responses API's tools,
	// {"type":"function","name","description","parameters"}.
	FormatOpenAIResponses = "openai-responses"
	// FormatAnthropic: Messages' tools, {"name","description","input_schema"}.
	FormatAnthropic = "anthropic"
	// FormatGemini: one tool of functionDeclarations,
	// [{"functionDeclarations":[{"name","description","parameters"}]}].
	FormatGemini = "gemini"
	// FormatMCP: MCP's tools/list result items, {"name","description","inputSchema"}.
	FormatMCP = "mcp"
)

// Formats lists the formats; "openai" is accepted for openai-chat.
var Formats = []string{FormatOpenAIChat, FormatOpenAIResponses, FormatAnthropic, FormatGemini, FormatMCP}

// ParseFormat returns the format named s (openai is openai-chat).
// ErrUnknownFormat for any other name.
func ParseFormat(s string) (string, error) {
	if s == "openai" {
		return FormatOpenAIChat, nil
	}
	if slices.Contains(Formats, s) {
		return s, nil
	}
	return "", fmt.Errorf("%w: %q (want one of openai, %v)", ErrUnknownFormat, s, Formats)
}

var (
	providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	mcpName      = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,128}$`)
)

// NameFits reports whether format can carry a tool named name.
func NameFits(format, name string) bool {
	if format == FormatMCP {
		return mcpName.MatchString(name)
	}
	return providerName.MatchString(name)
}

// Exported is a list of tools written in one format.
type Exported struct {
	Format string
	// Tools is a JSON array: the request's tools (Gemini: one tool holding
	// every function declaration; an empty array when there are none).
	Tools json.RawMessage
	// Names are the tools written, in order, by their registry names;
	// Wire the names the format carries for them (registry.WireName: a
	// provider's format writes weather.get as weather__get, which the
	// registry's Lookup maps back); Skipped those whose names the format
	// cannot carry even so (too long).
	Names   []string
	Wire    []string
	Skipped []string
}

// Allowed returns the tools of reg that tenant may call (the highest
// version of each), sorted by name. An empty tenant gets every tool (what
// `tools export` prints for the operator).
func Allowed(reg *registry.Registry, tenant string) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range reg.Tools() {
		if tenant != "" && !reg.Allowed(tenant, t.Permission) {
			continue
		}
		// Tools is sorted by name and version: a later version replaces.
		if n := len(out); n > 0 && out[n-1].Name == t.Name {
			out[n-1] = t
			continue
		}
		out = append(out, t)
	}
	return out
}

// Export writes tools in format. ErrUnknownFormat for another format.
func Export(format string, tools []*registry.Tool) (*Exported, error) {
	format, err := ParseFormat(format)
	if err != nil {
		return nil, err
	}
	ex := &Exported{Format: format}
	var items []any
	for _, t := range tools {
		name := t.Name
		if format != FormatMCP {
			name = registry.WireName(name)
		}
		if !NameFits(format, name) {
			ex.Skipped = append(ex.Skipped, t.Name)
			continue
		}
		ex.Names = append(ex.Names, t.Name)
		ex.Wire = append(ex.Wire, name)
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		if field := DependsOnFieldOf(format); field != "" {
			if schema, err = withDependsOn(schema, field); err != nil {
				return nil, fmt.Errorf("toolsel: export %s: %w", t.Name, err)
			}
		}

		switch format {
		case FormatOpenAIChat:
			items = append(items, chatTool{Type: "function", Function: function{Name: name, Description: t.Description, Parameters: schema}})
		case FormatOpenAIResponses:
			items = append(items, responsesTool{Type: "function", Name: name, Description: t.Description, Parameters: schema})
		case FormatAnthropic:
			items = append(items, anthropicTool{Name: name, Description: t.Description, InputSchema: schema})
		case FormatGemini:
			items = append(items, function{Name: name, Description: t.Description, Parameters: schema})
		case FormatMCP:
			items = append(items, mcpTool{Name: name, Description: t.Description, InputSchema: schema})
		}
	}
	if items == nil {
		items = []any{}
	}
	var v any = items
	if format == FormatGemini && len(items) > 0 {
		v = []any{map[string]any{"functionDeclarations": items}}
	}
	if ex.Tools, err = marshal(v); err != nil {
		return nil, fmt.Errorf("toolsel: export: %w", err)
	}
	return ex, nil
}

// DependsOnField is the reserved argument in which a model names the calls
// of its response a call waits for (the assembler's DependsOnField, which
// takes it out of the arguments before the tool's schema or the tool sees
// them); DependsOnAlias is its name where a provider's rules refuse '$'
// (the assembler's DependsOnAlias). Export offers it, by position.
const (
	DependsOnField = "$depends_on"
	DependsOnAlias = "ts_depends_on"
)

// dependsOnSchema is the property Export offers. Only positions: a model
// knows where it put a call in its response, not the id its provider will
// give it (the assembler also takes call ids, which a producer knows).
var dependsOnSchema = map[string]any{
	"type":        "array",
	"items":       map[string]any{"type": "integer", "minimum": 1},
	"maxItems":    64,
	"uniqueItems": true,
	"description": "Optional, reserved by the tool runtime (the tool never sees it): the calls you make in this same response that must succeed before this one runs, by their position among your calls in this response (1 is your first call). Leave it out when this call needs no other call's result; calls that name none run without waiting.",
}

// DependsOnFieldOf is the name under which format's schemas offer the
// dependency field: DependsOnField in the OpenAI formats; DependsOnAlias in
// Anthropic's (property names ^[a-zA-Z0-9_.-]{1,64}$, and one other
// refuses the whole request) and Gemini's (letters, digits and
// underscores); "" for MCP, whose tools/call is a response of its own, so
// there is no earlier call of it to wait for.
func DependsOnFieldOf(format string) string {
	switch format {
	case FormatOpenAIChat, FormatOpenAIResponses:
		return DependsOnField
	case FormatAnthropic, FormatGemini:
		return DependsOnAlias
	}
	return ""
}

// withDependsOn adds field (DependsOnFieldOf) to an object schema's
// properties. A schema that is no object schema, or that declares the field
// itself, is returned unchanged (the tool's own meaning wins: the
// assembler leaves a declared ts_depends_on to the tool).
func withDependsOn(schema json.RawMessage, field string) (json.RawMessage, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber() // bounds keep their digits
	if err := dec.Decode(&m); err != nil || m == nil {
		return schema, nil // true, or not an object: carried as it is
	}
	if typ, ok := m["type"]; ok && typ != "object" {
		return schema, nil
	}
	props, _ := m["properties"].(map[string]any)
	if _, has := props[field]; has {
		return schema, nil
	}
	if props == nil {
		if _, ok := m["properties"]; ok {
			return schema, nil // properties of another shape: leave it to the schema's author
		}
		props = map[string]any{}
	}
	props[field] = dependsOnSchema
	m["properties"] = props
	return marshal(m)
}

type function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type chatTool struct {
	Type     string   `json:"type"`
	Function function `json:"function"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// marshal writes v as JSON without HTML escapes (a model reads it).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
