package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// The README's walkthrough is executed as written: each of its sections
// (## Two commands, and each ### of ## Walkthrough) has a script in
// testdata/readme named after its heading, which runs the section's
// commands against this binary, a real serve started in the background
// on a free port, and matches what they print against the output blocks
// the section shows. TestREADMEMatchesScripts fails when a command, a file
// or an output block the README shows is not in (or not checked by) its
// section's script; TestREADMEWalkthrough runs the scripts; TestDocLinks
// and TestEveryCommandIsDocumented keep the README's and docs/' links and
// command lists true.

// TestMain makes the test binary double as the toolstream command inside
// the scripts (testscript.Main): `exec toolstream serve …` runs main. After
// the tests it removes the binary the process tests built
// (newcomer_test.go).
func TestMain(m *testing.M) {
	testscript.Main(afterTests{m}, map[string]func(){"toolstream": main})
}

// afterTests runs the tests, then removes what they left.
type afterTests struct{ m *testing.M }

func (a afterTests) Run() int {
	defer removeBinary()
	return a.m.Run()
}

// readmeAddrs are what the scripts write instead of the README's fixed
// addresses: a free port each, so the walkthrough runs beside a real
// serve and beside other tests. The README's serve takes the default
// --listen; the scripts' serve listens on any free port (--listen
// 127.0.0.1:-1), and the other commands find it through --data
// (serve.json), as the README's do.
var readmeAddrs = map[string]string{
	"$CONSOLE": "127.0.0.1:8080",
	"$GATEWAY": "127.0.0.1:8081",
	"$MCP":     "127.0.0.1:8082",
}

// readmeExempt are the README's commands that the scripts cannot run:
// the Go toolchain's own (the scripts are run by it, over the binary it
// built).
var readmeExempt = map[string]bool{
	"go test ./...":               true,
	"go install ./cmd/toolstream": true,
}

func TestREADMEWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("the README's walkthrough starts a serve per section")
	}
	t.Parallel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/readme",
		RequireExplicitExec: true,
		Deadline:            time.Now().Add(5 * time.Minute),
		Setup: func(env *testscript.Env) error {
			env.Setenv("README", filepath.Join(repo, "README.md"))
			for _, v := range []string{"CONSOLE", "GATEWAY", "MCP"} {
				addr, err := readmeFreeAddr()
				if err != nil {
					return err
				}
				env.Setenv(v, addr)
			}
			// The recordings the walkthrough publishes, where they are in
			// a checkout: the scripts run in $WORK as the README does in
			// the repository's root.
			rec := filepath.Join(env.WorkDir, "testdata", "streams")
			if err := os.MkdirAll(rec, 0o755); err != nil {
				return err
			}
			data, err := os.ReadFile(filepath.Join(repo, "testdata", "streams", "anthropic-weather.jsonl"))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(rec, "anthropic-weather.jsonl"), data, 0o644); err != nil {
				return err
			}
			// The official SDKs, where .ci/run installed them (npm ci
			// --prefix testdata/js), for the gateway's section.
			if nm := filepath.Join(repo, "testdata", "js", "node_modules"); sdkInstalled(repo) {
				return os.Symlink(nm, filepath.Join(env.WorkDir, "node_modules"))
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "defaultfree":
				// The first step of "When something is wrong" runs a
				// command with no serve at the default --listen: it needs
				// nothing there. Another program on 127.0.0.1:4222 (a
				// serve of one's own, another checkout's tests) answers
				// it instead, which says nothing of the README.
				c, err := net.DialTimeout("tcp", "127.0.0.1:4222", time.Second)
				if err != nil {
					return true, nil
				}
				c.Close()
				return false, nil
			case "sdk":
			case "mcpsdk": // the MCP section: the official MCP TypeScript SDK too
				if !sdkInstalled(repo) {
					break
				}
				if _, err := os.Stat(filepath.Join(repo, "testdata", "js", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
					return true, nil
				}
				if os.Getenv("TOOLSTREAM_REQUIRE_NODE") == "1" {
					return false, fmt.Errorf("@modelcontextprotocol/sdk (npm ci --prefix testdata/js) is missing, and TOOLSTREAM_REQUIRE_NODE=1")
				}
				return false, nil
			default:
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if sdkInstalled(repo) {
				return true, nil
			}
			if os.Getenv("TOOLSTREAM_REQUIRE_NODE") == "1" {
				return false, fmt.Errorf("node or the openai package (npm ci --prefix testdata/js) is missing, and TOOLSTREAM_REQUIRE_NODE=1")
			}
			return false, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"serving":  cmdServing,
			"upstream": cmdUpstream,
			"replace":  cmdReplace,
			"browse":   cmdBrowse,
			"waitfor":  cmdWaitfor,
			"output":   cmdOutput,
			"exits":    cmdExits,
		},
	})
}

