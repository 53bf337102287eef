package cluster_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/registry"
	"go.yaml.in/yaml/v3"
)

// composeFile is the repository's docker-compose.yml as this test reads it.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   any               `yaml:"depends_on"`
}

// interpolate expands ${VAR:-default}, ${VAR-default}, ${VAR}, $VAR and $$
// the way docker compose does, with vars as the environment.
func interpolate(s string, vars map[string]string) string {
	re := regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		g := re.FindStringSubmatch(m)
		name := g[1] + g[4]
		v, ok := vars[name]
		switch g[2] {
		case ":-":
			if v == "" {
				return g[3]
			}
		case "-":
			if !ok {
				return g[3]
			}
		}
		return v
	})
}

// readCompose parses docker-compose.yml (merge keys included) with every
// variable unset, so each takes its default, as on a fresh checkout.
func readCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal([]byte(interpolate(string(raw), nil)), &cf); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	if len(cf.Services) == 0 {
		t.Fatal("docker-compose.yml has no services")
	}
	return cf
}

// natsServices are the compose services running nats-server, by the
// configuration file each mounts and reads.
func natsServices(t *testing.T, cf composeFile) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, s := range cf.Services {
		if !strings.HasPrefix(s.Image, "nats:") {
			continue
		}
		i := slices.Index(s.Command, "--config")
		if i < 0 || i+1 == len(s.Command) {
			t.Fatalf("%s: no --config in %q", name, s.Command)
		}
		conf, ok := strings.CutPrefix(s.Command[i+1], "/etc/nats/")
		if !ok || !slices.Contains(s.Volumes, "./deploy/nats:/etc/nats:ro") {
			t.Fatalf("%s: reads %s, which is not from the mounted deploy/nats", name, s.Command[i+1])
		}
		out[name] = filepath.Join("..", "..", "deploy", "nats", conf)
	}
	return out
}

