package executor

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// failure is a typed reason not to run (or a run that failed).
type failure struct {
	Type    events.ErrorType
	Message string
}

// gateway is the check before anything runs: the tool exists (at the
// pinned version, when the call has one), the tenant holds its permission,
// the arguments validate against its input schema, and there is an
// implementation. It returns the contract (nil when there is none), the
// implementation, the canonical arguments, or the failure. A job checks
// once per registry and pinned version: the loop that reads the record
// again after a conflict does not validate the arguments again.
func (j *job) gateway(pinned int) (*registry.Tool, Tool, []byte, *failure) {
	reg := j.e.cfg.Registry()
	if g := j.gw; g != nil && g.reg == reg && g.pinned == pinned {
		return g.tool, g.impl, g.args, g.f
	}
	tool, impl, args, f := j.check(reg, pinned)
	j.gwv = gatewayResult{reg: reg, pinned: pinned, tool: tool, impl: impl, args: args, f: f}
	j.gw = &j.gwv
	return tool, impl, args, f
}

// gatewayResult is a job's gateway answer for one registry and pinned
// version.
type gatewayResult struct {
	reg    *registry.Registry
	pinned int
	tool   *registry.Tool
	impl   Tool
	args   []byte
	f      *failure
}

// check is gateway's check against reg.
func (j *job) check(reg *registry.Registry, pinned int) (*registry.Tool, Tool, []byte, *failure) {
	if reg == nil {
		impl := j.e.cfg.Tools[j.cc.Name]
		if impl == nil {
			return nil, nil, nil, &failure{events.ErrUnknownTool, fmt.Sprintf("no tool named %q (no registry is loaded); call a tool that exists", j.cc.Name)}
		}
		args := bytes.TrimSpace(j.cc.Arguments)
		if len(args) == 0 || args[0] != '{' {
			return nil, nil, nil, &failure{events.ErrValidation, "the arguments must be one JSON object; send an object and call again"}
		}
		return DefaultContract(j.cc.Name), impl, args, nil
	}
	name := j.cc.Name
	if pinned > 0 {
		base, _, _ := strings.Cut(name, "@")
		name = fmt.Sprintf("%s@%d", base, pinned)
	}
	tool, _ := reg.Lookup(name)
	args, _, reason, detail := reg.Validate(j.tenant, name, j.cc.Arguments)
	switch reason {
	case "":
	case events.ReasonUnknownTool:
		return tool, nil, nil, &failure{events.ErrUnknownTool, detail + "; call one of the tools that exist"}
	case events.ReasonPermission:
		return tool, nil, nil, &failure{events.ErrPermissionDenied, detail + "; nothing was run — an operator must grant the permission"}
	default:
		return tool, nil, nil, &failure{events.ErrValidation, detail + "; fix the arguments and call again"}
	}
	impl := j.e.implementation(tool)
	if impl == nil {
		return tool, nil, nil, &failure{events.ErrUnavailable, fmt.Sprintf(
			"tool %s has no implementation in this executor: its contract gives none of http, command and mcp, and no Go tool is registered as %q or %q",
			tool.Name, tool.Ref(), tool.Name)}
	}
	return tool, impl, args, nil
}

// implementation returns how to invoke a contract's tool, or nil.
func (e *Executor) implementation(t *registry.Tool) Tool {
	switch t.Impl() {
	case registry.ImplHTTP:
		return &httpTool{client: e.cfg.HTTPClient, spec: t.HTTP, max: e.cfg.ResultBytesMax}
	case registry.ImplMCP:
		return &mcpTool{client: e.cfg.HTTPClient, spec: t.MCP, max: e.cfg.ResultBytesMax, env: t.Env, sandbox: t.Sandbox, host: e.cmds}
	case registry.ImplCommand:
		return &commandTool{argv: t.Command, env: t.Env, sandbox: t.Sandbox, max: e.cfg.ResultBytesMax, host: e.cmds}
	}
	if impl := e.cfg.Tools[t.Ref()]; impl != nil {
		return impl
	}
	return e.cfg.Tools[t.Name]
}
