package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const toolsForExport = `tools:
  - name: get_weather
    description: Current weather for a city.
    input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
  - name: orders.refund
    description: Refund an order.
    input_schema: {type: object, properties: {order_id: {type: string}}}
    idempotency: required
    side_effect: irreversible
    approval: required
  - name: calendar_add
    description: Add an event to the calendar.
grants:
  - tenant: acme
    permissions: [get_weather, orders.refund]
`

// tools export writes each format's shape, for a tenant only its tools,
// and names what a format cannot carry; tools search ranks them.
func TestToolsExportAndSearch(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(file, []byte(toolsForExport), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		root := newRoot(&out, &errOut)
		root.SetArgs(append([]string{"--data", t.TempDir()}, args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		return out.String(), errOut.String()
	}
	for _, tc := range []struct {
		format, key string // key: where a tool's name is in the format
		tenant      string
		names       []string
		skipped     string
	}{
		// A provider's format writes orders.refund as orders__refund (the
		// registry maps it back); none is left out.
		{"openai", "function", "", []string{"calendar_add", "get_weather", "orders__refund"}, ""},
		{"anthropic", "name", "acme", []string{"get_weather", "orders__refund"}, ""},
		{"openai-responses", "name", "", []string{"calendar_add", "get_weather", "orders__refund"}, ""},
		{"mcp", "name", "acme", []string{"get_weather", "orders.refund"}, ""},
	} {
		out, errOut := run("tools", "export", "--tools", file, "--format", tc.format, "--tenant", tc.tenant)
		var items []map[string]any
		if err := json.Unmarshal([]byte(out), &items); err != nil {
			t.Fatalf("%s: %v: %s", tc.format, err, out)
		}
		var names []string
		for _, it := range items {
			if f, ok := it["function"].(map[string]any); ok {
				it = f
			}
			names = append(names, it["name"].(string))
		}
		if strings.Join(names, ",") != strings.Join(tc.names, ",") {
			t.Errorf("%s --tenant %q: %v, want %v", tc.format, tc.tenant, names, tc.names)
		}
		if (tc.skipped != "") != strings.Contains(errOut, " left out") {
			t.Errorf("%s: stderr %q, want %q named", tc.format, errOut, tc.skipped)
		}
	}
	out, _ := run("tools", "search", "weather in Oslo", "--tools", file, "--k", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "get_weather@1") {
		t.Errorf("search: %q", out)
	}
}