// sdkInstalled reports whether node and the official openai package are
// here.
func sdkInstalled(repo string) bool {
	if _, err := exec.LookPath("node"); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(repo, "testdata", "js", "node_modules", "openai", "package.json"))
	return err == nil
}

func readmeFreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// cmdServing waits (up to a minute) until the serve started in the
// background on ./toolstream-data answers: it has recorded its address in
// toolstream-data/serve.json, and `toolstream runs` gets an answer from
// the runs service, which serve starts after the projections, the
// executor and the other services (only the gateway comes later). Each
// HTTP_ADDR given, the console's or the gateway's, must then take
// connections too.
//
//	serving [HTTP_ADDR...]
func cmdServing(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: serving [HTTP_ADDR...]")
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, recorded := readServerRecord(ts.MkAbs("toolstream-data"))
		if recorded {
			err := ts.Exec("toolstream", "runs", "--tenant", "readme-probe")
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("serve did not answer within a minute: %v", err)
			}
		} else if time.Now().After(deadline) {
			ts.Fatalf("serve did not record its address in toolstream-data within a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, addr := range args {
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("nothing listens on %s after a minute: %v", addr, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// cmdWaitfor runs a command again until its standard output matches
// REGEX (up to a minute): what a user does who runs `toolstream calls`
// again until the executor has got round to a call. The last run's output
// is the script's stdout and stderr.
//
//	waitfor REGEX toolstream ARGS...
func cmdWaitfor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: waitfor REGEX COMMAND [ARGS...]")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	deadline := time.Now().Add(time.Minute)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if err == nil && re.MatchString(ts.ReadFile("stdout")) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("after a minute, %s still does not print %q (last error: %v)", strings.Join(args[1:], " "), args[0], err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// cmdExits runs a command that must fail with exit code N, the code the
// README promises for that kind of mistake.
//
//	exits N COMMAND [ARGS...]
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N COMMAND [ARGS...]")
	}
	err := ts.Exec(args[1], args[2:]...)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		ts.Fatalf("%s: %v, want exit code %s", strings.Join(args[1:], " "), err, args[0])
	}
	if got := fmt.Sprint(exit.ExitCode()); got != args[0] {
		ts.Fatalf("%s: exit code %s, want %s", strings.Join(args[1:], " "), got, args[0])
	}
}

// cmdOutput checks the last command's standard output (or, given stderr,
// its standard error) against the N-th
// output block (```text) of this script's README section: each line of
// the block must match a line of the output, in any order (calls prints
// the log's streams one after another, and which of two streams' events
// comes first is a race), blanks matching any run of blanks and … any
// text (a time, a sequence, an executor's id), the README's addresses
// standing for the script's (readmeAddrs). A line that is only …
// stands for lines the README leaves out.
//
//	output N [stderr]
func cmdOutput(ts *testscript.TestScript, neg bool, args []string) {
	stream := "stdout"
	if len(args) == 2 && args[1] == "stderr" {
		stream, args = "stderr", args[:1]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: output N [stderr]")
	}
	data, err := os.ReadFile(ts.Getenv("README"))
	ts.Check(err)
	var sec *readmeSection
	for _, s := range readmeSections(string(data)) {
		if s.slug == strings.TrimSuffix(ts.Name(), ".txtar") {
			sec = s
		}
	}
	var n int
	if _, err := fmt.Sscan(args[0], &n); err != nil || sec == nil || n < 1 || n > len(sec.outputs) {
		ts.Fatalf("the README has no output block %s in the section of %s", args[0], ts.Name())
	}
	got := strings.Split(ts.ReadFile(stream), "\n")
	for _, want := range sec.outputs[n-1] {
		if strings.TrimSpace(want) == "…" || strings.TrimSpace(want) == "" {
			continue
		}
		for v, addr := range readmeAddrs {
			want = strings.ReplaceAll(want, addr, ts.Getenv(strings.TrimPrefix(v, "$")))
		}
		re := outputLine(want)
		if !slices.ContainsFunc(got, re.MatchString) {
			ts.Fatalf("the README's output block %d of %q shows\n\t%s\nand no line of the output matches it", n, sec.heading, want)
		}
	}
}

