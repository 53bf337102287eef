package main

import (
	"github.com/spf13/cobra"
)

// metricsFlag adds serve's --metrics ADDR flag, its value going to addr.
func metricsFlag(cmd *cobra.Command, addr *string) {
	cmd.Flags().StringVar(addr, "metrics", "", "serve Prometheus metrics on ADDR/metrics and a health check on ADDR/healthz (e.g. 127.0.0.1:9464)")
}
