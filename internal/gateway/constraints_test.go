package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/toolstream/toolstream/projector"
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

// An attacker holding a producer's credential, globex's or acme's own,
// tries to have acme's answer checked against constraints of its
// choosing: it publishes a ConstraintsChecked naming a violation on the
// check subject of acme's answer (and on the answer's subject, where
// older logs hold checks), with the stock nats CLI and with a forging
// nats.go client, and globex's also on its own tenant's check subject.
// Every publish is refused (permissions violation), nothing is stored on
// either subject, and acme's verdict is the one the verifier gave.
func TestAttackForeignConstraintCheck(t *testing.T) {
	ck := startCkGateway(t)
	ck.ask(t, ckGlobexAlice, "atk-say", "I'm allergic to shellfish.")
	text, m := ck.ask(t, ckAlice, "atk-1", "Which dish should I try?")
	wantNoViolation(t, "acme alice's shrimp before the attack", text, m)
	check, err := events.ConstraintCheckSubject(agenttest.Tenant, m.Response)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := events.AnswerSubject(agenttest.Tenant, m.Response)
	own, _ := events.ConstraintCheckSubject(globex, m.Response)
	before := map[string]int{check: ck.stored(t, check), answer: ck.stored(t, answer)}
	forged := &events.Event{ID: events.ConstraintsCheckedID(agenttest.Tenant, m.Response) + "x", Tenant: agenttest.Tenant, User: "alice",
		Response: m.Response, At: time.Now().UnixNano(), Body: &events.ConstraintsChecked{InForce: 1, Violations: []events.ConstraintViolation{
			{Start: 0, End: 10, Constraint: events.ConstraintRef{Record: "run:atk-say:x:0", Version: 1}}}}}
	data, err := events.EncodeWithheld(forged, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, prod := range []auth.Identity{{Role: auth.RoleProducer, Tenant: globex}, {Role: auth.RoleProducer, Tenant: agenttest.Tenant}} {
		subjects := []string{check, answer}
		if prod.Tenant == globex {
			subjects = append(subjects, own)
		}
		for _, s := range subjects {
			if res, err := ck.cliPublish(t, prod, s, forged.ID, data); err == nil || !permissionViolation(string(res)) {
				t.Errorf("%s with the stock CLI on %s: %v: %s; want a permissions violation", prod, s, err, res)
			}
		}
		ck.forgingClient(t, prod, subjects, data)
	}
	for s, n := range before {
		if got := ck.stored(t, s); got != n {
			t.Errorf("%d messages on %s after the attack, want %d", got, s, n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := ck.mem.LastVerdict(ctx, agenttest.Tenant, m.Response)
	if err != nil || v.Verified == nil || v.Verified.Blocked || len(violated(gateway.RunMeta{Verdict: &gateway.Verdict{Claims: claimsOf(v.Verified)}})) != 0 {
		t.Errorf("acme's verdict after the attack: %+v, %v", v.Verified, err)
	}
}

// An attacker holding run mode's driver credential, which records
// constraint checks, tries to publish a verdict: an AnswerVerified that
// blocks acme's answer and a JudgeVerdict contradicting its claim (in the
// clear: the verifier reads them), on the answer's subject ts.answer.acme.<response>, with the stock nats CLI
// and a forging nats.go client: permissions violation each time, nothing
// stored there. On the check subject, which the driver may write, the
// same two events and a check of another response are stored but refused
// by the verifier (wrong_subject, each its own rejection): the verdict
// emits nothing, and acme's answer keeps the verdict the verifier gave
// (not blocked, no claim judged). The driver's own checks still apply
// (TestRunModeAnswerAgainstConstraints).
func TestAttackDriverForgesNoVerdict(t *testing.T) {
	ck := startCkGateway(t)
	text, m := ck.ask(t, ckAlice, "drv-atk-1", "Which dish should I try?")
	wantNoViolation(t, "acme alice's shrimp before the attack", text, m)
	answer, err := events.AnswerSubject(agenttest.Tenant, m.Response)
	if err != nil {
		t.Fatal(err)
	}
	check, _ := events.ConstraintCheckSubject(agenttest.Tenant, m.Response)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	verdict := func() *events.AnswerVerified {
		t.Helper()
		v, err := ck.mem.LastVerdict(ctx, agenttest.Tenant, m.Response)
		if err != nil || v.Verified == nil {
			t.Fatalf("acme's verdict: %+v, %v", v, err)
		}
		return v.Verified
	}
	was := verdict()
	onAnswer := ck.stored(t, answer)
	env := func(id string, b events.Body) []byte {
		t.Helper()
		data, err := events.Encode(&events.Event{ID: id, Tenant: agenttest.Tenant, User: "alice", Run: "drv-atk-1",
			Response: m.Response, At: time.Now().UnixNano(), Body: b})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	blocked := env("drv-forged-verified", &events.AnswerVerified{Faithfulness: 0, Policy: string(verifier.PolicyBlock), Blocked: true})
	judged := env("drv-forged-judge", &events.JudgeVerdict{Claim: 0, Verdict: events.VerdictContradicted, Reason: "forged"})
	other, _ := events.Encode(&events.Event{ID: "drv-forged-other", Tenant: agenttest.Tenant, User: "alice", Response: m.Response + "-other",
		At: time.Now().UnixNano(), Body: &events.ConstraintsChecked{InForce: 1, Violations: []events.ConstraintViolation{
			{Start: 0, End: 5, Constraint: events.ConstraintRef{Record: "m", Version: 1}}}}})
	drv := auth.Identity{Role: auth.RoleDriver}
	for id, data := range map[string][]byte{"drv-forged-verified": blocked, "drv-forged-judge": judged} {
		if res, err := ck.cliPublish(t, drv, answer, id, data); err == nil || !permissionViolation(string(res)) {
			t.Errorf("the driver's %s with the stock CLI on %s: %v: %s; want a permissions violation", id, answer, err, res)
		}
	}
	ck.forgingClient(t, drv, []string{answer, answer}, blocked, judged)
	if n := ck.stored(t, answer); n != onAnswer {
		t.Errorf("%d messages on %s after the driver's attack, want %d", n, answer, onAnswer)
	}
	// On the check subject the server takes them; the verifier does not.
	var seqs []uint64
	for id, data := range map[string][]byte{"drv-forged-verified2": blocked, "drv-forged-judge2": judged, "drv-forged-other": other} {
		if res, err := ck.cliPublish(t, drv, check, id, data); err != nil {
			t.Fatalf("the driver's %s on %s: %v: %s", id, check, err, res)
		}
		st, err := ck.p.B.JS.Stream(ctx, events.StreamOut)
		if err != nil {
			t.Fatal(err)
		}
		last, err := st.GetLastMsgForSubject(ctx, check)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, last.Sequence)
	}
	for _, seq := range seqs {
		var rej projector.Rejection
		// The checkpoint is read first: a message at or below it was applied
		// or rejected, and its rejection committed with it.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			cp := ck.p.Verifier.Checkpoint()
			r, ok, err := ck.p.Verifier.Rejection(seq)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				rej = r
				break
			}
			if cp >= seq {
				t.Fatalf("the verifier applied the driver's forged message %d on %s", seq, check)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the verifier never read message %d on %s (checkpoint %d)", seq, check, cp)
			}
		}
		if rej.Code != events.ReasonWrongSubject {
			t.Errorf("message %d on %s refused %s (%s), want %s", seq, check, rej.Code, rej.Reason, events.ReasonWrongSubject)
		}
	}
	if n := ck.stored(t, answer); n != onAnswer {
		t.Errorf("the verifier published %d verdicts on %s after the forged events on %s", n-onAnswer, answer, check)
	}
	if got := verdict(); got.Blocked || got.Faithfulness != was.Faithfulness || len(got.Claims) != len(was.Claims) ||
		(len(got.Claims) > 0 && got.Claims[0].Verdict != was.Claims[0].Verdict) {
		t.Errorf("acme's verdict after the driver's attack: %+v, want %+v", got, was)
	}
	if _, err := verifier.Get(ck.p.Verifier.View(), agenttest.Tenant, m.Response+"-other"); !errors.Is(err, verifier.ErrNotVerified) {
		t.Errorf("another response's check made a verdict: %v", err)
	}
}

// stored is how many messages the log holds on subject.
func (ck *ckGateway) stored(t *testing.T, subject string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := ck.p.B.JS.Stream(ctx, events.StreamOut)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		t.Fatal(err)
	}
	return int(info.State.Subjects[subject])
}

// cliPublish publishes data on subject to JetStream with the stock nats
// CLI on id's credential, and returns what the CLI printed.
func (ck *ckGateway) cliPublish(t *testing.T, id auth.Identity, subject, msgID string, data []byte) ([]byte, error) {
	t.Helper()
	creds := bustest.Creds(t, ck.p.B, id)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, jstest.NatsCLI(t), "--server", ck.p.B.ClientURL(), "--creds", creds, "--inbox-prefix", id.InboxPrefix(),
		"--timeout", "5s", "pub", "--jetstream", "--force-stdin", "--header", "Nats-Msg-Id:"+msgID, subject)
	cmd.Stdin = bytes.NewReader(data)
	return cmd.CombinedOutput()
}

