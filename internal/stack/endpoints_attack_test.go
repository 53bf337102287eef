package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/registry"
)

// The hostile tenant against every service endpoint (DESIGN invariants 7,
// 9, 10; docs/security.md "Every endpoint, every role"): the whole stack
// as serve runs it over an embedded server with the product's auth, each
// role's credential (acme's producer the tenant's own; every other role
// reads every tenant by design) sends each NATS micro endpoint, and acme's
// gateway key each HTTP route, the same five attacks. The endpoints are
// enumerated from the running services ($SRV.INFO) and from
// gateway.Routes, so an endpoint added without a row fails the test.

const (
	hostA, hostB = "acme", "globex"
	hangMax      = 25 * time.Second // a hang detector, never a speed assertion
)

// The attacks, each sent to every endpoint.
const (
	atkShape    = "wrong-shape" // valid JSON of the wrong shape
	atkJSON     = "invalid-json"
	atkOversize = "oversize"     // over the stated limit
	atkLarge    = "large"        // just under the transport's limit, over what a request needs
	atkVerb     = "unknown-verb" // the endpoint's subject or path with a verb no one serves
	atkForeign  = "foreign"      // naming tenant globex's ids
)

// Outcomes a NATS request can have, besides a service's error code.
const (
	outOK          = "ok"
	outPermission  = "permission-violation" // nats.ErrPermissionViolation, naming the subject
	outNoResponder = "no-responders"        // nats.ErrNoResponders
	outMaxPayload  = "max-payload"          // nats.ErrMaxPayload: refused before it leaves
	outTimeout     = "timeout"
)

const messagesAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"a","content":[{"type":"text","text":"Sunny."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`

// epConn is one identity's own connection.
type epConn struct {
	id   auth.Identity
	nc   *nats.Conn
	errs chan error
}

func dialEp(t *testing.T, b *bus.Bus, id auth.Identity) *epConn {
	t.Helper()
	opts, err := b.UserOptions(id)
	if err != nil {
		t.Fatal(err)
	}
	rc := &epConn{id: id, errs: make(chan error, 4096)}
	rc.nc, err = nats.Connect(b.ClientURL(), append(opts, nats.Name("attack-"+id.String()), nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			select {
			case rc.errs <- err:
			default:
			}
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.nc.Close)
	return rc
}

// ask sends body to subject and returns what came of it: an outcome
// constant or the service's error code (micro's Nats-Service-Error-Code).
// The answer it took is returned too.
func (c *epConn) ask(subject string, body []byte) (string, *nats.Msg) {
	inbox := c.nc.NewInbox()
	msgs := make(chan *nats.Msg, 1)
	sub, err := c.nc.ChanSubscribe(inbox, msgs)
	if err != nil {
		return "subscribe: " + err.Error(), nil
	}
	defer sub.Unsubscribe()
	if err := c.nc.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Data: body}); err != nil {
		if errors.Is(err, nats.ErrMaxPayload) {
			return outMaxPayload, nil
		}
		return "publish: " + err.Error(), nil
	}
	if err := c.nc.Flush(); err != nil {
		return "flush: " + err.Error(), nil
	}
	hang := time.NewTimer(hangMax)
	defer hang.Stop()
	for {
		select {
		case m := <-msgs:
			if m.Header.Get("Status") == "503" && len(m.Data) == 0 {
				return outNoResponder, m
			}
			if code := m.Header.Get(micro.ErrorCodeHeader); code != "" {
				return code, m
			}
			return outOK, m
		case err := <-c.errs:
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), strconv.Quote(subject)) {
				return outPermission, nil
			}
		case <-hang.C:
			return outTimeout, nil
		}
	}
}

// victim is what globex holds before the attacks, and how to read it.
type victim struct {
	record, user, run, stream string
}

// natsRow is what one endpoint family gets: the bodies of the attacks and
// the code each is refused with where the role may ask it.
type natsRow struct {
	shape string             // valid JSON of the wrong shape
	large func(n int) string // a request of about n bytes
	want  map[string]string  // by attack: atkShape, atkJSON, atkLarge
	// foreign is what acme's producer sends naming globex's ids (every
	// other role reads every tenant by design, docs/security.md).
	foreign []foreignReq
}

type foreignReq struct {
	subject, body string
	want          string
}

func pad(n int) string { return strings.Repeat("x", max(n, 0)) }

// natsRows is the table: by endpoint name, or by family ("digest-",
// "dump-", the views' endpoints, one per projection).
func natsRows(v victim) map[string]natsRow {
	rows := map[string]natsRow{}
	bad := map[string]string{atkShape: "400", atkJSON: "400", atkLarge: "400"}
	for _, verb := range []string{"recall", "list", "history", "message", "constraints", "observe", "correct", "forget"} {
		rows[verb] = natsRow{
			shape: `{"tenant":["acme"],"user":{"name":"mallory"}}`,
			large: func(n int) string {
				return fmt.Sprintf(`{"tenant":%q,"user":"mallory","id":"big","kind":"fact","subject":"mallory","attribute":"note","value":"v","query":"q","text":%q}`, hostA, pad(n-300))
			},
			want: map[string]string{atkShape: "400", atkJSON: "400", atkLarge: memory.CodeTooLarge},
			foreign: []foreignReq{{subject: "tsv.memory." + verb,
				body: fmt.Sprintf(`{"tenant":%q,"user":%q,"id":%q,"expected_version":1,"query":"Paris"}`, hostB, v.user, v.record), want: outPermission}},
		}
	}
	for _, verb := range []string{"get", "list", "rounds", "history", "plan", "message", "lease", "renew", "release", "end"} {
		r := natsRow{
			shape: `{"run":7,"plan":"not an object"}`,
			large: func(n int) string {
				return fmt.Sprintf(`{"run":"big","id":"m-big","user":"mallory","driver":"d","plan":{"note":%q},"text":%q}`, "p", pad(n-200))
			},
			want: map[string]string{atkShape: runs.CodeBadRequest, atkJSON: runs.CodeBadRequest, atkLarge: runs.CodeTooLarge},
			foreign: []foreignReq{{subject: "tsv.runs." + verb + "." + hostB,
				body: fmt.Sprintf(`{"run":%q,"user":%q}`, v.run, v.user), want: outPermission}},
		}
		switch verb {
		case "get", "rounds", "history":
			// globex's run named on acme's own subject: not acme's.
			r.foreign = append(r.foreign, foreignReq{subject: "tsv.runs." + verb + "." + hostA, body: fmt.Sprintf(`{"run":%q}`, v.run), want: "404"})
		case "lease", "renew", "release", "end":
			r.foreign = append(r.foreign, foreignReq{subject: "tsv.runs." + verb + "." + hostA, body: fmt.Sprintf(`{"run":%q}`, v.run), want: outPermission})
		}
		rows["runs-"+verb] = r
	}
	for _, verb := range []string{"user", "seal", "open", "erase"} {
		rows["keys-"+verb] = natsRow{
			shape: `{"scope":7,"user":["bob"]}`,
			large: func(n int) string { return fmt.Sprintf(`{"scope":"u/%s"}`, pad(n-20)) },
			want:  map[string]string{atkShape: keys.CodeRefused, atkJSON: keys.CodeRefused, atkLarge: keys.CodeRefused},
			foreign: []foreignReq{{subject: "tsv.keys." + verb + "." + hostB,
				body: fmt.Sprintf(`{"user":%q,"scope":"u/%s"}`, v.user, v.user), want: outPermission}},
		}
	}
	rows["digest-"] = natsRow{shape: `{"projection":["memory"]}`,
		large:   func(n int) string { return fmt.Sprintf(`{"projection":%q}`, pad(n-20)) },
		want:    bad,
		foreign: []foreignReq{{subject: "tsv.digest.memory", body: hostB, want: outPermission}}}
	rows["dump-"] = natsRow{shape: `{"projection":7,"limit":"all"}`,
		large:   func(n int) string { return fmt.Sprintf(`{"projection":%q}`, pad(n-20)) },
		want:    bad,
		foreign: []foreignReq{{subject: "tsv.dump.memory", body: `{"projection":"memory"}`, want: outPermission}}}
	return rows
}

// rowOf is the row of endpoint name, by name or by family.
func rowOf(rows map[string]natsRow, name string) (natsRow, bool) {
	if r, ok := rows[name]; ok {
		return r, true
	}
	for _, fam := range []string{"digest-", "dump-"} {
		if strings.HasPrefix(name, fam) {
			r, ok := rows[fam]
			return r, ok
		}
	}
	return natsRow{}, false
}

// endpoint is one endpoint a running service listed.
type endpoint struct{ service, name, subject string }

// listEndpoints asks every service on the server for its endpoints
// ($SRV.INFO), as the admin, and returns each (name, subject) once.
func listEndpoints(t *testing.T, nc *nats.Conn, want ...string) []endpoint {
	t.Helper()
	seen := map[endpoint]bool{}
	services := map[string]bool{}
	inbox := nc.NewInbox()
	msgs := make(chan *nats.Msg, 64)
	sub, err := nc.ChanSubscribe(inbox, msgs)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest("$SRV.INFO", inbox, nil); err != nil {
		t.Fatal(err)
	}
	// Every instance answers; the services named in want must have, and
	// those are waited for (a hang detector); others answering with them
	// are taken too.
	hang := time.NewTimer(hangMax)
	defer hang.Stop()
	for quiet := false; !quiet; {
		select {
		case m := <-msgs:
			var info micro.Info
			if err := json.Unmarshal(m.Data, &info); err != nil {
				t.Fatalf("$SRV.INFO answer %q: %v", m.Data, err)
			}
			services[info.Name] = true
			for _, e := range info.Endpoints {
				seen[endpoint{info.Name, e.Name, e.Subject}] = true
			}
		case <-hang.C:
			t.Fatalf("services answering $SRV.INFO: %v, want at least %v", services, want)
		case <-time.After(time.Second):
			quiet = true
			for _, w := range want {
				quiet = quiet && services[w]
			}
		}
	}
	var out []endpoint
	for e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b endpoint) int { return strings.Compare(a.subject, b.subject) })
	return out
}

// concrete is the endpoint's subject asked for tenant (a wildcard's last
// token is the tenant).
func concrete(subject, tenant string) string {
	if s, ok := strings.CutSuffix(subject, ".*"); ok {
		return s + "." + tenant
	}
	return subject
}

// unknownVerb is subject with its verb (third token) one no one serves.
func unknownVerb(subject string) string {
	toks := strings.Split(subject, ".")
	toks[2] = "no-such-verb"
	return strings.Join(toks, ".")
}

// attackStack is the stack serve runs (every component, the gateway)
// over an embedded server with the product's auth.
type attackStack struct {
	b        *bus.Bus
	s        *Stack
	addr     string
	keyA     string
	keyB     string
	bodyMax  int64
	upstream *fakeup.Server
}

func startAttackStack(t *testing.T, ctx context.Context) *attackStack {
	t.Helper()
	as := &attackStack{b: bustest.Start(t), keyA: "key-of-acme", keyB: "key-of-globex", bodyMax: 32 << 20}
	recording := weatherRecording(t)
	as.upstream = fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		if bytes.Contains(body, []byte(`"stream":true`)) {
			return fakeup.Answer{File: recording}, nil
		}
		if strings.HasSuffix(path, "/messages") {
			return fakeup.Answer{Status: http.StatusOK, Body: messagesAnswer}, nil
		}
		return fakeup.Answer{Status: http.StatusOK, Body: chatAnswer}, nil
	})
	cfg := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := fmt.Sprintf("upstreams:\n  - {name: openai, kind: openai, base_url: %q, api_key: up, models: [m]}\n  - {name: anthropic, kind: anthropic, base_url: %q, api_key: up, models: [a]}\nkeys:\n  - {key_sha256: %s, tenant: %s}\n  - {key_sha256: %s, tenant: %s}\n",
		as.upstream.URL+"/v1", as.upstream.URL+"/v1", gateway.HashKey(as.keyA), hostA, gateway.HashKey(as.keyB), hostB)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	as.addr = freeAddr(t)
	s, err := Start(ctx, Config{Bus: as.b, ViewsDir: t.TempDir(), Projections: Projections{Trust: registry.NewTrust()},
		Gateway: Gateway{Addr: as.addr, ConfigFile: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	as.s = s
	return as
}

// http sends one request to the gateway with key and returns its status
// and body.
func (as *attackStack) http(ctx context.Context, method, path, key string, body io.Reader, header ...string) (int, []byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+as.addr+path, body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, resp.Header, err
}

// admin asks subject as the admin and fails the test on any error.
func mustAsk(t *testing.T, c *epConn, subject, body string) []byte {
	t.Helper()
	out, m := c.ask(subject, []byte(body))
	if out != outOK {
		var detail string
		if m != nil {
			detail = m.Header.Get(micro.ErrorHeader)
		}
		t.Fatalf("%s %s as %s: %s %s", subject, body, c.id, out, detail)
	}
	return m.Data
}

// seedVictim gives globex a memory record, a run and a gateway stream,
// waiting (a hang detector) until the views show them.
func seedVictim(t *testing.T, ctx context.Context, as *attackStack, admin, producerB *epConn) victim {
	t.Helper()
	v := victim{record: "rec-bob-city", user: "bob", run: "run-bob"}
	mustAsk(t, admin, "tsv.memory.observe", fmt.Sprintf(`{"tenant":%q,"user":%q,"id":%q,"kind":"fact","subject":"bob","attribute":"city","value":"Paris","text":"Bob lives in Paris."}`, hostB, v.user, v.record))
	mustAsk(t, producerB, "tsv.runs.message."+hostB, fmt.Sprintf(`{"run":%q,"id":"m1","user":%q,"text":"Book me a table."}`, v.run, v.user))
	for {
		code, body, h, err := as.http(ctx, "POST", "/v1/chat/completions", as.keyB,
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"weather in Paris?"}]}`), gateway.HeaderUser, v.user)
		if err == nil && code == http.StatusOK && h.Get(gateway.HeaderStream) != "" {
			v.stream = h.Get(gateway.HeaderStream)
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("globex's stream: %d %s %v", code, body, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return v
}

// victimState is what globex's identities read of their own: compared
// before and after the attacks.
func victimState(t *testing.T, ctx context.Context, as *attackStack, admin *epConn, v victim) map[string]string {
	t.Helper()
	st := map[string]string{
		"memory": string(mustAsk(t, admin, "tsv.memory.list", fmt.Sprintf(`{"tenant":%q,"user":%q,"history":true}`, hostB, v.user))),
		"run":    string(mustAsk(t, admin, "tsv.runs.get."+hostB, fmt.Sprintf(`{"run":%q,"current":true}`, v.run))),
	}
	code, body, _, err := as.http(ctx, "GET", "/toolstream/v1/chat/completions/"+v.stream, as.keyB, nil, gateway.HeaderUser, v.user)
	if err != nil || code != http.StatusOK {
		t.Fatalf("globex's stream %s: %d %s %v", v.stream, code, body, err)
	}
	st["stream"] = string(body)
	return st
}

// TestAttackEveryEndpointEveryRole: every NATS micro endpoint the running
// stack serves, asked by every role's credential with each attack; each
// answer is the outcome its row names (a service's error code, the
// server's permissions violation naming the subject, no responders, the
// client's max-payload refusal), globex's memory, run and stream read the
// same after as before, and globex's producer is still served.
func TestAttackEveryEndpointEveryRole(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	as := startAttackStack(t, ctx)
	admin := dialEp(t, as.b, bustest.Admin)
	producerB := dialEp(t, as.b, auth.Identity{Role: auth.RoleProducer, Tenant: hostB})
	v := seedVictim(t, ctx, as, admin, producerB)
	before := victimState(t, ctx, as, admin, v)

	eps := listEndpoints(t, admin.nc, "toolstream", "toolstream-keys")
	rows := natsRows(v)
	var conns []*epConn
	for _, r := range auth.Roles {
		if r == auth.RoleSys {
			continue // the system account's: no subject of the log's account
		}
		id := auth.Identity{Role: r}
		if r == auth.RoleProducer {
			id.Tenant = hostA
		}
		conns = append(conns, dialEp(t, as.b, id))
	}
	maxPayload := int(admin.nc.MaxPayload())
	for _, ep := range eps {
		row, ok := rowOf(rows, ep.name)
		if !ok {
			t.Errorf("endpoint %s (%s, service %s) has no row in the attack table", ep.name, ep.subject, ep.service)
			continue
		}
		subject := concrete(ep.subject, hostA)
		// The large request goes once, from the least privileged role
		// that may ask (the last in auth.Roles order that may).
		var larger *epConn
		for _, c := range conns {
			if c.id.MayPublish(subject) && (larger == nil || c.id.Role == auth.RoleProducer) {
				larger = c
			}
		}
		for _, c := range conns {
			may := c.id.MayPublish(subject)
			cases := []struct {
				attack, subject string
				body            []byte
				want            string
			}{
				{atkShape, subject, []byte(row.shape), row.want[atkShape]},
				{atkJSON, subject, []byte(`{"tenant":"acme",`), row.want[atkJSON]},
				{atkOversize, subject, make([]byte, maxPayload+1), outMaxPayload},
				{atkVerb, unknownVerb(subject), []byte(row.shape), outNoResponder},
			}
			if !c.id.MayPublish(unknownVerb(subject)) {
				cases[3].want = outPermission
			}
			if c == larger {
				cases = append(cases, struct {
					attack, subject string
					body            []byte
					want            string
				}{atkLarge, subject, []byte(row.large(maxPayload - 4096)), row.want[atkLarge]})
			}
			if c.id.Tenant == hostA {
				for _, f := range row.foreign {
					cases = append(cases, struct {
						attack, subject string
						body            []byte
						want            string
					}{atkForeign, f.subject, []byte(f.body), f.want})
				}
			}
			for _, tc := range cases {
				want := tc.want
				if !may && tc.attack != atkOversize && tc.subject == subject {
					want = outPermission
				}
				got, m := c.ask(tc.subject, tc.body)
				detail := ""
				if m != nil {
					detail = m.Header.Get(micro.ErrorHeader)
					if len(detail) > 160 {
						detail = detail[:160]
					}
				}
				if got == outOK && m != nil && tc.attack == atkLarge {
					detail = string(m.Data[:min(len(m.Data), 300)])
				}
				if got != want {
					t.Errorf("%s %s as %s: %s (%s), want %s", tc.attack, tc.subject, c.id, got, detail, want)
				}
			}
		}
	}

	// The gateway's routes, with acme's key.
	attackRoutes(t, ctx, as, v)

	// Nothing of globex's was read or changed, and globex is still served.
	after := victimState(t, ctx, as, admin, v)
	for k, b := range before {
		if after[k] != b {
			t.Errorf("globex's %s changed under the attacks:\n before %s\n after  %s", k, b, after[k])
		}
	}
	mustAsk(t, producerB, "tsv.runs.get."+hostB, fmt.Sprintf(`{"run":%q}`, v.run))
}

// httpRow is what one gateway route gets. A route with a body gets the
// attacks in it; a route without one (GET) gets them in its id, the
// request's only input.
type httpRow struct {
	method, path string // path: the route's, its wildcard an id acme never made
	body         bool   // the route reads a JSON body
	want         map[string]int
	foreign      []httpForeign
}

// httpForeign is a request of acme's key naming globex's ids.
type httpForeign struct {
	method, path, body string
	header             []string
	want               int
}

func httpRows(v victim) map[string]httpRow {
	bad := map[string]int{atkShape: 400, atkJSON: 400, atkOversize: 413, atkVerb: 404}
	missing := map[string]int{atkShape: 404, atkJSON: 404, atkOversize: 404, atkVerb: 404}
	// An id too long for a subject token of TS_GW is refused as such.
	stored := map[string]int{atkShape: 404, atkJSON: 404, atkOversize: 400, atkVerb: 404}
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	get := func(p string) []httpForeign {
		return []httpForeign{{method: "GET", path: p + v.stream, want: 404}, {method: "GET", path: p + v.stream, header: []string{gateway.HeaderUser, v.user}, want: 404}}
	}
	return map[string]httpRow{
		"POST /v1/chat/completions": {method: "POST", path: "/v1/chat/completions", body: true, want: bad,
			// A run named by globex's run id is acme's run of that name:
			// answered, and globex's run is unchanged (checked after).
			foreign: []httpForeign{{method: "POST", path: "/v1/chat/completions", body: chat, header: []string{gateway.HeaderRun, v.run, gateway.HeaderUser, v.user}, want: 200}}},
		"POST /v1/responses": {method: "POST", path: "/v1/responses", body: true, want: bad,
			foreign: []httpForeign{{method: "POST", path: "/v1/responses", body: `{"model":"m","input":"hi"}`, header: []string{gateway.HeaderRun, v.run, gateway.HeaderUser, v.user}, want: 200}}},
		"POST /v1/messages": {method: "POST", path: "/v1/messages", body: true, want: bad,
			foreign: []httpForeign{{method: "POST", path: "/v1/messages", body: `{"model":"a","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`, header: []string{gateway.HeaderRun, v.run, gateway.HeaderUser, v.user}, want: 200}}},
		"GET /v1/responses/{id}":                   {method: "GET", path: "/v1/responses/", want: missing, foreign: get("/v1/responses/")},
		"POST /v1/responses/{id}/cancel":           {method: "POST", path: "/v1/responses/%s/cancel", want: missing, foreign: []httpForeign{{method: "POST", path: "/v1/responses/" + v.stream + "/cancel", want: 404}}},
		"GET /toolstream/v1/responses/{id}":        {method: "GET", path: "/toolstream/v1/responses/", want: stored, foreign: get("/toolstream/v1/responses/")},
		"GET /toolstream/v1/chat/completions/{id}": {method: "GET", path: "/toolstream/v1/chat/completions/", want: stored, foreign: get("/toolstream/v1/chat/completions/")},
		"GET /toolstream/v1/messages/{id}":         {method: "GET", path: "/toolstream/v1/messages/", want: stored, foreign: get("/toolstream/v1/messages/")},
		// The list reads no input: whatever the request carries, the list.
		"GET /v1/models":         {method: "GET", path: "/v1/models", want: map[string]int{atkShape: 200, atkJSON: 200, atkOversize: 200, atkVerb: 404}},
		"GET /v1/models/{id...}": {method: "GET", path: "/v1/models/", want: missing},
		"POST /v1/embeddings":    {method: "POST", path: "/v1/embeddings", body: true, want: bad},
		"/":                      {method: "PUT", path: "/no/such/route", body: true, want: missing},
	}
}

// attackRoutes sends every gateway route (gateway.Routes) each attack
// with acme's key.
func attackRoutes(t *testing.T, ctx context.Context, as *attackStack, v victim) {
	t.Helper()
	rows := httpRows(v)
	for _, pattern := range gateway.Routes() {
		row, ok := rows[pattern]
		if !ok {
			t.Errorf("gateway route %q has no row in the attack table", pattern)
			continue
		}
		type attempt struct {
			attack, method, path string
			body                 io.Reader
			header               []string
			want                 int
		}
		var cases []attempt
		idPath := func(id string) string {
			if strings.Contains(row.path, "%s") {
				return fmt.Sprintf(row.path, id)
			}
			if strings.HasSuffix(row.path, "/") {
				return row.path + id
			}
			return row.path
		}
		if row.body {
			cases = append(cases,
				attempt{atkShape, row.method, row.path, strings.NewReader(`{"model":7,"messages":"hi","input":{"x":[]},"max_tokens":"many"}`), nil, row.want[atkShape]},
				attempt{atkJSON, row.method, row.path, strings.NewReader(`{"model":"m","messages":[`), nil, row.want[atkJSON]},
				attempt{atkOversize, row.method, row.path, io.LimitReader(zeros{}, as.bodyMax+1), nil, row.want[atkOversize]})
		} else {
			cases = append(cases,
				attempt{atkShape, row.method, idPath("a.b.*.%3E"), nil, nil, row.want[atkShape]},
				attempt{atkJSON, row.method, idPath("%22%7B%00%FF"), nil, nil, row.want[atkJSON]},
				attempt{atkOversize, row.method, idPath(pad(16 << 10)), nil, nil, row.want[atkOversize]})
		}
		cases = append(cases, attempt{atkVerb, row.method, strings.TrimSuffix(idPath("made-up"), "/") + "/no-such-verb", nil, nil, row.want[atkVerb]})
		for _, f := range row.foreign {
			cases = append(cases, attempt{atkForeign, f.method, f.path, strings.NewReader(f.body), f.header, f.want})
		}
		for _, c := range cases {
			code, body, _, err := as.http(ctx, c.method, c.path, as.keyA, c.body, c.header...)
			if err != nil {
				t.Errorf("%s %s %.80s: %v", c.attack, c.method, c.path, err)
				continue
			}
			if code != c.want {
				t.Errorf("%s %s %.80s (%s): %d %.200s, want %d", c.attack, c.method, c.path, pattern, code, body, c.want)
			}
		}
	}
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
