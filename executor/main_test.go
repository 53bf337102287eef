package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/registry"
)

// The test binary has three other lives:
//
//	exe tstool MODE FILE   a command tool (see toolMain)
//	exe tsattack MODE ARG  a command tool that attacks its executor (see attackMain)
//	exe tsmcp FILE          a stdio MCP server (see mcpStdioMain)
//	TS_EXEC_CHILD=1 exe     an executor process for crash tests and benchmarks (see childMain)
func TestMain(m *testing.M) {
	if len(os.Args) >= 4 && os.Args[1] == "tstool" {
		os.Exit(toolMain(os.Args[2], os.Args[3]))
	}
	if len(os.Args) >= 3 && os.Args[1] == "tsmcp" {
		os.Exit(mcpStdioMain(os.Args[2]))
	}
	if len(os.Args) >= 4 && os.Args[1] == "tsattack" {
		os.Exit(attackMain(os.Args[2], os.Args[3]))
	}
	if os.Getenv("TS_EXEC_CHILD") == "1" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}

// toolMain is a command tool. Every mode appends the idempotency key to
// FILE (O_APPEND, under an exclusive lock) as its effect:
//
//	echo   the effect, then prints {"args": stdin, "key": key}
//	fail   the effect, then "the disk is full" on stderr and exit status 3
//	typed  the effect, then a business_rejected error on stdout and exit status 1
//	idem   the effect once per key (de-duplicated under the lock): idempotent
//	once   the effect at every invocation: not idempotent
//
// idem and once sleep {"sleep_ms": n} around the effect, so that a killed
// executor may die before, during or after it.
func toolMain(mode, file string) int {
	key := os.Getenv("TOOLSTREAM_IDEMPOTENCY_KEY")
	in, _ := io.ReadAll(os.Stdin)
	var args struct {
		SleepMS int `json:"sleep_ms"`
	}
	json.Unmarshal(in, &args)
	sleep := time.Duration(args.SleepMS) * time.Millisecond / 2
	time.Sleep(sleep)
	if err := appendKey(file, key, mode == "idem"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	time.Sleep(sleep)
	switch mode {
	case "echo":
		fmt.Printf(`{"args":%s,"key":%q}`, in, key)
	case "fail":
		fmt.Fprintln(os.Stderr, "the disk is full")
		return 3
	case "typed":
		fmt.Print(`{"error":{"type":"business_rejected","message":"no such customer"}}`)
		return 1
	default:
		fmt.Printf(`{"ok":true,"key":%q}`, key)
	}
	return 0
}

func appendKey(file, key string, dedupe bool) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if dedupe {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line == key {
				return nil
			}
		}
	}
	_, err = f.WriteString(key + "\n")
	return err
}

// childMain is an executor process: TS_NATS_URL, TS_TOOLS (a tools file),
// TS_ID, TS_HEARTBEAT_MS, TS_PARALLEL, TS_TAKEOVERS_MAX, and TS_KILL_AT (before-invoke,
// after-invoke, before-publish, before-ack: SIGKILL itself there, the
// first time; before-ack-N: at the N-th input about to be acknowledged). It serves Go tools "noop", "noop.leased" and
// "noop.immediate" (the same function, executor.Immediate) besides the
// file's, and runs until SIGTERM (or SIGKILL).
func childMain() int {
	nc, err := nats.Connect(os.Getenv("TS_NATS_URL"), auth.CredsOptions(os.Getenv("TS_NATS_CREDS"))...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	reg, err := registry.Load(os.Getenv("TS_TOOLS"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	hooks := &executor.Hooks{}
	kill := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
	switch os.Getenv("TS_KILL_AT") {
	case "before-invoke":
		hooks.BeforeInvoke = func(executor.Call) { kill() }
	case "after-invoke":
		hooks.AfterInvoke = func(executor.Call) { kill() }
	case "before-publish":
		hooks.BeforePublish = func(string) { kill() }
	case "before-ack":
		hooks.BeforeAck = func(string) { kill() }
	}
	if n, ok := strings.CutPrefix(os.Getenv("TS_KILL_AT"), "before-ack-"); ok { // the n-th input about to be acknowledged
		nth, _ := strconv.Atoi(n)
		var acks atomic.Int64
		hooks.BeforeAck = func(string) {
			if acks.Add(1) == int64(nth) {
				kill()
			}
		}
	}
	hb, _ := strconv.Atoi(os.Getenv("TS_HEARTBEAT_MS"))
	par, _ := strconv.Atoi(os.Getenv("TS_PARALLEL"))
	takeovers, _ := strconv.Atoi(os.Getenv("TS_TAKEOVERS_MAX")) // 0: the default
	e, err := executor.New(executor.Config{
		JS: js, Registry: func() *registry.Registry { return reg },
		Tools: map[string]executor.Tool{"noop": executor.ToolFunc(noop), "noop.leased": executor.ToolFunc(noop),
			"noop.immediate": executor.ImmediateFunc(noop)},
		ExecutorID: os.Getenv("TS_ID"), Heartbeat: time.Duration(hb) * time.Millisecond,
		MaxParallelPerTenant: par, TakeoversMax: takeovers, Hooks: hooks, Logger: childLogger(),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := e.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

func noop(context.Context, executor.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }

// childLogger logs warnings to stderr when TS_LOG is set (TS_LOG=info:
// from info up).
func childLogger() *slog.Logger {
	level := slog.LevelWarn
	switch os.Getenv("TS_LOG") {
	case "":
		return nil
	case "info":
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}
