package mcp_test

import (
	"strings"
	"testing"
)

// TestRevision20260728: a raw client of the 2026-07-28 revision, without
// initialize or a session: server/discover answers the versions and the
// tools capability; tools/list is marked cacheScope private (it depends on
// the key, so no shared cache may hand it to another client); the
// Mcp-Method and Mcp-Name headers must match the body (-32020 otherwise,
// and nothing runs); a call whose headers match answers resultType
// complete with its structured result, and no Mcp-Session-Id is given.
func TestRevision20260728(t *testing.T) {
	ts := start(t, "")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Rome"},` + meta + `}}`
	for _, c := range []struct {
		name, body string
		hdr        []string
		want       []string
	}{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, []string{"Mcp-Method", "server/discover"},
			[]string{`"supportedVersions":["2026-07-28","2025-11-25"`, `"tools":{}`}},
		{"list", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`, []string{"Mcp-Method", "tools/list"},
			[]string{`"cacheScope":"private"`, `"name":"refund"`, `"nextCursor"`}},
		{"method mismatch", call, []string{"Mcp-Method", "tools/list"}, []string{"-32020", "Mcp-Method"}},
		{"name mismatch", call, []string{"Mcp-Method", "tools/call", "Mcp-Name", "refund"}, []string{"-32020", "Mcp-Name"}},
		{"call", call, []string{"Mcp-Method", "tools/call", "Mcp-Name", "weather"},
			[]string{`"resultType":"complete"`, `"structuredContent":{"location":"Rome","temperature_c":18}`}},
	} {
		_, h, got := rpc(t, ts.url, "Bearer "+keyA, c.body, append([]string{"Mcp-Protocol-Version", "2026-07-28"}, c.hdr...)...)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %.600s\nwant %s", c.name, got, w)
			}
		}
		if h.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: a session %q was given", c.name, h.Get("Mcp-Session-Id"))
		}
		if c.name == "name mismatch" && ts.p.Invoked["weather"].Load() != 0 {
			t.Errorf("weather ran on a request whose headers did not match its body")
		}
	}
	if n := ts.p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times, want once", n)
	}
}
