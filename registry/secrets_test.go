package registry_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/registry"
)

const confinedYAML = `
tools:
  - name: refund
    http:
      url: "https://payments.example/refund"
      headers: {Authorization: "Bearer ${env:PAYMENTS_TOKEN}", X-Api-Key: "${file:/run/secrets/payments}", X-Api: v1}
      follow_redirects: same_origin
  - name: report
    command: [/usr/local/bin/report]
    env: {REGION: "${env:AWS_REGION}", DB_PASSWORD: "${file:/run/secrets/db}", MODE: fast, PATH: /opt/report/bin:/usr/bin:/bin}
    sandbox: {network: none, memory: 256MiB, cpu: 10s}
  - name: plain
    command: [/bin/true]
    env: [AWS_REGION]
    sandbox: {}
`

// The tools file, the canonical spec and the digest hold references, never
// what they resolve to; the same contract written two ways is one spec.
func TestSecretsAreReferences(t *testing.T) {
	r := mustParse(t, confinedYAML)
	spec := string(r.Spec())
	for _, ref := range []string{"${env:PAYMENTS_TOKEN}", "${file:/run/secrets/payments}", "${env:AWS_REGION}", "${file:/run/secrets/db}"} {
		if !strings.Contains(spec, ref) {
			t.Fatalf("spec lacks %s:\n%s", ref, spec)
		}
	}
	refund, _ := r.Lookup("refund")
	if refund.HTTP.Headers["Authorization"] != "Bearer ${env:PAYMENTS_TOKEN}" || refund.HTTP.FollowRedirects != registry.RedirectsSameOrigin {
		t.Fatalf("http = %+v", refund.HTTP)
	}
	report, _ := r.Lookup("report")
	if report.Env["REGION"] != "${env:AWS_REGION}" || report.Env["MODE"] != "fast" || len(report.Env) != 4 {
		t.Fatalf("env = %v", report.Env)
	}
	want := registry.Sandbox{Network: registry.NetworkNone, Filesystem: registry.FilesystemReadonly, Memory: 256 << 20, CPU: 10 * time.Second}
	if report.Sandbox == nil || !reflect.DeepEqual(*report.Sandbox, want) || report.Sandbox.String() != "network none, filesystem readonly, memory 256MiB, cpu 10s" {
		t.Fatalf("sandbox = %+v", report.Sandbox)
	}
	plain, _ := r.Lookup("plain")
	if plain.Env["AWS_REGION"] != "${env:AWS_REGION}" || plain.Sandbox == nil || plain.Sandbox.Network != registry.NetworkNone || plain.Sandbox.Memory != 0 {
		t.Fatalf("plain = %+v %+v", plain.Env, plain.Sandbox)
	}
	if again := mustParse(t, spec); again.Digest() != r.Digest() || string(again.Spec()) != spec {
		t.Fatalf("Parse(Spec()) changed the spec:\n%s\n%s", spec, again.Spec())
	}
	// A list of names is the mapping NAME: ${env:NAME}; defaults are filled in.
	same := mustParse(t, strings.NewReplacer(
		"env: [AWS_REGION]", `env: {AWS_REGION: "${env:AWS_REGION}"}`,
		"sandbox: {}", "sandbox: {network: none, filesystem: readonly}",
		"memory: 256MiB", "memory: 268435456",
	).Replace(confinedYAML))
	if same.Digest() != r.Digest() {
		t.Fatalf("two ways of writing one contract differ:\n%s\n%s", spec, same.Spec())
	}
	// Contracts without the new fields keep their spec: no new keys appear.
	old := mustParse(t, `tools: [{name: a, http: {url: "http://x"}}, {name: b, command: [x]}]`)
	for _, k := range []string{"follow_redirects", "env", "sandbox"} {
		if strings.Contains(string(old.Spec()), k) {
			t.Fatalf("spec of an old contract holds %s: %s", k, old.Spec())
		}
	}
	if h, _ := old.Lookup("a"); h.HTTP.FollowRedirects != registry.RedirectsNone {
		t.Fatalf("follow_redirects default = %q", h.HTTP.FollowRedirects)
	}
}

