package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/verifier"
)

// verifyFlags are the verifier's tenant policies as serve and replay take
// them: a file (verifier.ParsePolicies) saying what each tenant does with
// an answer that says more than its evidence. A replay must be given
// serve's: the policies are part of what the verifier's view holds.
type verifyFlags struct {
	policyFile string
}

func verifyPolicyFlag(cmd *cobra.Command, v *verifyFlags, replay bool) {
	must := ""
	if replay {
		must = " (must be serve's)"
	}
	cmd.Flags().StringVar(&v.policyFile, "verify-policy", "",
		"the verifier's policy per tenant"+must+", a YAML or JSON file: default: annotate|redact|block, tenants: {TENANT: POLICY}; without it every tenant is annotate")
}

// policies reads the policy file; no file is every tenant annotate.
func (v verifyFlags) policies() (verifier.Policies, error) {
	if v.policyFile == "" {
		return verifier.Policies{Default: verifier.PolicyAnnotate}, nil
	}
	data, err := os.ReadFile(v.policyFile)
	if err != nil {
		return verifier.Policies{}, fmt.Errorf("--verify-policy: %w", err)
	}
	p, err := verifier.ParsePolicies(data)
	if err != nil {
		return verifier.Policies{}, fmt.Errorf("--verify-policy %s: %w", v.policyFile, err)
	}
	return p, nil
}
