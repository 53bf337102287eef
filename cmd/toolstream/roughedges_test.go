package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/gateway"
)

// edgeRig runs commands in process against a log with --creds.
type edgeRig struct {
	t   *testing.T
	ctx context.Context
	url string
}

func (r edgeRig) run(creds string, args ...string) (string, error, time.Duration) {
	var out, errOut bytes.Buffer
	c := newRoot(&out, &errOut)
	c.SetArgs(append(args, "--nats-url", r.url, "--data", r.t.TempDir(), "--log-level", "error", "--creds", creds))
	start := time.Now()
	err := c.ExecuteContext(r.ctx)
	return out.String(), err, time.Since(start)
}

// TestPublishRefusesWhatIsNotAStream: publish of a tools file published
// nothing and exited 0; it is refused before anything is published (exit
// 4, naming what the file starts with), and so is a file with no event.
func TestPublishRefusesWhatIsNotAStream(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := edgeRig{t, ctx, b.ClientURL()}
	producer := bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.yaml")
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(tools, []byte(approvalTools), 0o644)
	os.WriteFile(empty, []byte("\n\n"), 0o644)
	for file, want := range map[string]string{
		tools: `tools.yaml is not a provider stream (JSON lines or server-sent events): it starts with "tools:" (a tools file is read by serve --tools FILE)`,
		empty: "empty.jsonl holds no provider events (JSON lines or server-sent events): nothing was published",
	} {
		out, err, _ := r.run(producer, "publish", "--tenant", "acme", file)
		if err == nil || exitCode(err) != exitBadInput || !strings.Contains(err.Error(), want) {
			t.Errorf("publish %s: %q, %v (exit %d); want exit 4 with %q", filepath.Base(file), out, err, exitCode(err), want)
		}
	}
	info, err := b.JS.Stream(ctx, events.StreamModel)
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().State.Msgs; n != 0 {
		t.Errorf("%d model events published", n)
	}
}

// TestCredsOfAnotherRoleAreRefusedAtOnce: a producer's creds used for
// another tenant were refused by the server on a data key's subject, in
// base64, after a timeout of 5 to 10 s; now at once, naming both tenants,
// and a producer's creds where the log is read name the role needed. Exit
// code 5.
func TestCredsOfAnotherRoleAreRefusedAtOnce(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := edgeRig{t, ctx, b.ClientURL()}
	producer := bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	reader := bustest.Creds(t, b, auth.Identity{Role: auth.RoleReader})
	stream := filepath.Join("..", "..", "testdata", "streams", "anthropic-weather.jsonl")
	for _, tc := range []struct {
		creds string
		args  []string
		want  string
	}{
		{producer, []string{"publish", "--tenant", "globex", stream}, "holds the producer of tenant acme: it acts for tenant acme only, not globex (give --tenant acme, or globex's: toolstream creds producer --tenant globex --out FILE)"},
		{producer, []string{"runs", "--tenant", "globex"}, "it acts for tenant acme only, not globex"},
		{producer, []string{"calls", "--tenant", "acme"}, "this command needs the reader role (it reads the log), which a producer may not do"},
		{reader, []string{"approve", "acme/run1/1/call_1"}, "holds the reader role: this command needs the operator role"},
	} {
		out, err, took := r.run(tc.creds, tc.args...)
		if err == nil || exitCode(err) != exitUnavailable || !strings.Contains(err.Error(), tc.want) || took > 4*time.Second { // the refusal it replaced waited 5 s or more
			t.Errorf("%v: %q, %v (exit %d after %v); want exit 5 with %q", tc.args, out, err, exitCode(err), took, tc.want)
		}
	}
}

