package executor_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// Attacks by the command tools the executor runs: each test fails if its
// attack works. (http_attack_test.go: attacks by the servers http tools
// call; keys_test.go: calls whose keys collide.)

// attackMain is a command tool that attacks its executor:
//
//	env FILE        writes its environment to FILE as JSON, and a file in its HOME and TMPDIR; prints {"home", "tmp"}
//	flood FILE      prints 30 MB, writing how much it wrote so far to FILE after each 64 KiB
//	connect ADDR    opens a TCP connection to ADDR
//	write PATH      writes a file in its TMPDIR, then PATH
//	alloc MIB       allocates and touches MIB MiB
//	read PATH       prints {"content": …} of the file PATH, or {"entries": […]} of the directory
func attackMain(mode, arg string) int {
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		return code
	}
	switch mode {
	case "env":
		for _, v := range []string{"HOME", "TMPDIR"} {
			if err := os.WriteFile(filepath.Join(os.Getenv(v), "mine"), []byte("x"), 0o600); err != nil {
				return fail(4, "cannot write in my %s: %v", v, err)
			}
		}
		data, _ := json.Marshal(os.Environ())
		if err := os.WriteFile(arg, data, 0o600); err != nil {
			return fail(4, "%v", err)
		}
		fmt.Printf(`{"home":%q,"tmp":%q}`, os.Getenv("HOME"), os.Getenv("TMPDIR"))
	case "flood":
		chunk := []byte(strings.Repeat("x", 64<<10))
		for n := 0; n < 30<<20; {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return fail(5, "%v", err)
			}
			n += len(chunk)
			os.WriteFile(arg, []byte(strconv.Itoa(n)), 0o600)
		}
	case "connect":
		c, err := net.DialTimeout("tcp", arg, 5*time.Second)
		if err != nil {
			return fail(6, "cannot connect: %v", err)
		}
		c.Close()
		fmt.Print(`{"connected":true}`)
	case "write":
		if err := os.WriteFile(filepath.Join(os.Getenv("TMPDIR"), "ok"), []byte("x"), 0o600); err != nil {
			return fail(4, "cannot write in my own TMPDIR: %v", err)
		}
		if err := os.WriteFile(arg, []byte("pwned"), 0o600); err != nil {
			return fail(5, "cannot write outside: %v", err)
		}
		fmt.Print(`{"wrote":true}`)
	case "read":
		fi, err := os.Stat(arg)
		if err != nil {
			return fail(6, "cannot read: %v", err)
		}
		if fi.IsDir() {
			ents, err := os.ReadDir(arg)
			if err != nil {
				return fail(6, "cannot read: %v", err)
			}
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			out, _ := json.Marshal(map[string]any{"entries": names})
			fmt.Printf("%s", out)
			return 0
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return fail(6, "cannot read: %v", err)
		}
		out, _ := json.Marshal(map[string]string{"content": string(data)})
		fmt.Printf("%s", out)
	case "reserve":
		// What escapes RLIMIT_DATA: reserve the range with no access, then
		// map it writable over the reservation (MAP_FIXED), which Linux
		// counts as no growth, and touch every page.
		// The runtime allocates nothing meanwhile (no collection), so that
		// it does not die of the limit itself once the range counts.
		debug.SetGCPercent(-1)
		mib, _ := strconv.Atoi(arg)
		said := fmt.Appendf(nil, `{"allocated_mib":%d}`, mib)
		n := mib << 20
		r, err := syscall.Mmap(-1, 0, n, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return fail(7, "cannot reserve: %v", err)
		}
		addr := uintptr(unsafe.Pointer(&r[0]))
		if _, _, e := syscall.Syscall6(syscall.SYS_MMAP, addr, uintptr(n), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_FIXED, ^uintptr(0), 0); e != 0 {
			return fail(7, "cannot map over the reservation: %v", e)
		}
		for i := 0; i < n; i += 4096 {
			r[i] = 1
		}
		// Hold it a second, then say so, allocating nothing (the runtime
		// would die of the limit now that the range counts).
		for start := time.Now(); time.Since(start) < time.Second; {
		}
		syscall.Write(1, said)
	case "alloc":
		mib, _ := strconv.Atoi(arg)
		b := make([]byte, mib<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Printf(`{"allocated_mib":%d}`, mib)
	default:
		return fail(2, "unknown mode %s", mode)
	}
	return 0
}

