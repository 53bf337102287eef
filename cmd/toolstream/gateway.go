package main

import (
	"github.com/spf13/cobra"
)

// gatewayFlags are serve's --gateway ADDR, --gateway-config FILE and
// --mcp ADDR (whose clients use the gateway's keys).
type gatewayFlags struct {
	addr, config, mcp string
}

func gatewayFlag(cmd *cobra.Command, f *gatewayFlags) {
	cmd.Flags().StringVar(&f.addr, "gateway", "", "serve the HTTP gateway (OpenAI Chat Completions and Responses, Anthropic Messages) on ADDR, e.g. 127.0.0.1:8080")
	cmd.Flags().StringVar(&f.mcp, "mcp", "", "serve the registry's tools to MCP clients (Streamable HTTP at /mcp, a key of --gateway-config's keys file as Bearer) on ADDR, e.g. 127.0.0.1:8090; see docs/mcp.md")
	cmd.Flags().StringVar(&f.config, "gateway-config", "", "the gateway's YAML config: upstreams, the clients' hashed keys, heartbeat (see docs/architecture.md, Gateway)")
}
