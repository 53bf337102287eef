package registry

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sandbox modes (the contract's sandbox field, command tools only).
const (
	// NetworkNone: the tool has a network namespace of its own, with only a
	// loopback interface: it reaches nothing outside. The default.
	NetworkNone = "none"
	// NetworkHost: the tool shares the executor's network.
	NetworkHost = "host"
	// FilesystemReadonly: the tool sees a minimal root, read-only: the
	// system's programs and libraries (/usr, /bin, /lib…), the few files of
	// /etc a program needs to start (the dynamic linker's cache, TLS
	// certificates; name resolution only with network host), the program
	// itself, a private /dev, /proc and /tmp, its private HOME and TMPDIR
	// (writable), and exactly the paths the contract's read and write
	// name; nothing else of the host. The default, and the only mode.
	FilesystemReadonly = "readonly"
)

// SandboxPathsMax bounds the paths a sandbox's read and write name
// together.
const SandboxPathsMax = 64

// Bounds of a sandbox's limits.
const (
	// SandboxMemoryMin and SandboxMemoryMax bound sandbox.memory.
	SandboxMemoryMin = 16 << 20
	SandboxMemoryMax = 1 << 40
)

// Sandbox is how a command tool is confined. The executor enforces it, or
// refuses to run the tool.
type Sandbox struct {
	Network    string // NetworkNone | NetworkHost
	Filesystem string // FilesystemReadonly
	// Memory bounds the tool's private writable memory in bytes (heap,
	// anonymous mappings: RLIMIT_DATA of every process of the tool); 0: no
	// bound.
	Memory int64
	// CPU bounds the CPU time of each process of the tool (RLIMIT_CPU),
	// whole seconds; 0: no bound.
	CPU time.Duration
	// Read and Write are host paths the tool sees at the same place,
	// read-only and writable: absolute, clean, sorted, never "/" nor under
	// /proc or /dev. The executor refuses to run a tool whose paths reach
	// its data directory (Config.Hidden).
	Read, Write []string
}

// String describes the sandbox: "network none, filesystem readonly, read
// /srv/maps, write /srv/out, memory 256MiB, cpu 10s".
func (s *Sandbox) String() string {
	out := "network " + s.Network + ", filesystem " + s.Filesystem
	if len(s.Read) > 0 {
		out += ", read " + strings.Join(s.Read, " ")
	}
	if len(s.Write) > 0 {
		out += ", write " + strings.Join(s.Write, " ")
	}
	if s.Memory > 0 {
		out += ", memory " + formatSize(s.Memory)
	}
	if s.CPU > 0 {
		out += ", cpu " + s.CPU.String()
	}
	return out
}

type specSandbox struct {
	Network    string `json:"network"`
	Filesystem string `json:"filesystem"`
	Memory     string `json:"memory,omitempty"`
	CPU        string `json:"cpu,omitempty"`
	// omitempty: sandboxes without them keep their bytes.
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`

	memory int64
	cpu    time.Duration
}

func (s *specSandbox) sandbox() *Sandbox {
	if s == nil {
		return nil
	}
	return &Sandbox{Network: s.Network, Filesystem: s.Filesystem, Memory: s.memory, CPU: s.cpu, Read: s.Read, Write: s.Write}
}

// sandbox decodes a command tool's sandbox.
func (d *decoder) sandbox(path string, v any) *specSandbox {
	m := d.object(path, v, "network", "filesystem", "memory", "cpu", "read", "write")
	if m == nil {
		return nil
	}
	s := &specSandbox{
		Network:    d.enum(join(path, "network"), m["network"], NetworkNone, NetworkNone, NetworkHost),
		Filesystem: d.enum(join(path, "filesystem"), m["filesystem"], FilesystemReadonly, FilesystemReadonly),
	}
	if mv := m["memory"]; mv != nil {
		mp := join(path, "memory")
		n, err := parseSize(mv)
		switch {
		case err != nil:
			d.fail(mp, "%v", err)
		case n < SandboxMemoryMin || n > SandboxMemoryMax:
			d.fail(mp, "%s is out of range [%s, %s]", formatSize(n), formatSize(SandboxMemoryMin), formatSize(SandboxMemoryMax))
		default:
			s.memory, s.Memory = n, formatSize(n)
		}
	}
	if cv := m["cpu"]; cv != nil {
		cp := join(path, "cpu")
		s.cpu = d.duration(cp, cv, 0, time.Second, TimeoutMax)
		if s.cpu%time.Second != 0 {
			d.fail(cp, "%s: the cpu limit is whole seconds, such as 10s", s.cpu)
			s.cpu = 0
		}
		if s.cpu > 0 {
			s.CPU = s.cpu.String()
		}
	}
	s.Read = d.sandboxPaths(join(path, "read"), m["read"])
	s.Write = d.sandboxPaths(join(path, "write"), m["write"])
	for _, p := range s.Write {
		if slices.Contains(s.Read, p) {
			d.fail(join(path, "read"), "%s is also in write: name a path once (write is read-write)", p)
		}
	}
	if n := len(s.Read) + len(s.Write); n > SandboxPathsMax {
		d.fail(path, "read and write name %d paths; at most %d", n, SandboxPathsMax)
	}
	return s
}

// sandboxPaths decodes sandbox.read or sandbox.write: absolute, clean
// paths, sorted and without repeats. "/" would show the whole host, and
// /proc and /dev are the sandbox's own.
func (d *decoder) sandboxPaths(path string, v any) []string {
	var out []string
	for i, e := range d.list(path, v) {
		p := fmt.Sprintf("%s[%d]", path, i)
		s := d.str(p, e, "")
		switch {
		case !filepath.IsAbs(s):
			d.fail(p, "%q: the path must be absolute", s)
		case filepath.Clean(s) != s:
			d.fail(p, "%q: write the path clean, as %s", s, filepath.Clean(s))
		case s == "/":
			d.fail(p, `"/" would show the tool the whole host; name the directories it needs`)
		case s == "/proc" || strings.HasPrefix(s, "/proc/") || s == "/dev" || strings.HasPrefix(s, "/dev/"):
			d.fail(p, "%s: the sandbox has a /proc and /dev of its own", s)
		default:
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var sizeUnits = []struct {
	name  string
	bytes int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// parseSize reads a size: "256MiB", "1GiB", "512KiB", "1048576B", or a
// number of bytes.
func parseSize(v any) (int64, error) {
	bad := fmt.Errorf(`want a size such as "256MiB" or "1GiB", got %v`, v)
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return 0, bad
		}
		return n, nil
	case string:
		for _, u := range sizeUnits {
			if num, ok := strings.CutSuffix(x, u.name); ok {
				n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
				if err != nil || n < 0 || n > SandboxMemoryMax/u.bytes+1 {
					return 0, bad
				}
				return n * u.bytes, nil
			}
		}
	}
	return 0, bad
}

// formatSize writes n in the largest unit that divides it.
func formatSize(n int64) string {
	for _, u := range sizeUnits {
		if n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// confinement decodes what a command tool may reach: env and sandbox.
func (d *decoder) confinement(path string, m map[string]any, t *specTool) {
	stdio := t.MCP != nil && t.MCP.Command != nil
	for _, f := range []string{"env", "sandbox"} {
		if m[f] != nil && t.Command == nil && !stdio {
			d.fail(join(path, f), "%s applies to command tools only (and stdio mcp servers)", f)
		}
	}
	if ev := m["env"]; ev != nil {
		if t.Env = d.env(join(path, "env"), ev); len(t.Env) == 0 {
			t.Env = nil
		}
	}
	if sv := m["sandbox"]; sv != nil {
		t.Sandbox = d.sandbox(join(path, "sandbox"), sv)
	}
}
