package main

import (
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/judging"
	"github.com/toolstream/toolstream/verifier"
)

// verifyFlags are the verifier's tenant policies as serve and replay take
// them: a file (verifier.ParsePolicies) saying what each tenant does with
// an answer that says more than its evidence. A replay must be given
// serve's: the policies are part of what the verifier's view holds.
type verifyFlags struct {
	policyFile string
	// serve only: the external judge of the claims the verifier leaves
	// undecided (package judging), and how long one question may take.
	judgeURL     string
	judgeTimeout time.Duration
}

func verifyPolicyFlag(cmd *cobra.Command, v *verifyFlags, replay bool) {
	must := ""
	if replay {
		must = " (must be serve's)"
	}
	cmd.Flags().StringVar(&v.policyFile, "verify-policy", "",
		"the verifier's policy per tenant"+must+", a YAML or JSON file: default: annotate|redact|block, tenants: {TENANT: POLICY}; without it every tenant is annotate")
	if replay {
		return // a replay reads the judge's verdicts from the log and never asks it
	}
	cmd.Flags().StringVar(&v.judgeURL, "judge", "",
		"URL of an external judge (POST {claims, evidence} -> {verdicts}, see judging.HTTPJudge) asked about the claims the verifier leaves undecided; its verdicts are recorded in the log; needs the verifier in this process")
	cmd.Flags().DurationVar(&v.judgeTimeout, "judge-timeout", 30*time.Second, "how long the judge may take over one answer before it is asked again later")
}

// judge is the judge worker's configuration the flags say; no --judge is
// none (a zero Config).
func (v verifyFlags) judge() (judging.Config, error) {
	if v.judgeURL == "" {
		return judging.Config{}, nil
	}
	u, err := url.Parse(v.judgeURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return judging.Config{}, fmt.Errorf("--judge %q: an http or https URL is needed", v.judgeURL)
	}
	if v.judgeTimeout <= 0 {
		return judging.Config{}, fmt.Errorf("--judge-timeout %s: must be positive", v.judgeTimeout)
	}
	return judging.Config{Judge: judging.NewHTTPJudge(v.judgeURL, nil), Timeout: v.judgeTimeout}, nil
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