func TestLiteralSecretsAreRefused(t *testing.T) {
	for _, h := range []string{"Authorization", "proxy-authorization", "Cookie", "X-Api-Key", "Api-Key", "X-ApiKey", "X-Auth-Token", "X-Client-Secret"} {
		src := fmt.Sprintf(`tools: [{name: a, http: {url: "http://x", headers: {%s: "Bearer abc123"}}}]`, h)
		_, err := registry.Parse([]byte(src))
		var fe *registry.FieldError
		if !errors.As(err, &fe) || fe.Path != "tools[0].http.headers."+h || !strings.Contains(fe.Msg, "use ${env:NAME} or ${file:PATH}") {
			t.Fatalf("%s with a literal value: %v", h, err)
		}
		if strings.Contains(err.Error(), "abc123") {
			t.Fatalf("the error repeats the secret: %v", err)
		}
	}
	for _, name := range []string{"DB_PASSWORD", "API_KEY", "GITHUB_TOKEN", "token"} {
		src := fmt.Sprintf(`tools: [{name: a, command: [x], env: {%s: hunter2}}]`, name)
		_, err := registry.Parse([]byte(src))
		var fe *registry.FieldError
		if !errors.As(err, &fe) || fe.Path != "tools[0].env."+name || !strings.Contains(fe.Msg, "use ${env:NAME} or ${file:PATH}") {
			t.Fatalf("%s with a literal value: %v", name, err)
		}
	}
	// Harmless names keep literal values.
	mustParse(t, `tools: [{name: a, http: {url: "http://x", headers: {X-Api: v1, Accept-Language: en, Idempotency-Strategy: x}}}]`)
}

// A sandbox's read and write paths are kept sorted and once each, and
// a sandbox without them keeps its canonical bytes.
func TestSandboxPaths(t *testing.T) {
	r := mustParse(t, `tools: [{name: a, command: [x], sandbox: {read: [/srv/maps, /etc/passwd, /srv/maps], write: [/srv/out]}}]`)
	a, _ := r.Lookup("a")
	if !slices.Equal(a.Sandbox.Read, []string{"/etc/passwd", "/srv/maps"}) || !slices.Equal(a.Sandbox.Write, []string{"/srv/out"}) {
		t.Fatalf("sandbox = %+v", a.Sandbox)
	}
	if s := a.Sandbox.String(); s != "network none, filesystem readonly, read /etc/passwd /srv/maps, write /srv/out" {
		t.Fatalf("String() = %q", s)
	}
	if !strings.Contains(string(r.Spec()), `"read":["/etc/passwd","/srv/maps"],"write":["/srv/out"]`) {
		t.Fatalf("spec: %s", r.Spec())
	}
	plain := mustParse(t, `tools: [{name: a, command: [x], sandbox: {}}]`)
	if strings.Contains(string(plain.Spec()), `"read"`) || strings.Contains(string(plain.Spec()), `"write"`) {
		t.Fatalf("a sandbox without paths gained fields: %s", plain.Spec())
	}
}