// forgingClient publishes each of datas (the last for the subjects past
// them) on subjects in turn with nats.go on id's credential, and wants the
// server to refuse each (permissions violation).
func (ck *ckGateway) forgingClient(t *testing.T, id auth.Identity, subjects []string, datas ...[]byte) {
	t.Helper()
	nc, err := nats.Connect(ck.p.B.ClientURL(), nats.UserCredentials(bustest.Creds(t, ck.p.B, id)), nats.CustomInboxPrefix(id.InboxPrefix()))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	refused := make(chan error, len(subjects))
	nc.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused <- err })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, s := range subjects {
		if err := nc.Publish(s, datas[min(i, len(datas)-1)]); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-refused:
			if !permissionViolation(err.Error()) {
				t.Errorf("%s's forging client on %s: %v", id, s, err)
			}
		case <-ctx.Done():
			t.Fatalf("%s's forging client's publish on %s was not refused", id, s)
		}
	}
}

func permissionViolation(s string) bool {
	return strings.Contains(strings.ToLower(s), "permissions violation")
}

func claimsOf(av *events.AnswerVerified) []gateway.Claim {
	var out []gateway.Claim
	for _, c := range av.Claims {
		out = append(out, gateway.Claim{Verdict: c.Verdict, Constraint: c.Constraint})
	}
	return out
}