// TestApproveKeyNamesItsTenant: approve KEY needed --tenant although the
// key names it (without, the key was another tenant's: bad input); the
// key's tenant is taken, and a --tenant that disagrees is still refused.
func TestApproveKeyNamesItsTenant(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := edgeRig{t, ctx, b.ClientURL()}
	for _, call := range []string{"call_1", "call_2"} {
		key := "acme/run1/1/" + call
		subj, err := events.ExecSubject("acme", key)
		if err != nil {
			t.Fatal(err)
		}
		ev := &events.Event{ID: "req-" + call, Tenant: "acme", User: "u1", Run: "run1", Step: "1", Response: "resp_1", Item: "fc_1", CallID: call, At: 1,
			Body: &events.ApprovalRequested{Name: "refund", Arguments: []byte(`{"order":7}`), Key: key}}
		if _, err := b.Publish(ctx, subj, ev); err != nil {
			t.Fatal(err)
		}
	}
	operator := bustest.Creds(t, b, auth.Identity{Role: auth.RoleOperator})
	if out, err, _ := r.run(operator, "approve", "acme/run1/1/call_1"); err != nil || out != "approved acme/run1/1/call_1\n" {
		t.Fatalf("approve KEY: %q, %v", out, err)
	}
	if out, err, _ := r.run(operator, "approve", "acme/run1/1/call_2", "--tenant", "globex"); !errors.Is(err, client.ErrBadInput) || exitCode(err) != exitBadInput {
		t.Fatalf("approve KEY --tenant of another tenant: %q, %v", out, err)
	}
	if out, err, _ := r.run(operator, "approve", "acme/run1/1/call_1"); !errors.Is(err, client.ErrAlreadyDecided) || exitCode(err) != exitConflict {
		t.Fatalf("approve twice: %q, %v (exit %d), want exit %d", out, err, exitCode(err), exitConflict)
	}
	if out, err, _ := r.run(operator, "deny", "acme/run1/1/call_1", "--reason", "late"); !errors.Is(err, client.ErrAlreadyDecided) || exitCode(err) != exitConflict {
		t.Fatalf("deny after approve: %q, %v (exit %d), want exit %d", out, err, exitCode(err), exitConflict)
	}
}

// TestErrorsSayWhatToDo: a flag's value the parser refuses says what the
// flag wants (it said strconv.ParseBool: parsing "yes": invalid syntax),
// an unknown flag points at --help, and package prefixes are gone from
// the line a user reads; all exit 4.
func TestErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calls", "--json=yes"}, `--json "yes": want true or false`},
		{[]string{"tools", "search", "x", "--k", "ten"}, `--k "ten": want a whole number`},
		{[]string{"memory", "forget", "x", "--wait", "3q"}, `--wait "3q": want a duration such as 30s, 2m or 72h`},
		{[]string{"calls", "--bogus"}, "unknown flag: --bogus (toolstream calls --help lists its flags)"},
		{[]string{"tools", "export", "--format", "cohere"}, `--format "cohere": want openai, openai-responses, anthropic, gemini or mcp`},
		{[]string{"publish", "--provider", "cohere", "x"}, `--provider "cohere": want auto, openai-responses, openai-chat, anthropic, gemini or tagged`},
	} {
		c := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		c.SetArgs(append(tc.args, "--data", t.TempDir()))
		err := c.Execute()
		if err == nil || exitCode(err) != exitBadInput || userMessage(err) != tc.want {
			t.Errorf("%v: %v (exit %d); want exit 4 with %q", tc.args, err, exitCode(err), tc.want)
		}
	}
	for in, want := range map[string]string{
		`client: forget "x" of user u1 in tenant acme: client: not found: memory: get "x" of tenant acme: memory: not found`: `forget "x" of user u1 in tenant acme: not found: get "x" of tenant acme: not found`,
		`client: read [call] of acme: client: permission denied: nats: permissions violation: x`:                             `read [call] of acme: permission denied: permissions violation: x`,
		`--tenant: events: tenant "A B": invalid`:                                                                            `--tenant: tenant "A B": invalid`,
		`client: tsv.memory.history: 404 memory: get "nope" of tenant acme: record not found`:                                `get "nope" of tenant acme: record not found`,
	} {
		if got := userMessage(errors.New(in)); got != want {
			t.Errorf("userMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFlagsWhereTheyApply: 19 flags were global, under every command
// (--tls-cert under calls, --replicas under verify); the root keeps the
// three every command takes, each other flag is on the commands it applies
// to, and every command is in a group of the help.
func TestFlagsWhereTheyApply(t *testing.T) {
	root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
	var global []string
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { global = append(global, f.Name) })
	if want := []string{"data", "log-format", "log-level"}; !slices.Equal(global, want) {
		t.Errorf("global flags %v, want %v", global, want)
	}
	has := func(path, flag string) bool {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatal(err)
		}
		return cmd.Flags().Lookup(flag) != nil
	}
	for path, flags := range map[string][]string{
		"serve":         {"listen", "nats-url", "creds", "sync", "tls-cert", "tls-key", "allow-plaintext", "replicas", "partitions", "registry-key", "registry-trust"},
		"setup":         {"nats-url", "creds", "replicas", "partitions", "raw-retention"},
		"publish":       {"listen", "nats-url", "creds", "nats-user", "tls-ca"},
		"memory recall": {"listen", "creds"},
		"tools export":  {"listen", "registry-trust"},
		"replay":        {"creds", "registry-trust"},
		"auth init":     {"registry-key"},
	} {
		for _, f := range flags {
			if !has(path, f) {
				t.Errorf("%s has no --%s", path, f)
			}
		}
	}
	for path, flags := range map[string][]string{
		"demo":       {"listen", "creds", "sync", "replicas", "tls-cert"},
		"verify":     {"listen", "nats-url", "replicas"},
		"calls":      {"sync", "tls-cert", "replicas", "registry-key"},
		"memory run": {"listen", "creds"},
		"creds":      {"listen", "tls-cert"},
	} {
		for _, f := range flags {
			if has(path, f) {
				t.Errorf("%s has --%s, which does not apply to it", path, f)
			}
		}
	}
	for _, cmd := range root.Commands() {
		if cmd.GroupID == "" && cmd.Name() != "help" && cmd.Name() != "completion" {
			t.Errorf("%s is in no group of the help", cmd.Name())
		}
	}
}

// TestAMistypedCommandIsBadInput: a mistyped command exited 1 (cobra's
// error), a mistyped subcommand followed by its flags said the flag was
// unknown ("memory mesage --tenant acme": unknown flag --tenant), and an
// argument to a command that takes none said "unknown command", and
// "memory mesage hi" printed memory's help and exited 0; each is
// now exit 4 with a line that names the mistake and points at --help.
func TestAMistypedCommandIsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calsl", "--tenant", "acme"}, `unknown command "calsl" for toolstream; did you mean calls? (toolstream --help lists its commands)`},
		{[]string{"memory", "mesage", "--tenant", "acme", "hi"}, `unknown command "mesage" for toolstream memory; did you mean message? (toolstream memory --help lists its commands)`},
		{[]string{"memory", "mesage", "hi"}, `unknown command "mesage" for toolstream memory; did you mean message? (toolstream memory --help lists its commands)`},
		{[]string{"calls", "extra"}, `toolstream calls takes no argument "extra" (toolstream calls --help lists its flags)`},
		// A command given too few or too many arguments exited 1 with
		// cobra's bare "accepts 1 arg(s), received 0".
		{[]string{"memory", "forget", "--tenant", "acme"}, `toolstream memory forget accepts 1 arg(s), received 0 (usage: toolstream memory forget ID [flags])`},
		{[]string{"approve"}, `toolstream approve accepts 1 arg(s), received 0 (usage: toolstream approve CALL_ID|KEY [--tenant T] [flags])`},
		{[]string{"memory", "message", "--tenant", "acme", "--user", "ada", "I", "swim"}, `toolstream memory message accepts 1 arg(s), received 2 (usage: toolstream memory message TEXT [flags])`},
	} {
		c := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		c.SetArgs(append(tc.args, "--data", t.TempDir()))
		_, err := execute(t.Context(), c)
		if err == nil || exitCode(err) != exitBadInput || userMessage(err) != tc.want {
			t.Errorf("%v: %v (exit %d); want exit 4 with %q", tc.args, err, exitCode(err), tc.want)
		}
	}
}