// outputLine is a README output line as a regular expression for a
// whole line: blanks match any run of blanks, … any text.
func outputLine(l string) *regexp.Regexp {
	parts := strings.Split(strings.TrimSpace(l), "…")
	for i, p := range parts {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		parts[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`^\s*` + strings.Join(parts, `.*`) + `\s*$`)
}

// cmdUpstream serves recorded provider streams of JSON lines, as an
// OpenAI-compatible upstream would stream them (each line an SSE data
// frame, then [DONE]) to a POST on /v1/chat/completions carrying the
// key in $OPENAI_API_KEY: the first request gets the first FILE, the
// second the second, and so on, the last FILE every request after. It
// sets $UPSTREAM to its URL and stops with the script.
//
//	upstream FILE...
func cmdUpstream(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: upstream FILE...")
	}
	var recs []string
	for _, a := range args {
		recs = append(recs, ts.ReadFile(a))
	}
	var mu sync.Mutex
	served := 0
	key := ts.Getenv("OPENAI_API_KEY")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"not the request the walkthrough sends"}}`, http.StatusUnauthorized)
			return
		}
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		rec := recs[min(served, len(recs)-1)]
		served++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		sc := bufio.NewScanner(strings.NewReader(rec))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				fmt.Fprintf(w, "data: %s\n\n", l)
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	ts.Defer(up.Close)
	ts.Setenv("UPSTREAM", up.URL)
}

// cmdReplace replaces OLD with NEW in FILE: the script's one change to a
// file the README shows (an address the README cannot know).
//
//	replace FILE OLD NEW
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	data := ts.ReadFile(args[0])
	if !strings.Contains(data, args[1]) {
		ts.Fatalf("%s does not hold %q", args[0], args[1])
	}
	err := os.WriteFile(ts.MkAbs(args[0]), []byte(strings.ReplaceAll(data, args[1], args[2])), 0o644)
	ts.Check(err)
}

// cmdBrowse does what a browser does with the sign-in URL that
// toolstream console-token printed (in FILE: cp stdout FILE): opens it,
// posts its form with the token from after # (as its page's script and a
// press of Sign in do), keeps the session cookie, then GETs each PATH of the console and prints
// the bodies; PATH=REGEX GETs it again (up to a minute) until its body
// matches, as a live page fills. It fails when a page does not answer
// 200, and when PATH answers anything but 401 without the session.
// ! browse: the sign-in must be refused (a token used before).
//
//	[!] browse FILE [PATH[=REGEX]...]
func cmdBrowse(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: browse FILE [PATH...]")
	}
	signin := ""
	for _, l := range strings.Fields(ts.ReadFile(args[0])) {
		if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
			signin = l
		}
	}
	if signin == "" {
		ts.Fatalf("%s holds no URL", args[0])
	}
	args = args[1:]
	base := signin[:strings.Index(signin, "/signin")]
	page, token, ok := strings.Cut(signin, "#token=")
	if !ok {
		ts.Fatalf("the sign-in URL %s carries no token after #", signin)
	}
	token, err := url.QueryUnescape(token)
	ts.Check(err)
	jar, err := cookiejar.New(nil)
	ts.Check(err)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	// Opening the URL shows the form (its script fills in the token from
	// after #, which the browser does not send); pressing Sign in posts it.
	resp, err := browser.Get(page)
	ts.Check(err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(jar.Cookies(resp.Request.URL)) != 0 {
		ts.Fatalf("opening the sign-in URL: %s, %d cookies; want the form and none", resp.Status, len(jar.Cookies(resp.Request.URL)))
	}
	req, err := http.NewRequest(http.MethodPost, base+"/signin", strings.NewReader(url.Values{"token": {token}}.Encode()))
	ts.Check(err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err = browser.Do(req)
	ts.Check(err)
	resp.Body.Close()
	if neg {
		if resp.StatusCode != http.StatusUnauthorized || len(jar.Cookies(resp.Request.URL)) != 0 {
			ts.Fatalf("sign-in with a used token: %s, %d cookies; want 401 and none", resp.Status, len(jar.Cookies(resp.Request.URL)))
		}
		return
	}
	if resp.StatusCode != http.StatusOK || len(jar.Cookies(resp.Request.URL)) == 0 {
		ts.Fatalf("sign-in: %s, %d cookies", resp.Status, len(jar.Cookies(resp.Request.URL)))
	}
	var out bytes.Buffer
	for _, a := range args {
		p, want, _ := strings.Cut(a, "=")
		re, err := regexp.Compile(want)
		ts.Check(err)
		resp, err := http.Get(base + p)
		ts.Check(err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			ts.Fatalf("%s without a session: %s, want 401", p, resp.Status)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			resp, err = browser.Get(base + p)
			ts.Check(err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			ts.Check(err)
			if resp.StatusCode != http.StatusOK {
				ts.Fatalf("%s: %s %s", p, resp.Status, body)
			}
			if re.Match(body) {
				fmt.Fprintf(&out, "%s\n%s\n", p, body)
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("after a minute %s still does not show %q: %s", p, want, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	ts.Stdout().Write(out.Bytes())
}

// TestREADMEMatchesScripts fails when the README and its scripts drift
// apart: every command of a section's ```sh blocks must be a command of
// the section's script (testdata/readme/<heading>.txtar, compared word by
// word after quoting), every file the README shows (```yaml tools.yaml:
// a name after the language) must be in that section's script, and be
// byte for byte the file of that name in every script that holds one, and
// every script must belong to a section. The scripts may do more (start
// what the section assumes, check what it promises). Every output block (```text) must be checked by the script (output N, which
// matches it against what the binary printed). The scripts' serve listens
// on any free port (--listen 127.0.0.1:-1) where the README's takes the
// default, and they write $CONSOLE and $GATEWAY for the README's
// addresses (readmeAddrs).
func TestREADMEMatchesScripts(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := readmeSections(string(readme))
	scripts, err := filepath.Glob("testdata/readme/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range sections {
		name := "testdata/readme/" + s.slug + ".txtar"
		seen[name] = true
		if len(s.commands) == 0 && len(s.files) == 0 && len(s.outputs) == 0 {
			continue
		}
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Errorf("README section %q has commands, and no script: %v", s.heading, err)
			continue
		}
		for _, e := range s.errs {
			t.Error(e)
		}
		for n := range s.outputs {
			if !regexp.MustCompile(fmt.Sprintf(`(?m)^output %d( stderr)?$`, n+1)).Match(ar.Comment) {
				t.Errorf("README section %q shows output block %d, which %s never checks (output %d)", s.heading, n+1, name, n+1)
			}
		}
		have := scriptCommands(t, name, string(ar.Comment))
		for _, c := range s.commands {
			if !slices.ContainsFunc(have, func(h []string) bool { return slices.Equal(h, c.words) }) {
				t.Errorf("README section %q, line %d: %s\nis not a command of %s", s.heading, c.line, c.text, name)
			}
		}
		for fname := range s.files {
			if !slices.ContainsFunc(ar.Files, func(f txtar.File) bool { return f.Name == fname }) {
				t.Errorf("README section %q shows the file %s, which %s does not hold", s.heading, fname, name)
			}
		}
	}
	// A file the README shows is the same in every script that holds it.
	files := map[string]string{}
	for _, s := range sections {
		for fname, content := range s.files {
			files[fname] = content
		}
	}
	for _, name := range scripts {
		if !seen[name] {
			t.Errorf("%s belongs to no section of the README", name)
		}
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if want, ok := files[f.Name]; ok && string(f.Data) != want {
				t.Errorf("%s: the file %s differs from the README's:\nREADME:\n%s\nscript:\n%s", name, f.Name, want, f.Data)
			}
		}
	}
	if len(sections) < 10 {
		t.Errorf("found %d walkthrough sections in the README, want the two commands and the walkthrough's", len(sections))
	}
}

