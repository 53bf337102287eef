package main

import (
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/telemetry"
)

// tracingFlags adds serve's --otlp-endpoint URL and --otlp-content.
func tracingFlags(cmd *cobra.Command, cfg *telemetry.Config) {
	cmd.Flags().StringVar(&cfg.Endpoint, "otlp-endpoint", "", "export OpenTelemetry traces (GenAI semantic conventions) over OTLP/HTTP to URL, e.g. http://127.0.0.1:4318 (spans go to URL/v1/traces; OTEL_EXPORTER_OTLP_HEADERS is read); off when empty; see docs/operations.md")
	cmd.Flags().BoolVar(&cfg.Content, "otlp-content", false, "with --otlp-endpoint, record tool calls' arguments and results in their spans (they may hold personal data)")
}