// deployConfigs copies deploy/nats into a temporary directory with the
// trust of new security material in auth/resolver.conf, as the compose
// file's auth service writes it, and returns the directory and the
// material.
func deployConfigs(t *testing.T) (string, *auth.Material) {
	t.Helper()
	dir := t.TempDir()
	m, err := auth.Ensure(filepath.Join(dir, "material"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "deploy", "nats", "*.conf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no configuration in deploy/nats: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "resolver.conf"), []byte(m.ServerConfig()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// TestDeployConfigsParse reads every NATS configuration in deploy/ with
// nats-server's own parser, with the trust the compose file's auth service
// writes, and checks they form one 3-server JetStream cluster that trusts
// only Toolstream's operator and configures no user.
func TestDeployConfigsParse(t *testing.T) {
	cf := readCompose(t)
	servers := natsServices(t, cf)
	if len(servers) != 3 {
		t.Fatalf("%d NATS services in docker-compose.yml, want 3", len(servers))
	}
	dir, m := deployConfigs(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.conf"))
	for _, f := range files {
		o, err := server.ProcessConfigFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !o.JetStream || o.Cluster.Name != "toolstream" || len(o.Routes) != 3 || o.Cluster.Port != 6222 {
			t.Errorf("%s: jetstream %v, cluster %q on %d with %d routes; want one 3-route JetStream cluster", f, o.JetStream, o.Cluster.Name, o.Cluster.Port, len(o.Routes))
		}
		if len(o.TrustedOperators) != 1 || o.SystemAccount != m.SystemPublicKey() || o.AccountResolver == nil {
			t.Errorf("%s: %d trusted operators, system account %q: want Toolstream's operator and its system account", f, len(o.TrustedOperators), o.SystemAccount)
		}
		if len(o.Users) != 0 || len(o.Nkeys) != 0 || o.NoAuthUser != "" || len(o.Accounts) != 0 {
			t.Errorf("%s: users, accounts or a no-auth user configured beside the operator", f)
		}
		if o.HTTPHost != "" && o.HTTPPort != 0 {
			for _, s := range cf.Services {
				for _, p := range s.Ports {
					if strings.Contains(p, fmt.Sprint(o.HTTPPort)) {
						t.Errorf("%s: the monitoring port %d is published to the host", f, o.HTTPPort)
					}
				}
			}
		}
	}
	for name, f := range servers {
		if _, err := os.Stat(filepath.Join(dir, filepath.Base(f))); err != nil {
			t.Errorf("%s reads %s, which is not in deploy/nats", name, f)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "deploy", "nats", "auth")); err != nil {
		t.Errorf("deploy/nats/auth, the mount point of the servers' trust, is missing: %v", err)
	}
}

// built records that a test asked for the binary (TestMain removes it).
var built atomic.Bool

// toolstreamBinary builds ./cmd/toolstream once per test binary.
var toolstreamBinary = sync.OnceValues(func() (string, error) {
	built.Store(true)
	dir, err := os.MkdirTemp("", "toolstream-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "toolstream")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/toolstream")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// runHelp runs the binary with args and --help: cobra parses every flag
// before it shows help, so an unknown flag or a flag of another command
// fails.
func runHelp(t *testing.T, args []string) (string, error) {
	t.Helper()
	bin, err := toolstreamBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, append(slices.Clone(args), "--help")...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// roleOf is the role a compose service's components need.
func roleOf(command []string) auth.Role {
	switch command[0] {
	case "auth":
		return ""
	case "setup":
		return auth.RoleAdmin
	}
	i := slices.Index(command, "--components")
	if i < 0 || i+1 == len(command) {
		return auth.RoleAdmin
	}
	switch strings.Split(command[i+1], ",")[0] {
	case "executor":
		return auth.RoleExecutor
	case "verifier":
		return auth.RoleVerifier
	case "memory":
		return auth.RoleMemory
	case "runs":
		return auth.RoleRuns
	case "keys":
		return auth.RoleKeyring
	}
	return auth.RoleAssembler
}

// TestComposeServicesAcceptTheirCommandLines runs every Toolstream
// service's command line from docker-compose.yml through the binary's flag
// parser, checks the components it names exist, that it logs in with the
// credentials of its role from the volume the auth service writes them to
// (and mounts no other role's), that every component runs in some service;
// and that the service running the assembler reads a tools file (--tools)
// the repository ships and the registry parser accepts.
func TestComposeServicesAcceptTheirCommandLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	cf := readCompose(t)
	if _, err := runHelp(t, []string{"serve", "--no-such-flag", "x"}); err == nil {
		t.Fatal("an unknown flag passed: this check would check nothing")
	}
	servers := natsServices(t, cf)
	authService, ok := cf.Services["auth"]
	if !ok || len(authService.Command) < 2 || authService.Command[0] != "auth" || authService.Command[1] != "init" {
		t.Fatal("no auth service running toolstream auth init")
	}
	want := []string{"assembler", "auth", "executor-1", "executor-2", "keys", "memory", "runs", "setup", "verifier"}
	var got []string
	running := map[string]bool{} // components some service runs
	for name, s := range cf.Services {
		if s.Build == nil {
			continue
		}
		got = append(got, name)
		if i := slices.Index(s.Command, "--components"); i >= 0 && i+1 < len(s.Command) {
			for _, c := range strings.Split(s.Command[i+1], ",") {
				running[c] = true
			}
		}
		t.Run(name, func(t *testing.T) {
			help, err := runHelp(t, s.Command)
			if err != nil {
				t.Fatalf("toolstream %s: %v\n%s", strings.Join(s.Command, " "), err, help)
			}
			role := roleOf(s.Command)
			if role == "" {
				return // the auth service itself
			}
			flag := func(f string) string {
				i := slices.Index(s.Command, f)
				if i < 0 || i+1 == len(s.Command) {
					t.Fatalf("no %s in %q", f, s.Command)
				}
				return s.Command[i+1]
			}
			if i := slices.Index(s.Command, "--components"); i >= 0 {
				for _, c := range strings.Split(flag("--components"), ",") {
					if !strings.Contains(help, c) {
						t.Errorf("component %q is not one serve knows:\n%s", c, help)
					}
					// A projection's digest and dump are answered only by
					// the role that runs it (replay, an erasure's wait).
					if views, _ := auth.ViewsOf(role); slices.Contains(stack.Names(), c) && !slices.Contains(views, c) {
						t.Errorf("runs the projection %s as %s, which may not answer its views (it answers %v)", c, role, views)
					}
				}
			}
			for _, u := range strings.Split(flag("--nats-url"), ",") {
				host, _, _ := strings.Cut(strings.TrimPrefix(u, "nats://"), ":")
				if _, ok := servers[host]; !ok {
					t.Errorf("--nats-url names %s, not a NATS service", u)
				}
			}
			// Its credentials: the role's volume, which the auth service
			// fills, mounted read-only; no other role's volume.
			creds := flag("--creds")
			volume := "creds-" + string(role)
			mounted := false
			for _, v := range s.Volumes {
				parts := strings.Split(v, ":")
				if strings.HasPrefix(parts[0], "creds-") && parts[0] != volume {
					t.Errorf("mounts %s, another role's credentials", parts[0])
				}
				if parts[0] == volume && len(parts) == 3 && parts[2] == "ro" && filepath.Dir(creds) == parts[1] {
					mounted = true
				}
			}
			if !mounted {
				t.Errorf("--creds %s is not in the read-only volume %s", creds, volume)
			}
			if !slices.Contains(authService.Volumes, volume+":/out/creds/"+string(role)) {
				t.Errorf("the auth service does not write %s's credentials into %s", role, volume)
			}
			if slices.Contains(strings.Split(strings.Join(s.Command, ","), ","), "assembler") && s.Command[0] == "serve" {
				checkToolsFile(t, s, flag("--tools"))
			}
		})
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Toolstream services %v, want %v", got, want)
	}
	for _, c := range []string{"ingest", "assembler", "responses", "clock", "executor", "verifier", "memory", "runs", "runs-calls", "keys"} {
		if !running[c] {
			t.Errorf("no service runs %s", c)
		}
	}
}

// checkToolsFile checks that a service's --tools file comes from a
// directory of the repository the service mounts read-only, and that it
// parses as a tool registry.
func checkToolsFile(t *testing.T, s composeService, path string) {
	t.Helper()
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) != 3 || parts[2] != "ro" || !strings.HasPrefix(parts[0], "./") {
			continue
		}
		rel, ok := strings.CutPrefix(path, strings.TrimSuffix(parts[1], "/")+"/")
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", "..", parts[0], rel))
		if err != nil {
			t.Fatalf("--tools %s: %v", path, err)
		}
		if _, err := registry.Parse(data); err != nil {
			t.Fatalf("--tools %s (%s): %v", path, filepath.Join(parts[0], rel), err)
		}
		return
	}
	t.Fatalf("--tools %s is not in a directory of the repository the service mounts read-only (%q)", path, s.Volumes)
}
