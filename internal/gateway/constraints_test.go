package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/verifier"
)

// The keys of the constraint test: three users of acme, and a user of
// globex who has the same name as acme's alice.
const (
	ckAlice       = "sk-ck-acme-alice"
	ckBob         = "sk-ck-acme-bob"
	ckLi          = "sk-ck-acme-li"
	ckGlobexAlice = "sk-ck-globex-alice"
	globex        = "globex"
)

// The fake model's answer to each question the test asks (a Chat stream
// of that text, no call); a statement is answered "Noted.".
var ckAnswers = map[string]string{
	"Set up my call with Dana.":        "I'll book the 7pm call with Dana.",
	"Which dish should I try?":         "I'd suggest the shrimp.",
	"Anything before the meeting?":     "I suggest an espresso before the meeting.",
	"Find me a hotel in Lyon.":         "I'll book the Hotel Lumen for you at 190 € a night.",
	"我该点什么菜？":                          "推荐你试试清蒸虾。",
	"帮我订一家酒店。":                         "我帮你订每晚680元的酒店。",
	"What should I do this afternoon?": "Noted.",
}

type ckGateway struct {
	p   *agenttest.Pipeline
	srv *httptest.Server
	mem *client.Client
}

// chatStream writes a Chat completion stream of text (no call) as the
// fake upstream replays it.
func chatStream(t *testing.T, dir, text string, n int) string {
	t.Helper()
	var b bytes.Buffer
	chunk := func(delta map[string]any, finish any) {
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-ck%d", n), "object": "chat.completion.chunk", "created": 1764664568,
			"model": "fake-1", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		b.Write(append(line, '\n'))
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, w := range strings.SplitAfter(text, " ") {
		chunk(map[string]any{"content": w}, nil)
	}
	chunk(map[string]any{}, "stop")
	path := filepath.Join(dir, fmt.Sprintf("answer-%d.jsonl", n))
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func startCkGateway(t *testing.T) *ckGateway {
	t.Helper()
	ck := &ckGateway{p: agenttest.StartWith(t, agenttest.Options{Memory: true, Policy: verifier.PolicyBlock})}
	dir := t.TempDir()
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			return fakeup.Answer{}, fmt.Errorf("not a chat request: %v", err)
		}
		text, ok := ckAnswers[req.Messages[len(req.Messages)-1].Content]
		if !ok {
			text = "Noted."
		}
		return fakeup.Answer{File: chatStream(t, dir, text, n)}, nil
	})
	rs := &gateway.RunServer{Heartbeat: 50 * time.Millisecond}
	g, err := gateway.New(gateway.Config{JS: ck.p.B.JS, Keys: ck.p.B.Keys, Runner: rs, File: gateway.File{
		Upstreams: []gateway.Upstream{{Name: "openai", Kind: gateway.KindOpenAI, BaseURL: up.URL + "/v1", APIKey: "up-openai"}},
		Keys: []gateway.Key{{SHA256: gateway.HashKey(ckAlice), Tenant: agenttest.Tenant, User: "alice"},
			{SHA256: gateway.HashKey(ckBob), Tenant: agenttest.Tenant, User: "bob"},
			{SHA256: gateway.HashKey(ckLi), Tenant: agenttest.Tenant, User: "li"},
			{SHA256: gateway.HashKey(ckGlobexAlice), Tenant: globex, User: "alice"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rs.Driver = ck.p.Driver(t, "gw-ck-test", gateway.Model(g), func(c *agent.Config) { c.Memory.RecallBudgetTokens = 300 })
	ck.srv = httptest.NewServer(g)
	t.Cleanup(func() {
		ck.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rs.Wait(ctx)
		g.Wait(ctx)
	})
	if ck.mem, err = client.Connect(context.Background(), client.WithConn(ck.p.B.Conn), client.WithKeys(ck.p.B.Keys)); err != nil {
		t.Fatal(err)
	}
	return ck
}

// ask sends a whole run-mode Chat request and returns its answer.
func (ck *ckGateway) ask(t *testing.T, key, run, question string) (string, gateway.RunMeta) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ck.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody(question)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set(gateway.HeaderMode, "run")
	req.Header.Set(gateway.HeaderRun, run)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Toolstream gateway.RunMeta `json:"toolstream"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %q: %d %v", run, question, resp.StatusCode, err)
	}
	text := ""
	if len(ans.Choices) > 0 {
		text = ans.Choices[0].Message.Content
	}
	return text, ans.Toolstream
}

// constraint returns the id and version of the user's record of kind
// constraint whose text contains part.
func (ck *ckGateway) constraint(t *testing.T, tenant, user, part string) events.ConstraintRef {
	t.Helper()
	recs, err := ck.mem.Records(context.Background(), tenant, user, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind == "constraint" && strings.Contains(r.Text, part) {
			return events.ConstraintRef{Record: r.ID, Version: r.Version}
		}
	}
	t.Fatalf("%s/%s has no constraint saying %q: %+v", tenant, user, part, recs)
	return events.ConstraintRef{}
}

// violated returns the claims of the answer that violate a constraint.
func violated(m gateway.RunMeta) []gateway.Claim {
	var out []gateway.Claim
	if m.Verdict == nil {
		return nil
	}
	for _, c := range m.Verdict.Claims {
		if c.Verdict == events.VerdictViolatesConstraint {
			out = append(out, c)
		}
	}
	return out
}

// wantViolation checks an answer blocked for going against ref.
func wantViolation(t *testing.T, what, text string, m gateway.RunMeta, ref events.ConstraintRef) {
	t.Helper()
	vs := violated(m)
	if len(vs) != 1 || vs[0].Constraint == nil || *vs[0].Constraint != ref {
		t.Errorf("%s: the violating claims %+v, want one naming %+v (verdict %+v)", what, vs, ref, m.Verdict)
	}
	if !m.Blocked || text != "" {
		t.Errorf("%s: blocked %v, text %q: the block policy withholds an answer that violates a constraint", what, m.Blocked, text)
	}
}

// wantNoViolation checks an answer let through: no claim violates a
// constraint, and the answer (whose claims the checker cannot check: an
// offer, a suggestion) is not withheld.
func wantNoViolation(t *testing.T, what, text string, m gateway.RunMeta) {
	t.Helper()
	if vs := violated(m); len(vs) != 0 || m.Blocked || text == "" {
		t.Errorf("%s: violating claims %+v, blocked %v, text %q; want the answer let through", what, vs, m.Blocked, text)
	}
}

// A run's answer is checked against its user's constraints in force at
// the answer's time, through the real gateway, memory and verifier (the
// tenant's policy: block): an answer that goes against one is withheld,
// its claim violates_constraint naming the record and version; the same
// answer to a user without the constraint, or after the user lifted it, or
// once it expired, goes through; in Chinese too; and another tenant's user
// of the same name, who has a constraint, changes nothing for acme's.
func TestRunModeAnswerAgainstConstraints(t *testing.T) {
	ck := startCkGateway(t)
	ctx := context.Background()

	// English: a request's time, an allergy, a cap.
	ck.ask(t, ckAlice, "ck-say-1", "Don't call me after 6pm.")
	ck.ask(t, ckAlice, "ck-say-2", "I'm allergic to shellfish.")
	ck.ask(t, ckAlice, "ck-say-3", "My hotel budget is capped at 150 euros a night.")
	calls := ck.constraint(t, agenttest.Tenant, "alice", "6pm")
	shellfish := ck.constraint(t, agenttest.Tenant, "alice", "shellfish")
	hotel := ck.constraint(t, agenttest.Tenant, "alice", "150 euros")

	text, m := ck.ask(t, ckAlice, "ck-1", "Set up my call with Dana.")
	wantViolation(t, "the 7pm call", text, m, calls)
	if m.Verdict.Constraints < 3 {
		t.Errorf("the verdict says %d constraints were checked, want alice's 3", m.Verdict.Constraints)
	}
	text, m = ck.ask(t, ckAlice, "ck-2", "Which dish should I try?")
	wantViolation(t, "the shrimp", text, m, shellfish)
	text, m = ck.ask(t, ckAlice, "ck-3", "Find me a hotel in Lyon.")
	wantViolation(t, "the 190 € hotel", text, m, hotel)

	// Bob has none of them: the same answers go through.
	text, m = ck.ask(t, ckBob, "ck-bob-1", "Set up my call with Dana.")
	wantNoViolation(t, "bob's 7pm call", text, m)
	text, m = ck.ask(t, ckBob, "ck-bob-2", "Which dish should I try?")
	wantNoViolation(t, "bob's shrimp", text, m)

	// A lifted constraint is not in force.
	ck.ask(t, ckAlice, "ck-say-4", "Feel free to call me after 6pm again.")
	text, m = ck.ask(t, ckAlice, "ck-4", "Set up my call with Dana.")
	wantNoViolation(t, "the 7pm call once alice lifted her rule", text, m)

	// An expired one neither: said (through the memory service) in June
	// 2025 for the rest of that month.
	if _, err := ck.mem.Message(ctx, agenttest.Tenant, "bob", "ck-june", "I'm avoiding caffeine until the end of the month.",
		time.Date(2025, 6, 20, 8, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	ck.constraint(t, agenttest.Tenant, "bob", "caffeine") // kept, though no longer in force
	text, m = ck.ask(t, ckBob, "ck-bob-3", "Anything before the meeting?")
	wantNoViolation(t, "bob's espresso after his caffeine pause ended", text, m)
	// While it holds, the same answer goes against it (said again, the
	// slot's record is reinforced, with no end this time).
	ck.ask(t, ckBob, "ck-say-5", "I'm avoiding caffeine these days.")
	caffeine := ck.constraint(t, agenttest.Tenant, "bob", "caffeine")
	text, m = ck.ask(t, ckBob, "ck-bob-4", "Anything before the meeting?")
	wantViolation(t, "bob's espresso while he avoids caffeine", text, m, caffeine)

	// Chinese.
	ck.ask(t, ckLi, "ck-say-6", "我对海鲜过敏。")
	ck.ask(t, ckLi, "ck-say-7", "我的酒店预算每晚不超过500元。")
	seafood := ck.constraint(t, agenttest.Tenant, "li", "海鲜")
	zhHotel := ck.constraint(t, agenttest.Tenant, "li", "500元")
	text, m = ck.ask(t, ckLi, "ck-li-1", "我该点什么菜？")
	wantViolation(t, "清蒸虾", text, m, seafood)
	_, m = ck.ask(t, ckLi, "ck-li-2", "帮我订一家酒店。")
	if vs := violated(m); len(vs) != 1 || *vs[0].Constraint != zhHotel {
		t.Errorf("每晚680元的酒店: violating claims %+v, want one naming %+v", vs, zhHotel)
	}

	// Another tenant: globex's alice is allergic to shellfish, acme's alice
	// (after an answer of her own) is not asked about it.
	ck.ask(t, ckGlobexAlice, "ck-globex-say", "I'm allergic to shellfish.")
	ck.ask(t, ckGlobexAlice, "ck-globex-say-2", "I never drink coffee.")
	gShellfish := ck.constraint(t, globex, "alice", "shellfish")
	text, m = ck.ask(t, ckGlobexAlice, "ck-globex-1", "Which dish should I try?")
	wantViolation(t, "globex alice's shrimp", text, m, gShellfish)
	text, m = ck.ask(t, ckAlice, "ck-5", "Anything before the meeting?")
	wantNoViolation(t, "acme alice's espresso (globex's alice never drinks coffee)", text, m)
}

// An attacker, globex's producer, tries to have acme's answer checked
// against constraints of its choosing: it publishes a ConstraintsChecked
// naming a violation on the subject of acme's answer, with the stock nats
// CLI and with a forging nats.go client. Both are refused (permissions
// violation), nothing is stored on the subject, and acme's verdict is the
// one the verifier gave.
func TestAttackForeignConstraintCheck(t *testing.T) {
	ck := startCkGateway(t)
	ck.ask(t, ckGlobexAlice, "atk-say", "I'm allergic to shellfish.")
	text, m := ck.ask(t, ckAlice, "atk-1", "Which dish should I try?")
	wantNoViolation(t, "acme alice's shrimp before the attack", text, m)
	subj, err := events.AnswerSubject(agenttest.Tenant, m.Response)
	if err != nil {
		t.Fatal(err)
	}
	stored := func() int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, err := ck.p.B.JS.Stream(ctx, events.StreamOut)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(subj))
		if err != nil {
			t.Fatal(err)
		}
		return int(info.State.Subjects[subj])
	}
	before := stored()
	forged := &events.Event{ID: events.ConstraintsCheckedID(agenttest.Tenant, m.Response) + "x", Tenant: agenttest.Tenant, User: "alice",
		Response: m.Response, At: time.Now().UnixNano(), Body: &events.ConstraintsChecked{InForce: 1, Violations: []events.ConstraintViolation{
			{Start: 0, End: 10, Constraint: events.ConstraintRef{Record: "run:atk-say:x:0", Version: 1}}}}}
	data, err := events.EncodeWithheld(forged, "")
	if err != nil {
		t.Fatal(err)
	}
	prod := auth.Identity{Role: auth.RoleProducer, Tenant: globex}
	creds := bustest.Creds(t, ck.p.B, prod)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, jstest.NatsCLI(t), "--server", ck.p.B.ClientURL(), "--creds", creds, "--inbox-prefix", prod.InboxPrefix(),
		"--timeout", "5s", "pub", "--jetstream", "--force-stdin", "--header", "Nats-Msg-Id:"+forged.ID, subj)
	cmd.Stdin = bytes.NewReader(data)
	if res, err := cmd.CombinedOutput(); err == nil || !strings.Contains(strings.ToLower(string(res)), "permissions violation") {
		t.Errorf("the stock CLI's forged check: %v: %s; want a permissions violation", err, res)
	}
	// nats.go with the same creds, on acme's subject and on its own.
	nc, err := nats.Connect(ck.p.B.ClientURL(), nats.UserCredentials(creds), nats.CustomInboxPrefix(prod.InboxPrefix()))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	refused := make(chan error, 4)
	nc.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused <- err })
	own, _ := events.AnswerSubject(globex, m.Response)
	for _, s := range []string{subj, own} {
		if err := nc.Publish(s, data); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-refused:
			if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
				t.Errorf("the forging client on %s: %v", s, err)
			}
		case <-ctx.Done():
			t.Fatalf("the forging client's publish on %s was not refused", s)
		}
	}
	if n := stored(); n != before {
		t.Errorf("%d messages on %s after the attack, want %d", n, subj, before)
	}
	v, err := ck.mem.LastVerdict(ctx, agenttest.Tenant, m.Response)
	if err != nil || v.Verified == nil || v.Verified.Blocked || len(violated(gateway.RunMeta{Verdict: &gateway.Verdict{Claims: claimsOf(v.Verified)}})) != 0 {
		t.Errorf("acme's verdict after the attack: %+v, %v", v.Verified, err)
	}
}

func claimsOf(av *events.AnswerVerified) []gateway.Claim {
	var out []gateway.Claim
	for _, c := range av.Claims {
		out = append(out, gateway.Claim{Verdict: c.Verdict, Constraint: c.Constraint})
	}
	return out
}