// TestAMistypedFlagNamesTheNearest: cobra suggests commands, never flags
// ("unknown flag: --tenent" said no more); every command now names its
// flags nearest to what was typed, and a long flag given one dash (read
// as shorthands) by its name.
func TestAMistypedFlagNamesTheNearest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calls", "--tenent", "acme"}, `unknown flag: --tenent; did you mean --tenant? (toolstream calls --help lists its flags)`},
		{[]string{"calls", "-tenant", "acme"}, `unknown shorthand flag: 't' in -tenant; did you mean --tenant? (toolstream calls --help lists its flags)`},
		{[]string{"calls", "--ten", "acme"}, `unknown flag: --ten; did you mean --tenant? (toolstream calls --help lists its flags)`},
		{[]string{"memory", "recall", "--usr", "ada", "food"}, `unknown flag: --usr; did you mean --user? (toolstream memory recall --help lists its flags)`},
		{[]string{"publish", "--provder", "openai", "s.jsonl"}, `unknown flag: --provder; did you mean --provider? (toolstream publish --help lists its flags)`},
		{[]string{"trace", "-json", "call_r1"}, `unknown shorthand flag: 'j' in -json; did you mean --json? (toolstream trace --help lists its flags)`},
		{[]string{"calls", "--dta", "x"}, `unknown flag: --dta; did you mean --data? (toolstream calls --help lists its flags)`},
		// Nothing near: no guess.
		{[]string{"calls", "--xyz"}, `unknown flag: --xyz (toolstream calls --help lists its flags)`},
		{[]string{"calls", "-q"}, `unknown shorthand flag: 'q' in -q (toolstream calls --help lists its flags)`},
	} {
		c := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		c.SetArgs(append(tc.args, "--data", t.TempDir()))
		_, err := execute(t.Context(), c)
		if err == nil || exitCode(err) != exitBadInput || userMessage(err) != tc.want {
			t.Errorf("%v: %v (exit %d); want exit 4 with %q", tc.args, err, exitCode(err), tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"tenent", "tenant", 1}, {"usr", "user", 1}, {"jsno", "json", 2}, {"", "data", 4}, {"kitten", "sitting", 3}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// TestAFlagsValueThatCannotBeUsedIsBadInput: each of these is a mistake in
// what the user typed, refused before any server is asked; each exited 1,
// the code of a failure the user cannot mend, and two were not refused at
// all (a negative --budget-tokens or --keep of history, a negative --k of
// recall, printed everything as if no bound were given). All exit 4 now.
func TestAFlagsValueThatCannotBeUsedIsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calls", "--tenant", "acme", "--log-level", "loud"}, `--log-level "loud"`},
		{[]string{"calls", "--tenant", "acme", "--log-format", "xml"}, `--log-format "xml": want text or json`},
		{[]string{"calls", "--tenant", "acme", "--creds", "/nonexistent/acme.creds"}, `--creds /nonexistent/acme.creds: no such file`},
		{[]string{"creds", "producer", "--tenant", "acme"}, `--out: give the file to write`},
		{[]string{"keys", "backup"}, `--out: give the file to write`},
		{[]string{"forget", "--tenant", "acme"}, `--user: give the end user to erase`},
		{[]string{"forget", "--tenant", "acme", "--user", "ada", "--no-user"}, `--no-user: give either --user or --no-user`},
		{[]string{"replay", "--projection", "assembler", "--verify", "--diff"}, `--verify and --diff: pick one`},
		{[]string{"replay", "--projection", "assembler", "--verify", "--until", "5"}, `--until: --verify and --diff compare`},
		{[]string{"bench", "--runs", "0"}, `--runs 0: want at least 1`},
		{[]string{"history", "--tenant", "acme", "--run", "r1", "--budget-tokens", "-5"}, `--budget-tokens -5, --keep 2: want 0 or more`},
		{[]string{"history", "--tenant", "acme", "--run", "r1", "--keep", "-1"}, `--budget-tokens 0, --keep -1: want 0 or more`},
		{[]string{"memory", "recall", "--tenant", "acme", "--user", "ada", "--k", "-1", "food"}, `--k -1: want 0 or more`},
		{[]string{"memory", "recall", "--tenant", "acme", "--user", "ada", "--budget-tokens", "-1", "food"}, `budget_tokens -1: want 0 or more`},
		{[]string{"memory", "recall", "--tenant", "acme", "--user", "ada", "--time", "yesterday", "food"}, `yesterday`},
		// Said once a server answered ("memory belongs to a user: none
		// given"), and "load: open FILE: no such file or directory" for a missing --tools.
		{[]string{"memory", "recall", "--tenant", "acme", "food"}, `--user: give the end user whose memory it is`},
		{[]string{"tools", "export", "--tools", "/nonexistent/tool.yaml"}, `--tools /nonexistent/tool.yaml: no such file (README, "1. A tools file", shows one)`},
	} {
		c := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		c.SetArgs(append(tc.args, "--data", t.TempDir()))
		_, err := execute(t.Context(), c)
		if err == nil || exitCode(err) != exitBadInput || !strings.Contains(userMessage(err), tc.want) {
			t.Errorf("%v: %v (exit %d); want exit 4 with %q", tc.args, err, exitCode(err), tc.want)
		}
	}
	// --until is read against the log (a time is looked up in it): a value
	// that is neither a sequence nor a time is refused before that.
	if _, err := parseUntil(t.Context(), nil, "yesterday"); exitCode(err) != exitBadInput {
		t.Errorf("--until yesterday: %v (exit %d), want exit 4", err, exitCode(err))
	}
}

// TestAGatewayConfigThatCannotBeReadIsBadInput: serve --gateway with a
// config the gateway cannot read (YAML broken, a field of the wrong type)
// exits 4, as every other input of the user's does (it exited 1).
func TestAGatewayConfigThatCannotBeReadIsBadInput(t *testing.T) {
	for _, text := range []string{"upstreams: [\n", "upstreams: 7\n"} {
		path := filepath.Join(t.TempDir(), "gateway.yaml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := gateway.LoadFile(path)
		if err == nil || exitCode(err) != exitBadInput {
			t.Errorf("%q: %v (exit %d), want exit %d", text, err, exitCode(err), exitBadInput)
		}
	}
}