// attackRegistry declares tools that are the test binary in attack mode,
// granted to acme: name, mode, argument and sandbox ("" for none) of each.
func attackRegistry(t *testing.T, tools ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("tools:\n")
	var names []string
	for i := 0; i+4 <= len(tools); i += 4 {
		name, mode, arg, sandbox := tools[i], tools[i+1], tools[i+2], tools[i+3]
		fmt.Fprintf(&b, "  - name: %s\n    side_effect: none\n    command: [%q, tsattack, %s, %q]\n", name, os.Args[0], mode, arg)
		if sandbox != "" {
			fmt.Fprintf(&b, "    sandbox: %s\n", sandbox)
		}
		names = append(names, name)
	}
	fmt.Fprintf(&b, "grants:\n  - tenant: acme\n    permissions: [%s]\n", strings.Join(names, ", "))
	return b.String()
}

// callAcme publishes a call of tenant acme to tool and waits for its
// outcome.
func callAcme(t testing.TB, b *bus.Bus, tool, call string) outcome {
	t.Helper()
	return waitOutcome(t, b, "acme", publishCall(t, b, callSpec{tenant: "acme", tool: tool, call: call}))
}

// failedWith reports whether o is a CallFailed of type et whose message
// holds every one of parts.
func (o outcome) failedWith(et events.ErrorType, parts ...string) bool {
	if o.err == nil || o.err.Error != et {
		return false
	}
	for _, p := range parts {
		if !strings.Contains(o.err.Message, p) {
			return false
		}
	}
	return true
}

