package main

import (
	"github.com/spf13/cobra"
)

// gatewayFlags are serve's --gateway ADDR and --gateway-config FILE.
type gatewayFlags struct {
	addr, config string
}

func gatewayFlag(cmd *cobra.Command, f *gatewayFlags) {
	cmd.Flags().StringVar(&f.addr, "gateway", "", "serve the HTTP gateway (OpenAI Chat Completions and Responses, Anthropic Messages) on ADDR, e.g. 127.0.0.1:8080")
	cmd.Flags().StringVar(&f.config, "gateway-config", "", "the gateway's YAML config: upstreams, the clients' hashed keys, heartbeat (see docs/architecture.md, Gateway)")
}