type readmeCommand struct {
	line  int
	text  string
	words []string
}

type readmeSection struct {
	heading, slug string
	commands      []readmeCommand
	files         map[string]string // name → content
	outputs       [][]string        // the lines of each ```text block
	errs          []string          // commands that do not parse
}

var headingNumber = regexp.MustCompile(`^[0-9]+\.\s*`)

// readmeSections reads the README's ## Two commands and the ### sections of
// ## Walkthrough, each with the commands of its ```sh blocks and the files
// of its named blocks.
func readmeSections(readme string) []*readmeSection {
	var (
		out     []*readmeSection
		cur     *readmeSection
		in      bool   // in ## Walkthrough
		fence   string // the open block's info string, "" outside one
		block   []string
		blockAt int
	)
	lines := strings.Split(readme, "\n")
	for i, l := range lines {
		if fence != "" {
			if strings.HasPrefix(l, "```") {
				if cur != nil {
					readmeBlock(cur, fence, blockAt, block)
				}
				fence, block = "", nil
				continue
			}
			block = append(block, l)
			continue
		}
		switch {
		case strings.HasPrefix(l, "```"):
			fence, blockAt = strings.TrimPrefix(l, "```")+" ", i+2
		case strings.HasPrefix(l, "## "):
			h := strings.TrimPrefix(l, "## ")
			in, cur = h == "Walkthrough", nil
			if h == "Two commands" {
				cur = newSection(h)
				out = append(out, cur)
			}
		case strings.HasPrefix(l, "### "):
			cur = nil
			if in {
				cur = newSection(strings.TrimPrefix(l, "### "))
				out = append(out, cur)
			}
		}
	}
	return out
}