// A tool sees no variable of the executor's but the ones its contract
// names; secrets reach it resolved, the registry holds their references;
// its HOME and TMPDIR are its own and gone after the call.
func TestAttackEnvLeak(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TS_TEST_CLOUD_SECRET", "cloud-secret-value")
	t.Setenv("NATS_PASSWORD", "nats-password-value")
	t.Setenv("TS_TEST_REGION", "eu-west-3")
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("file-token-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	seen, unseen := filepath.Join(dir, "env.json"), filepath.Join(dir, "env-missing.json")
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: leak
    side_effect: none
    command: [%q, tsattack, env, %q]
    env: {REGION: "${env:TS_TEST_REGION}", API_TOKEN: "${file:%s}", MODE: fast}
  - name: leak.missing
    side_effect: none
    command: [%q, tsattack, env, %q]
    env: {API_TOKEN: "${env:TS_TEST_NOT_SET}"}
grants:
  - tenant: acme
    permissions: [leak, leak.missing]
`, os.Args[0], seen, tokenFile, os.Args[0], unseen))
	if spec := string(reg.Spec()); strings.Contains(spec, "file-token-value") || strings.Contains(spec, "eu-west-3") ||
		!strings.Contains(spec, "${file:"+tokenFile+"}") {
		t.Fatalf("the registry holds a secret, not its reference: %s", spec)
	}
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)

	key := publishCall(t, b, callSpec{tenant: "acme", tool: "leak", call: "c1"})
	o := waitOutcome(t, b, "acme", key)
	if o.ok == nil {
		t.Fatalf("leak: %v", o)
	}
	var env []string
	data, err := os.ReadFile(seen)
	if err != nil || json.Unmarshal(data, &env) != nil {
		t.Fatalf("the tool's environment: %v %s", err, data)
	}
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	var names []string
	for k := range got {
		names = append(names, k)
	}
	slices.Sort(names)
	want := []string{"API_TOKEN", "HOME", "LANG", "MODE", "PATH", "REGION", "TMPDIR",
		"TOOLSTREAM_ATTEMPT", "TOOLSTREAM_CALL_ID", "TOOLSTREAM_IDEMPOTENCY_KEY", "TOOLSTREAM_TENANT", "TOOLSTREAM_TOOL"} // and the identity the call has (identity.go): here its call id
	if !slices.Equal(names, want) {
		t.Fatalf("the tool sees %v, want exactly %v", names, want)
	}
	for k, v := range map[string]string{"API_TOKEN": "file-token-value", "REGION": "eu-west-3", "MODE": "fast",
		"PATH": executor.PathDefault, "LANG": "C.UTF-8", "TOOLSTREAM_IDEMPOTENCY_KEY": key, "TOOLSTREAM_TENANT": "acme"} {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
	var dirs struct{ Home, Tmp string }
	json.Unmarshal(o.ok.Result, &dirs)
	if dirs.Home == "" || dirs.Home != got["HOME"] || dirs.Tmp != got["TMPDIR"] {
		t.Fatalf("dirs %+v", dirs)
	}
	for _, d := range []string{dirs.Home, dirs.Tmp, filepath.Dir(dirs.Home)} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Fatalf("the tool's private directory %s outlived the call: %v", d, err)
		}
	}

	// A reference that cannot be resolved: nothing runs, and the message
	// names the reference.
	key = publishCall(t, b, callSpec{tenant: "acme", tool: "leak.missing", call: "c2"})
	o = waitOutcome(t, b, "acme", key)
	if !o.failedWith(events.ErrUnavailable, "${env:TS_TEST_NOT_SET}") {
		t.Fatalf("missing secret: %v", o)
	}
	if _, err := os.Stat(unseen); !os.IsNotExist(err) {
		t.Fatal("a tool whose secret is missing was run")
	}
}

// A tool that prints 30 MB is stopped at the cap, while it prints: the
// executor never holds more than the cap.
func TestAttackOutputFlood(t *testing.T) {
	progress := filepath.Join(t.TempDir(), "progress")
	reg := parseRegistry(t, attackRegistry(t, "flood", "flood", progress, ""))
	b := bustest.Start(t)
	const limit = 1 << 20
	startExec(t, b, reg, nil, func(c *executor.Config) { c.ResultBytesMax = limit })
	o := callAcme(t, b, "flood", "c1")
	if !o.failedWith(events.ErrToolError, fmt.Sprintf("more than %d bytes, so it was stopped", limit)) {
		t.Fatalf("flood: %v", o)
	}
	data, _ := os.ReadFile(progress)
	wrote, _ := strconv.Atoi(string(data))
	// What the tool wrote is what the executor read, plus a pipe's buffer
	// and a chunk: far from 30 MB.
	if wrote > 2*limit {
		t.Fatalf("the tool wrote %d bytes before it was stopped; the cap is %d", wrote, limit)
	}
}

// A tool's background child does not outlive the call.
func TestAttackBackgroundChild(t *testing.T) {
	reg := parseRegistry(t, `
tools:
  - name: daemon
    side_effect: none
    command: [/bin/sh, -c, 'sleep 1000 & echo "{\"child\": $!}"']
grants:
  - tenant: acme
    permissions: [daemon]
`)
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	start := time.Now()
	o := callAcme(t, b, "daemon", "c1")
	var r struct{ Child int }
	if o.ok == nil || json.Unmarshal(o.ok.Result, &r) != nil || r.Child <= 0 {
		t.Fatalf("daemon: %v", o)
	}
	t.Cleanup(func() { syscall.Kill(r.Child, syscall.SIGKILL) })
	// Killed before the outcome was recorded; reaping it is up to init.
	deadline := time.Now().Add(5 * time.Second)
	for alive(r.Child) {
		if time.Now().After(deadline) {
			t.Fatalf("the tool's background child %d is alive after the call returned", r.Child)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("the call took %s: it waited for the child's output to close", d)
	}
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state …: the state follows the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
