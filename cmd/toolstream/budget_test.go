package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/vmihailenco/msgpack/v5"
)

// Parsers with budgets (issue "Trust boundaries", item 3): no input of up
// to 1 MiB — tools file, event, request — makes any command use more than
// 256 MiB or more than 5 s.
const (
	budgetInputBytesMax = 1 << 20
	budgetRSSMax        = 256 << 20
	// budgetTimeMax bounds the processor time (user + system) a command
	// spends on one input. Processor time, not wall time: the tests share
	// two cores with the rest of the suite, and a command waiting for a core
	// is not spending time on its input.
	budgetTimeMax = 5 * time.Second
)

// aliasBombYAML is the "billion laughs" of the issue: 443 bytes of nested
// aliases that expand to 9^9 strings.
const aliasBombYAML = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
tools: [{name: x, input_schema: {enum: *i}}]
`

// budgetTools is a tools file with the schemas the adversarial calls aim
// at: numbers compared, a pattern, and anything else.
const budgetTools = `tools:
  - name: t
    side_effect: none
    input_schema:
      type: object
      properties:
        n: {type: number, minimum: 0, multipleOf: 0.5}
        ns: {type: array, items: {type: number, maximum: 10}}
        s: {type: string, pattern: "^(a|aa)*c$"}
grants:
  - tenant: default
    permissions: [t]
`

// repeatTo repeats unit between head and tail up to about n bytes.
func repeatTo(head, unit, tail string, n int) string {
	k := (n - len(head) - len(tail)) / len(unit)
	return head + strings.Repeat(unit, k) + tail
}

// nested returns open^k + mid + close^k, about n bytes.
func nested(head, open, mid, close, tail string, n int) string {
	k := (n - len(head) - len(mid) - len(tail)) / (len(open) + len(close))
	return head + strings.Repeat(open, k) + mid + strings.Repeat(close, k) + tail
}

// anthropicCall is a recorded Anthropic stream of one call to tool t whose
// arguments are args, sent in deltas of 16 KiB.
func anthropicCall(args string) string {
	var b strings.Builder
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_budget", "type": "message", "role": "assistant", "content": []any{}}})
	line(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_budget", "name": "t", "input": map[string]any{}}})
	for len(args) > 0 {
		n := min(len(args), 16<<10)
		line(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": args[:n]}})
		args = args[n:]
	}
	line(map[string]any{"type": "content_block_stop", "index": 0})
	line(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use"}})
	line(map[string]any{"type": "message_stop"})
	return b.String()
}

// exponentialSchema is a schema whose every level applies the next one ten
// times at the same place: 10^8 applications for one value.
func exponentialSchema() string {
	var defs []string
	for i := range 8 {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf(`{"$ref":"#/$defs/d%d"},`, i+1), 10), ",")
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[%s]}`, i, refs))
	}
	defs = append(defs, `"d8":{"type":"string"}`)
	return `{"tools":[{"name":"t","side_effect":"none","input_schema":{"type":"object","$defs":{` + strings.Join(defs, ",") +
		`},"properties":{"s":{"$ref":"#/$defs/d0"}}}}],"grants":[{"tenant":"default","permissions":["t"]}]}`
}

// refChainSchema is a schema of n definitions, each a reference to the
// next.
func refChainSchema(n int) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"}`, i, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
	return `{"tools":[{"name":"t","side_effect":"none","input_schema":{"type":"object","$defs":{` + strings.Join(defs, ",") +
		`},"properties":{"s":{"$ref":"#/$defs/d0"}}}}],"grants":[{"tenant":"default","permissions":["t"]}]}`
}

