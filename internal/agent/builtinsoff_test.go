package agent_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/runs"
)

// A gateway that turned a built-in tool off (Config.PlansOff,
// Config.DelegateOff), or whose run's key did (Spec.PlansOff,
// Spec.DelegateOff), offers it on no round, and a model that calls it
// anyway gets unknown_tool: no plan is written, no sub-agent starts, the
// run goes on with its other tools. The other built-in stays as it was.
func TestBuiltinsTurnedOff(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mut       func(*agent.Config)
		spec      func(*agent.Spec)
		off, kept string
		args      string
	}{
		{"plans", func(c *agent.Config) { c.PlansOff = true }, nil, events.ToolPlan, events.ToolDelegate, weatherPlan},
		{"delegate", func(c *agent.Config) { c.DelegateOff = true }, nil, events.ToolDelegate, events.ToolPlan, `{"goal":"read the weather","tools":["weather"]}`},
		{"plans-by-key", func(*agent.Config) {}, func(s *agent.Spec) { s.PlansOff = true }, events.ToolPlan, events.ToolDelegate, weatherPlan},
		{"delegate-by-key", func(*agent.Config) {}, func(s *agent.Spec) { s.DelegateOff = true }, events.ToolDelegate, events.ToolPlan, `{"goal":"read the weather","tools":["weather"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := agenttest.Start(t)
			s := newScripted(t)
			run := "off-" + tc.name
			up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
				r, err := readReq(body)
				if err != nil {
					return fakeup.Answer{}, err
				}
				if r.isChild() {
					return fakeup.Answer{}, fmt.Errorf("a child run started: %s", body)
				}
				got := r.tools()
				if slices.Contains(got, tc.off) || !slices.Contains(got, tc.kept) || !slices.Contains(got, "weather") {
					return fakeup.Answer{}, fmt.Errorf("round %d offers %v", n, got)
				}
				switch n {
				case 1:
					return s.answer("", call{"call_x1", tc.off, tc.args}), nil
				case 2:
					res, _ := r.result("call_x1")
					if !strings.Contains(res, "error unknown_tool") || !strings.Contains(res, "turned off for this run") {
						return fakeup.Answer{}, fmt.Errorf("the call's result: %q", res)
					}
					if strings.Contains(r.system(), "Plan of this run") {
						return fakeup.Answer{}, fmt.Errorf("a plan note: %q", r.system())
					}
					return s.answer("I cannot do that here."), nil
				}
				return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
			})
			prod, err := client.Connect(t.Context(), client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
			if err != nil {
				t.Fatal(err)
			}
			d := p.Driver(t, "gw-1", &model{url: up.URL, producer: prod}, tc.mut)
			spec := chatSpec(run, "What's the weather in San Francisco?")
			if tc.spec != nil {
				tc.spec(&spec)
			}
			out, err := d.Run(ctxT(t), spec)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != agent.StatusAnswered || out.Rounds != 2 {
				t.Fatalf("outcome %+v", out)
			}
			vc := viewClient(t, p)
			view, err := vc.Run(ctxT(t), tenant, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(view.Plan) > 0 || view.PlanVersion != 0 {
				t.Errorf("a plan was written: %s (version %d)", view.Plan, view.PlanVersion)
			}
			if _, err := vc.Run(ctxT(t), tenant, events.ChildRunID(run, "call_x1")); !errors.Is(err, client.ErrNotFound) {
				t.Errorf("a child run: %v, want not found", err)
			}
			rounds, err := vc.Rounds(ctxT(t), tenant, run)
			if err != nil {
				t.Fatal(err)
			}
			if c := rounds[0].Calls[0]; c.Name != tc.off || c.State != runs.CallFailed || c.Error != events.ErrUnknownTool {
				t.Errorf("the call: %+v", c)
			}
			if n := p.Invoked["weather"].Load(); n != 0 {
				t.Errorf("weather ran %d times", n)
			}
		})
	}
}