func TestConfinementErrorsNameTheField(t *testing.T) {
	cases := []struct{ name, src, path, msg string }{
		{"url credentials", `tools: [{name: a, http: {url: "https://bob:hunter2@api.example/x"}}]`, "tools[0].http.url", "carries credentials"},
		{"unknown source", `tools: [{name: a, http: {url: "http://x", headers: {X-A: "${vault:x}"}}}]`, "tools[0].http.headers.X-A", "not a reference"},
		{"empty env name", `tools: [{name: a, http: {url: "http://x", headers: {X-A: "${env:}"}}}]`, "tools[0].http.headers.X-A", "not an environment variable name"},
		{"relative file", `tools: [{name: a, http: {url: "http://x", headers: {X-A: "${file:secret}"}}}]`, "tools[0].http.headers.X-A", "absolute"},
		{"unclosed", `tools: [{name: a, http: {url: "http://x", headers: {X-A: "${env:A"}}}]`, "tools[0].http.headers.X-A", "not closed"},
		{"header name", `tools: [{name: a, http: {url: "http://x", headers: {"X A": v}}}]`, "tools[0].http.headers.X A", "not a header name"},
		{"headers list", `tools: [{name: a, http: {url: "http://x", headers: [a]}}]`, "tools[0].http.headers", "want a mapping"},
		{"redirects", `tools: [{name: a, http: {url: "http://x", follow_redirects: always}}]`, "tools[0].http.follow_redirects", "not one of"},
		{"env on http", `tools: [{name: a, http: {url: "http://x"}, env: [A]}]`, "tools[0].env", "command tools only"},
		{"sandbox on go", `tools: [{name: a, sandbox: {}}]`, "tools[0].sandbox", "command tools only"},
		{"env name", `tools: [{name: a, command: [x], env: [1A]}]`, "tools[0].env[0]", "not an environment variable name"},
		{"env home", `tools: [{name: a, command: [x], env: [HOME]}]`, "tools[0].env[0]", "set by the executor"},
		{"env toolstream", `tools: [{name: a, command: [x], env: {TOOLSTREAM_TENANT: x}}]`, "tools[0].env.TOOLSTREAM_TENANT", "set by the executor"},
		{"env kind", `tools: [{name: a, command: [x], env: A}]`, "tools[0].env", "want a list"},
		{"network", `tools: [{name: a, command: [x], sandbox: {network: bridge}}]`, "tools[0].sandbox.network", "not one of"},
		{"filesystem", `tools: [{name: a, command: [x], sandbox: {filesystem: rw}}]`, "tools[0].sandbox.filesystem", "not one of"},
		{"sandbox field", `tools: [{name: a, command: [x], sandbox: {disk: 1GiB}}]`, "tools[0].sandbox.disk", "unknown field"},
		{"memory unit", `tools: [{name: a, command: [x], sandbox: {memory: 256MB}}]`, "tools[0].sandbox.memory", "want a size"},
		{"memory small", `tools: [{name: a, command: [x], sandbox: {memory: 1MiB}}]`, "tools[0].sandbox.memory", "out of range"},
		{"cpu fraction", `tools: [{name: a, command: [x], sandbox: {cpu: 1500ms}}]`, "tools[0].sandbox.cpu", "whole seconds"},
		{"cpu zero", `tools: [{name: a, command: [x], sandbox: {cpu: 0s}}]`, "tools[0].sandbox.cpu", "out of range"},
		{"read relative", `tools: [{name: a, command: [x], sandbox: {read: [srv/maps]}}]`, "tools[0].sandbox.read[0]", "must be absolute"},
		{"read unclean", `tools: [{name: a, command: [x], sandbox: {read: [/srv/../etc]}}]`, "tools[0].sandbox.read[0]", "write the path clean, as /etc"},
		{"read root", `tools: [{name: a, command: [x], sandbox: {read: [/]}}]`, "tools[0].sandbox.read[0]", "whole host"},
		{"write proc", `tools: [{name: a, command: [x], sandbox: {write: [/proc/1]}}]`, "tools[0].sandbox.write[0]", "of its own"},
		{"read and write", `tools: [{name: a, command: [x], sandbox: {read: [/srv], write: [/srv]}}]`, "tools[0].sandbox.read", "name a path once"},
		{"read kind", `tools: [{name: a, command: [x], sandbox: {read: /srv}}]`, "tools[0].sandbox.read", "want a list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := registry.Parse([]byte(c.src))
			var fe *registry.FieldError
			if !errors.As(err, &fe) || fe.Path != c.path || !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("err = %v; want path %q and %q", err, c.path, c.msg)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	vals := map[registry.Ref]string{{Source: "env", Name: "A"}: "alpha", {Source: "file", Name: "/s"}: "sigma"}
	resolve := func(r registry.Ref) (string, error) {
		v, ok := vals[r]
		if !ok {
			return "", fmt.Errorf("%s is not set", r)
		}
		return v, nil
	}
	for in, want := range map[string]string{
		"Bearer ${env:A}":       "Bearer alpha",
		"${env:A}:${file:/s}":   "alpha:sigma",
		"plain":                 "plain",
		"cost $${env:A} and $5": "cost ${env:A} and $5",
	} {
		if got, err := registry.Expand(in, resolve); err != nil || got != want {
			t.Fatalf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := registry.Expand("${env:B}", resolve); err == nil || err.Error() != "${env:B} is not set" {
		t.Fatalf("missing: %v", err)
	}
	if registry.HasRefs("cost $${env:A}") || !registry.HasRefs("x${env:A}") {
		t.Fatal("HasRefs")
	}
}