// hostileLog writes a log (an embedded server's files in dir) whose model
// subject holds events that declare far more than they carry, for replay
// to decode.
func hostileLog(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "budget"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	encode := func(body events.Body) []byte {
		data, err := events.Encode(&events.Event{ID: "x", Tenant: "acme", Response: "r", Item: "i", At: 1, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	be32 := func(op byte, n uint32) []byte { return binary.BigEndian.AppendUint32([]byte{op}, n) }
	// The envelope of an answer, then a body declaring 4 billion claims.
	empty, err := msgpack.Marshal(&events.AnswerVerified{})
	if err != nil {
		t.Fatal(err)
	}
	answer := encode(&events.AnswerVerified{})
	answer = answer[:len(answer)-len(empty)]
	claims := append(append(append([]byte{}, answer...), 0x81, 0xa2, 'c', 'l'), be32(0xdd, 0xffffffff)...)
	deep := append(append([]byte{}, answer...), 0x81, 0xa2, 'c', 'l')
	deep = append(deep, bytes.Repeat([]byte{0x91}, budgetInputBytesMax-4096-len(deep))...)
	deep = append(deep, 0xc0)
	for _, data := range [][]byte{
		claims,
		append(append([]byte{}, answer...), be32(0xdf, 0xffffffff)...),               // a map of 4 billion fields
		append(append(append([]byte{}, answer...), 0x81), be32(0xdb, 0xffffffff)...), // a 4 GiB key
		deep, // 1 MiB of arrays in arrays
		append(append(append(append([]byte{}, answer...), 0x81, 0xa2, 'c', 'l'), be32(0xdd, 1<<19)...), bytes.Repeat([]byte{0x80}, 1<<19)...), // half a million empty claims
	} {
		// To the assembler's stream and to the verifier's.
		for _, subj := range []string{"ts.model.acme.r.i", "ts.answer.acme.r"} {
			if _, err := b.JS.Publish(ctx, subj, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, data := range [][]byte{[]byte(aliasBombYAML), []byte(budgetTools)} { // unsigned registry changes, YAML
		ev := encode(&events.RegistryChanged{Digest: "x", Spec: data})
		if _, err := b.JS.Publish(ctx, "ts.ctl._system.registry", ev, jetstream.WithMsgID(fmt.Sprint(len(data)))); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInputBudgets builds the toolstream binary and runs the commands that
// parse untrusted input on adversarial inputs of up to 1 MiB, measuring
// each process's wall time and peak RSS.
func TestInputBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it on adversarial inputs")
	}
	dir := t.TempDir()
	bin := toolstreamBinary(t)
	file := func(name, content string) string {
		t.Helper()
		if len(content) > budgetInputBytesMax {
			t.Fatalf("%s: %d bytes, more than the budget's inputs", name, len(content))
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const mib = budgetInputBytesMax
	okStream := file("ok.jsonl", anthropicCall(`{"n": 1}`))
	tools := file("tools.yaml", budgetTools)
	assemble := func(toolsFile, stream string) []string {
		return []string{"assemble", "--tools", toolsFile, stream}
	}
	logDir := filepath.Join(dir, "hostile")
	hostileLog(t, logDir)
	answer := file("answer.txt", repeatTo("", "The SKU A1 has 12 units in Shanghai, delivered in 2 days for 12 CNY. ", "", mib))
	// What the output must say for the commands that read what they were
	// given (the log) instead of refusing it.
	wants := map[string]string{
		"events: hostile log, replay of the assembler": "replayed assembler: seq=7",
		"events: hostile log, replay of the verifier":  "replayed verifier: seq=5",
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		// Tools files.
		{"tools: alias bomb", assemble(file("bomb.yaml", aliasBombYAML), okStream)},
		{"tools: 1 MiB of nested YAML sequences", assemble(file("nested.yaml", nested("tools: ", "[", "", "]", "", mib)), okStream)},
		{"tools: 1 MiB of nested YAML mappings", assemble(file("nestedmap.yaml", nested("tools: ", "{a: ", "b", "}", "", mib)), okStream)},
		{"tools: 1 MiB of YAML items", assemble(file("items.yaml", repeatTo("tools: [{name: a}]\nx:\n", "- a\n", "", mib)), okStream)},
		{"tools: 1 MiB of nested JSON arrays", assemble(file("nested.json", nested(`{"tools":`, "[", "", "]", "}", mib)), okStream)},
		{"tools: 1 MiB of nested JSON objects", assemble(file("nestedobj.json", nested(`{"tools":`, `{"a":`, "1", "}", "}", mib)), okStream)},
		{"tools: 1 MiB of tools", assemble(file("many.yaml", repeatTo("tools:\n", "  - {name: t, input_schema: {type: object, properties: {a: {type: string, pattern: '^[a-z]+$'}}}}\n", "", mib)), okStream)},
		{"tools: a 1 MiB string", assemble(file("long.yaml", repeatTo("tools: [{name: t, description: \"", "x", "\"}]\n", mib)), okStream)},
		{"tools: a 1 MiB integer", assemble(file("bigint.yaml", repeatTo("tools: [{name: t, version: ", "9", "}]\n", mib)), okStream)},
		{"tools: a 1 MiB JSON number", assemble(file("bignum.json", repeatTo(`{"tools":[{"name":"t","input_schema":{"maximum":`, "9", `}}]}`, mib)), okStream)},
		{"tools: multipleOf 1e-99999999", assemble(file("tiny.json", `{"tools":[{"name":"t","input_schema":{"multipleOf":1e-99999999}}]}`), okStream)},
		{"tools: exponents of a million", assemble(file("exps.json", repeatTo(`{"tools":[{"name":"t","input_schema":{"enum":[`, "1e-999999,", `0]}}]}`, mib)), okStream)},
		{"tools: a pathological pattern", assemble(file("pattern.yaml", "tools: [{name: t, input_schema: {properties: {s: {pattern: '"+strings.Repeat("(a*)*", 200)+"b'}}}}]"), okStream)},
		{"tools: $defs nested 10000 deep", assemble(file("defs.json", nested(`{"tools":[{"name":"t","input_schema":`, `{"$defs":{"a":`, "{}", "}}", "}]}", mib)), okStream)},
		{"tools: a chain of 20000 $refs", assemble(file("chain.json", refChainSchema(20000)), file("chain.jsonl", anthropicCall(`{"s": "x"}`)))},
		{"tools: $refs applied 10^8 times", assemble(file("expo.json", exponentialSchema()), file("expo.jsonl", anthropicCall(`{"s": "x"}`)))},
		{"tools: a $ref cycle", assemble(file("cycle.json", `{"tools":[{"name":"t","input_schema":{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}}]}`), okStream)},
		// Requests: a call's arguments.
		{"args: 1e-99999999", assemble(tools, file("tinyarg.jsonl", anthropicCall(`{"n": 1e-99999999}`)))},
		{"args: numbers of a million digits of exponent", assemble(tools, file("exparg.jsonl", anthropicCall(repeatTo(`{"ns": [`, "1e999999,", `0]}`, mib*8/10))))},
		{"args: a 1 MiB number", assemble(tools, file("numarg.jsonl", anthropicCall(repeatTo(`{"n": `, "9", `}`, mib*9/10))))},
		{"args: a pattern over 1 MiB", assemble(tools, file("patarg.jsonl", anthropicCall(repeatTo(`{"s": "`, "a", `"}`, mib*9/10))))},
		{"args: 1 MiB of nested arrays", assemble(tools, file("deeparg.jsonl", anthropicCall(nested(`{"ns": `, "[", "", "]", "}", mib*8/10))))},
		{"args: 1 MiB of nested objects", assemble(tools, file("deepobj.jsonl", anthropicCall(nested(`{"x": `, `{"a":`, "1", "}", "}", mib*6/10))))},
		{"args: a 1 MiB string", assemble(tools, file("strarg.jsonl", anthropicCall(repeatTo(`{"x": "`, `\u00e9`, `"}`, mib*8/10))))},
		// Events: a log with events that declare more than they carry, and
		// YAML and alias bombs as registry changes.
		{"events: hostile log, replay of the assembler", []string{"replay", "--projection", "assembler", "--data", logDir, "--offline", "--progress", "none"}},
		{"events: hostile log, replay of the verifier", []string{"replay", "--projection", "verifier", "--data", logDir, "--offline", "--progress", "none"}},
		// Answers and evidence: verify.
		{"verify: 1 MiB answer", []string{"verify", "--evidence", file("evidence.json", `[{"call_id":"c","name":"stock","result":{"sku":"A1","available":12,"days":2,"price":12}}]`), "--answer", answer}},
		{"verify: 1 MiB of nested evidence", []string{"verify", "--evidence", file("deepev.json", nested(`[{"call_id":"c","name":"n","result":`, "[", "", "]", "}]", mib)), "--answer", file("short.txt", "12 units.")}},
		{"verify: 1 MiB of numbers as evidence", []string{"verify", "--evidence", file("numev.json", repeatTo(`[{"call_id":"c","name":"n","result":[`, "12,", `0]}]`, mib)), "--answer", answer}},
		{"verify: 1 MiB of dates against 1 MiB of date claims", []string{"verify", "--now", "2026-12-01T10:00:00Z",
			"--evidence", file("dateev.json", repeatTo(`[{"call_id":"c","name":"n","result":{"eta":[`, `"2026-12-01",`, `"2026-12-02"]}}]`, mib)),
			"--answer", file("dates.txt", repeatTo("", "It arrives on 2026-12-03, in 2 days. ", "", mib))}},
		{"verify: 1 MiB of status rows against 1 MiB of state claims", []string{"verify", "--now", "2026-12-01T10:00:00Z",
			"--evidence", file("stateev.json", repeatTo(`[{"call_id":"c","name":"n","result":{"pumps":[`, `{"validity_status":"valid","schedule_status":"going ahead","plan_status":"planned","service_status":"in service"},`, `{"validity_status":"expired"}]}}]`, mib)),
			"--answer", file("states.txt", repeatTo("", "The pump is still valid, going ahead as planned and not in service. ", "", mib))}},
		{"verify: 1 MiB of amount rows against 1 MiB of amount claims", []string{"verify",
			"--evidence", file("amountev.json", repeatTo(`[{"call_id":"c","name":"n","result":{"orders":[`, `{"id":"A1","amount":120.5,"total_amount":99,"currency":"EUR"},`, `{"id":"B2","amount":7,"total_amount":8,"currency":"EUR"}]}}]`, mib)),
			"--answer", file("amounts.txt", repeatTo("", "The total amount is 130.50 EUR. ", "", mib))}},
		{"verify: 1 MiB of duration rows against 1 MiB of duration claims", []string{"verify",
			"--evidence", file("durev.json", repeatTo(`[{"call_id":"c","name":"n","result":{"rows":[`, `{"id":"A1","duration_min":45,"delay_hours":2},`, `{"id":"B2","duration_min":4,"delay_hours":1}]}}]`, mib)),
			"--answer", file("durations.txt", repeatTo("", "The trip takes 50 minutes with a delay of 3 hours. ", "", mib))}},
		{"verify: 1 MiB of identifier rows against 1 MiB of identifier claims", []string{"verify",
			"--evidence", file("idev.json", repeatTo(`[{"call_id":"c","name":"n","result":{"rows":[`, `{"order_id":"A1234","invoice_no":98765,"amount":12},`, `{"order_id":"B2","invoice_no":1,"amount":2}]}}]`, mib)),
			"--answer", file("ids.txt", repeatTo("", "Order A1235 has invoice number 98766. ", "", mib))}},
		{"verify: 1 MiB answer of one number", []string{"verify", "--evidence", file("ev1.json", `[{"call_id":"c","name":"n","result":{"a":1}}]`), "--answer", file("digits.txt", repeatTo("", "9", "", mib))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 6*budgetTimeMax)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tc.args...)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			var self syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &self)
			err := cmd.Start()
			var polled int64
			if err == nil {
				done, peak := make(chan struct{}), make(chan int64, 1)
				go func() { peak <- pollPeakRSS(cmd.Process.Pid, done) }()
				err = cmd.Wait()
				close(done)
				polled = <-peak
			}
			wall := time.Since(start)
			if cmd.ProcessState == nil {
				t.Fatalf("did not run: %v", err)
			}
			rss := childPeakRSS(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, self.Maxrss, polled)
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			t.Logf("%-50s %6.2fs cpu %6.2fs wall %4d MiB exit %d: %.160s", tc.name, cpu.Seconds(), wall.Seconds(), rss>>20, cmd.ProcessState.ExitCode(),
				strings.TrimSpace(firstLine(stderr.String()+stdout.String())))
			if cpu > budgetTimeMax || rss > budgetRSSMax {
				t.Errorf("over budget: %.2fs of processor time (max %v), %d MiB (max %d)\nstderr: %.2000s", cpu.Seconds(), budgetTimeMax, rss>>20, budgetRSSMax>>20, stderr.String())
			}
			if want := wants[tc.name]; want != "" && !strings.Contains(stdout.String(), want) {
				t.Errorf("no %q in the output:\n%.2000s\n%.2000s", want, stdout.String(), stderr.String())
			}
			if strings.Contains(stderr.String(), "panic") || strings.Contains(stderr.String(), "fatal error") {
				t.Errorf("crashed:\n%.4000s", stderr.String())
			}
		})
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// childPeakRSS is a child's peak resident memory. The kernel's figure
// (wait4's ru_maxrss, kilobytes) starts at the parent's own peak: a child
// started by vfork inherits the high-water mark of the memory it shared
// until exec. It is the child's only when it is above the parent's peak
// when the child started; otherwise the child's own high-water mark,
// read from /proc while it ran (VmHWM, per address space, starts anew at
// exec), is.
func childPeakRSS(waitKB, parentKB int64, polled int64) int64 {
	if waitKB > parentKB || polled == 0 { // polled 0: gone before the first read
		return waitKB << 10
	}
	return polled
}

// pollPeakRSS reads the VmHWM of pid every few milliseconds until done is
// closed or the process is gone, and returns the last (the largest) in
// bytes.
func pollPeakRSS(pid int, done chan struct{}) int64 {
	var peak int64
	path := fmt.Sprintf("/proc/%d/status", pid)
	for {
		if b, err := os.ReadFile(path); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
					var kb int64
					fmt.Sscan(f[1], &kb)
					peak = max(peak, kb<<10)
				}
			}
		}
		select {
		case <-done:
			return peak
		case <-time.After(2 * time.Millisecond):
		}
	}
}