func newSection(heading string) *readmeSection {
	slug := strings.ToLower(headingNumber.ReplaceAllString(heading, ""))
	slug = strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(slug, "-"), "-")
	return &readmeSection{heading: heading, slug: slug, files: map[string]string{}}
}

// readmeBlock adds a fenced block's commands (```sh) or file (```LANG NAME)
// to s.
func readmeBlock(s *readmeSection, info string, at int, block []string) {
	f := strings.Fields(info)
	switch {
	case len(f) >= 2:
		s.files[f[1]] = strings.Join(block, "\n") + "\n"
	case len(f) == 1 && f[0] == "text":
		s.outputs = append(s.outputs, block)
	case len(f) == 1 && f[0] == "sh":
		for i := 0; i < len(block); i++ {
			line, text := at+i, block[i]
			for strings.HasSuffix(text, "\\") && i+1 < len(block) {
				i++
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(block[i])
			}
			words, err := shellWords(text)
			if err != nil {
				s.errs = append(s.errs, fmt.Sprintf("README line %d: %v", line, err))
				continue
			}
			if len(words) == 0 {
				continue
			}
			text = strings.Join(words, " ")
			if readmeExempt[text] {
				continue
			}
			if len(words) > 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/toolstream" {
				words = append([]string{"toolstream"}, words[3:]...)
			}
			if words[0] == "export" {
				words[0] = "env"
			}
			s.commands = append(s.commands, readmeCommand{line: line, text: strings.TrimSpace(block[i]), words: words})
		}
	}
}

// shellWords splits a line as sh does, without expansion: words split at
// blanks, '…' and "…" quoting (\" \\ \$ \` escaped within "…"), a
// backslash escaping the next character, and a # starting a word begins a
// comment.
func shellWords(s string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		inW   bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inW {
				words, inW = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inW:
			return words, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %s", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i, inW = i+1+j, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %s", s)
			}
			inW = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inW = true
		default:
			w.WriteByte(c)
			inW = true
		}
	}
	if inW {
		words = append(words, w.String())
	}
	return words, nil
}

