package main

import (
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/demo"
)

func demoCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the customer-service story end to end on an embedded server and print its timeline",
		Long: `demo runs the whole path on an embedded server in a temporary directory: recorded provider
streams of four formats → calls assembled → tools run under their contracts (a stock query, a
parallel pair, a refund that needs approval and gets it, an invalid call rejected with a typed
reason) → the final answer verified (a delivery promise the evidence does not support flagged) → memory updated (the
spicy story) → every view rebuilt by replay and compared with the live one. It exits non-zero
if any step does not turn out as the story says.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			_, err = demo.Run(cmd.Context(), demo.Config{Out: g.stdout, JSON: asJSON, Logger: log})
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per step")
	return cmd
}