// scriptCommands reads a script's commands as the README would write
// them: conditions, !, exec, waitfor REGEX, exits N, a trailing & and
// --listen 127.0.0.1:-1 dropped, the addresses of readmeAddrs put back.
func scriptCommands(t *testing.T, name, script string) [][]string {
	var out [][]string
	for n, l := range strings.Split(script, "\n") {
		words, err := scriptWords(l)
		if err != nil {
			t.Errorf("%s:%d: %v", name, n+1, err)
			continue
		}
		for len(words) > 0 && (strings.HasPrefix(words[0], "[") || words[0] == "!" || words[0] == "exec") {
			words = words[1:]
		}
		if len(words) > 2 && (words[0] == "waitfor" || words[0] == "exits") {
			words = words[2:]
		}
		if len(words) == 0 {
			continue
		}
		if last := words[len(words)-1]; last == "&" || (len(last) > 2 && strings.HasPrefix(last, "&") && strings.HasSuffix(last, "&")) {
			words = words[:len(words)-1]
		}
		var c []string
		for i := 0; i < len(words); i++ {
			if words[i] == "--listen" && i+1 < len(words) && words[i+1] == "127.0.0.1:-1" {
				i++
				continue
			}
			w := words[i]
			for v, addr := range readmeAddrs {
				w = strings.ReplaceAll(w, v, addr)
			}
			c = append(c, w)
		}
		out = append(out, c)
	}
	return out
}

// scriptWords splits a script line as testscript does, without
// expansion: words split at blanks, '…' quoting with ” for a quote, a #
// starting a word begins a comment.
func scriptWords(s string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		inW   bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inW {
				words, inW = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inW:
			return words, nil
		case c == '\'':
			i++
			for ; ; i++ {
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated ' in %s", s)
				}
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						w.WriteByte('\'')
						i++
						continue
					}
					break
				}
				w.WriteByte(s[i])
			}
			inW = true
		default:
			w.WriteByte(c)
			inW = true
		}
	}
	if inW {
		words = append(words, w.String())
	}
	return words, nil
}

// linksPending are documents the README and docs/ link to that another
// piece of work is writing: a link to one is not an error while it does
// not exist, and is checked as any other once it does (remove the entry
// then).
var linksPending = map[string]string{}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// TestDocLinks fails when a relative link of README.md or docs/*.md names
// a file that is not there, or a #section that file does not have (GitHub's
// anchors: the heading lowercased, punctuation dropped, blanks as -).
func TestDocLinks(t *testing.T) {
	root := "../.."
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for p, why := range linksPending {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Logf("%s is not written yet (%s): links to it are not checked", p, why)
		}
	}
	anchors := func(file string) (map[string]bool, error) {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for _, m := range mdHeading.FindAllStringSubmatch(string(data), -1) {
			out[githubAnchor(m[1])] = true
		}
		return out, nil
	}
	for _, file := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(link, "#")
			target := file
			if path != "" {
				target = filepath.Join(filepath.Dir(file), path)
			}
			trel, _ := filepath.Rel(root, target)
			if _, ok := linksPending[filepath.ToSlash(trel)]; ok {
				if _, err := os.Stat(target); err != nil {
					continue
				}
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s: %v", rel, link, err)
				continue
			}
			if anchor == "" {
				continue
			}
			have, err := anchors(target)
			if err != nil {
				t.Errorf("%s links to %s: %v", rel, link, err)
				continue
			}
			if !have[anchor] {
				t.Errorf("%s links to %s: %s has no section #%s", rel, link, trel, anchor)
			}
		}
	}
}

// githubAnchor is the anchor GitHub gives a heading.
func githubAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestEveryCommandIsDocumented fails when a command of the binary is
// missing from the README's list of commands or from the commands table of
// docs/operations.md, each of which says it names them all.
func TestEveryCommandIsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(readme), "\n## Commands\n")
	list, _, _ = strings.Cut(list, "\n## ")
	for _, c := range newRoot(io.Discard, io.Discard).Commands() {
		name := c.Name()
		if c.Hidden || name == "help" || name == "completion" {
			continue
		}
		if !strings.Contains(list, "`"+name+"`") && !strings.Contains(list, "`"+name+" ") {
			t.Errorf("README, Commands, does not name toolstream %s", name)
		}
		if !strings.Contains(string(ops), "`toolstream "+name+" ") && !strings.Contains(string(ops), "`toolstream "+name+"`") && !strings.Contains(string(ops), "/ `"+name+" ") {
			t.Errorf("docs/operations.md's commands table has no row for toolstream %s", name)
		}
	}
}
