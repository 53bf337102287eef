// Command toolstream is the one binary: serve the backbone, publish provider
// streams, watch calls, replay projections, and the one-shot tools.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/trace"
)

// globals are the flags every command shares.
type globals struct {
	data          string
	listen        string
	natsURL       string
	sync          string
	replicas      int
	partitions    int
	logFormat     string
	logLevel      string
	creds         string
	user          string
	password      string
	tlsCert       string
	tlsKey        string
	tlsCA         string
	plaintext     bool
	rawRetention  time.Duration
	keysUserMax   int
	keysRecordMax int
	listenSet     bool // --listen was given
	logLevelSet   bool // --log-level was given
	stderr        io.Writer
	stdout        io.Writer

	registryKeyFile, registryTrustFiles string // registrykeys.go
}

func main() {
	ownerOnlyUmask() // before anything is created: --data stays owner-only
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(os.Stdout, os.Stderr)
	cmd, err := execute(ctx, root)
	if err != nil && !stoppedAsAsked(ctx, cmd, err) {
		fmt.Fprintln(os.Stderr, "toolstream:", userMessage(err))
		os.Exit(exitCode(err))
	}
}

// execute runs root with the process's arguments and turns cobra's
// "unknown command" (a mistyped command, or an argument to a command that
// takes none) into bad input, exit code 4, that points at --help.
func execute(ctx context.Context, root *cobra.Command) (*cobra.Command, error) {
	cmd, err := root.ExecuteContextC(ctx)
	return cmd, commandError(cmd, err)
}

// stoppedAsAsked reports whether err is only a server's setup cut short by
// the signal that asked it to stop (serve stopped during its first second
// failed with "context canceled"): stopping when asked is success.
func stoppedAsAsked(ctx context.Context, cmd *cobra.Command, err error) bool {
	return ctx.Err() != nil && errors.Is(err, context.Canceled) && cmd != nil && cmd.Name() == "serve"
}

// exitError carries a specific exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Exit codes, for scripts: 1 for any failure not listed here.
const (
	exitDiffers     = 2 // replay --verify, --diff: the rebuilt view differs from the live one
	exitNotFound    = 3 // what was named is not there (a call, a record, a run)
	exitBadInput    = 4 // the input or an argument cannot be used as given
	exitUnavailable = 5 // no server where the command looked, or it refused the command's identity
	exitConflict    = 6 // already done or held elsewhere: an approval already decided, a record already forgotten, a --data in use
	exitCutShort    = 7 // a publish stopped part way: what the log acknowledged is kept; run it again to resume
)

// exitCode is err's exit code: an exitError's, else by the client's
// sentinels and errNoServer, else 1.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, client.ErrNotFound) || errors.Is(err, trace.ErrNotFound):
		return exitNotFound
	case errors.Is(err, client.ErrBadInput) || errors.Is(err, events.ErrInvalidTenant) || errors.Is(err, stack.ErrUnknown) ||
		errors.Is(err, auth.ErrUnknownRole) || // creds ROLE, --role
		errors.Is(err, gateway.ErrConfig) || // the gateway's config or keys file
		errors.Is(err, fs.ErrNotExist): // a file the user named
		return exitBadInput
	case errors.Is(err, client.ErrAlreadyDecided) || errors.Is(err, errDataInUse):
		return exitConflict
	case errors.Is(err, errNoServer) || errors.Is(err, client.ErrPermissionDenied) || errors.Is(err, client.ErrUnavailable) ||
		errors.Is(err, nats.ErrNoServers): // --nats-url where no server answers (setup)
		return exitUnavailable
	}
	return 1
}

// badInput is an error in the user's input: exit code 4.
func badInput(format string, args ...any) error {
	return &exitError{exitBadInput, fmt.Errorf(format, args...)}
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "toolstream",
		Short: "Toolstream: the durable backbone between a model that streams tool calls and the tools that run them",
		Long: `Toolstream is an event-sourced stream processor over NATS JetStream. Producers publish a model's
streaming events; the assembler turns them into complete, validated calls; executors run them
under leases, idempotency and an outbox; the verifier checks final answers against tool evidence;
memory keeps long-term memory. Every view is a projection of the log and can be rebuilt by replay.

By default everything runs on one machine: an embedded NATS server with JetStream files and
Pebble views in --data. Use --nats-url to work against an external server or cluster.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout) // --version and --help print here
	root.Version = "-"  // --version: what `toolstream version` prints
	root.SetVersionTemplate(strings.ReplaceAll(versionOf(debug.ReadBuildInfo()).String(), "{{", "{{`{{`}}"))
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		g.listenSet = cmd.Flags().Changed("listen")
		g.logLevelSet = cmd.Flags().Changed("log-level")
		if oneShot(cmd) {
			if !cmd.Flags().Changed("log-level") {
				g.logLevel = "warn" // its own server's INFO lines are noise to a one-shot's user
			}
			// A one-shot runs on a scratch server of its own and never
			// touches --data; one given the --data of a live process was
			// most likely meant for that process: say so, and do nothing.
			if cmd.Flags().Changed("data") {
				if h, held := dataHeld(g.data); held {
					return &exitError{exitConflict, fmt.Errorf("--data %s is in use by %s; %s runs on a scratch server of its own and takes no --data",
						g.data, h, cmd.CommandPath())}
				}
			}
		}
		return undumpableHook(cmd, args) // every command: undumpable.go
	}
	// Only the flags every command takes are the root's; the others are
	// given to the commands they apply to (commandFlags).
	pf := root.PersistentFlags()
	pf.StringVar(&g.data, "data", "./toolstream-data", "data directory: JetStream files (nats/), projection views (views/), security material (auth/)")
	pf.StringVar(&g.logFormat, "log-format", "text", "log format: text or json")
	pf.StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn, error (one-shot commands — assemble, verify, memory run, demo — default to warn)")
	root.AddGroup(
		&cobra.Group{ID: "start", Title: "Start:"},
		&cobra.Group{ID: "calls", Title: "Calls (against a running serve):"},
		&cobra.Group{ID: "memory", Title: "Memory and erasure (against a running serve):"},
		&cobra.Group{ID: "log", Title: "The log, its views and the registry:"},
		&cobra.Group{ID: "oneshot", Title: "One-shot (a scratch server of their own):"},
		&cobra.Group{ID: "admin", Title: "Security and clusters:"},
	)
	for group, cmds := range map[string][]func(*globals) *cobra.Command{ // every command, in one place
		"start":   {serveCmd, demoCmd, versionCmd},
		"calls":   {publishCmd, callsCmd, approveCmd, denyCmd, traceCmd, verdictsCmd, runsCmd, historyCmd},
		"memory":  {memoryCmd, forgetCmd},
		"log":     {replayCmd, toolsCmd, keysCmd},
		"oneshot": {assembleCmd, verifyCmd, benchCmd},
		"admin":   {credsCmd, authCmd, setupCmd, consoleTokenCmd},
	} {
		for _, cmd := range cmds {
			c := cmd(g)
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	g.commandFlags(root)
	groupsRefuseArguments(root)
	return root
}

// groupsRefuseArguments makes each command that only groups others
// (memory, tools, keys, auth) refuse an argument that names none of them
// ("memory mesage x" printed the help and exited 0) and print its help
// when given none, as before.
func groupsRefuseArguments(root *cobra.Command) {
	for _, c := range root.Commands() {
		groupsRefuseArguments(c)
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return unknownCommand(cmd, args[0])
				}
				return cmd.Help()
			}
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[groupAnnotation] = "true"
		}
	}
}

// groupAnnotation marks a command that only groups others.
const groupAnnotation = "toolstream.group"

// oneShot reports whether cmd is a one-shot command: it runs its own
// embedded server in a temporary directory and prints its result.
func oneShot(cmd *cobra.Command) bool {
	switch cmd.CommandPath() {
	case "toolstream assemble", "toolstream verify", "toolstream memory run", "toolstream demo":
		return true
	}
	return false
}

func (g *globals) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(g.logLevel)); err != nil {
		return nil, badInput("--log-level %q: %w", g.logLevel, err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch g.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(g.stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(g.stderr, opts)), nil
	}
	return nil, badInput("--log-format %q: want text or json", g.logFormat)
}

// natsOptions are the connection options of identity id as the flags
// give it: --creds (the file must exist: a mistyped one is named, not
// taken for no creds), else --nats-user/--nats-password, else id issued
// with the security material in --data/auth when there is one (none: no
// credentials, which a server of ours refuses); and --tls-ca.
func (g *globals) natsOptions(id auth.Identity) ([]nats.Option, error) {
	var opts []nats.Option
	switch {
	case g.creds != "":
		if _, err := os.Stat(g.creds); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, badInput("--creds %s: no such file (toolstream creds ROLE --out FILE writes one; or leave --creds out to act with --data's material)", g.creds)
			}
			return nil, fmt.Errorf("--creds: %w", err)
		}
		opts = auth.CredsOptions(g.creds)
	case g.user != "":
		opts = append(opts, nats.UserInfo(g.user, g.password))
	default:
		m, err := auth.Load(g.authDir())
		if err != nil && !errors.Is(err, auth.ErrNoMaterial) {
			return nil, err
		}
		if m != nil {
			u, err := m.Issue(id, 0)
			if err != nil {
				return nil, err
			}
			opts = u.Options()
		}
	}
	if g.tlsCA != "" {
		opts = append(opts, nats.RootCAs(g.tlsCA))
	}
	return opts, nil
}

// authDir holds the installation's NATS security material.
func (g *globals) authDir() string { return filepath.Join(g.data, "auth") }

// busConfig is the bus the flags describe: with url "" the embedded
// server on dataDir at listen, else the server at url with opts.
func (g *globals) busConfig(log *slog.Logger, dataDir, listen, url string, opts []nats.Option) bus.Config {
	cfg := bus.Config{DataDir: dataDir, Listen: listen, NATSURL: url, Sync: g.sync, Replicas: g.replicas,
		Partitions: g.partitions, RawRetention: g.rawRetention, Logger: log, Name: "toolstream",
		TLSCert: g.tlsCert, TLSKey: g.tlsKey, AllowPlaintext: g.plaintext, Options: opts,
		KeysUserMax: g.keysUserMax, KeysRecordMax: g.keysRecordMax}
	if url != "" {
		cfg.MsgIDKey = g.msgIDKey()
	}
	return cfg
}

// msgIDKey is the message-id key (events.MsgID) of the identity the flags
// name: derived from --creds' seed, else from --data's material (the key
// serve's own components use); nil for --nats-user or no material (the
// bus or client then makes a random one).
func (g *globals) msgIDKey() []byte {
	switch {
	case g.creds != "":
		if k, err := auth.CredsMsgIDKey(g.creds); err == nil {
			return k
		}
		return nil
	case g.user != "":
		return nil
	}
	if m, err := auth.Load(g.authDir()); err == nil {
		return m.MsgIDKey()
	}
	return nil
}

// openEmbedded starts the embedded server on dataDir (serve, setup,
// replay --offline: each holds dataDir's lock first), or with --nats-url
// connects to that server as id.
func (g *globals) openEmbedded(ctx context.Context, log *slog.Logger, dataDir, listen string, id auth.Identity) (*bus.Bus, error) {
	var opts []nats.Option
	if g.natsURL != "" {
		var err error
		if opts, err = g.natsOptions(id); err != nil {
			return nil, err
		}
	}
	cfg := g.busConfig(log, dataDir, listen, g.natsURL, opts)
	if g.natsURL != "" {
		cfg.Identity = g.identityOf(id)
	} else {
		// A new --data starts on per-tenant ingress streams; an existing
		// one keeps its layout (setup --tenant-streams moves it).
		cfg.NewLogTenantStreams = true
	}
	return bus.OpenWithKeys(ctx, cfg)
}

// identityOf is the identity a connection made with natsOptions(id) has,
// when it is known: the one --creds holds, else id when --data holds the
// material; the zero Identity for --nats-user or a server without
// Toolstream's material. bus.OpenWithKeys opens the data keys by it.
func (g *globals) identityOf(id auth.Identity) auth.Identity {
	switch {
	case g.creds != "":
		cid, err := auth.CredsIdentity(g.creds)
		if err != nil {
			return auth.Identity{}
		}
		return cid
	case g.user != "":
		return auth.Identity{}
	}
	if _, err := auth.Load(g.authDir()); err != nil {
		return auth.Identity{}
	}
	return id
}

// endpoint is the server a command reaches, and where that address came
// from: --nats-url; else --listen when given; else the record of the serve
// running on --data (serverFile); else the default --listen.
func (g *globals) endpoint() (url, from string) {
	if g.natsURL != "" {
		return g.natsURL, "--nats-url"
	}
	scheme := "nats://"
	if g.tlsCA != "" {
		scheme = "tls://"
	}
	if !g.listenSet {
		if r, ok := readServerRecord(g.data); ok {
			url = r.URL
			if rest, ok := strings.CutPrefix(url, "nats://"); ok && g.tlsCA != "" {
				url = scheme + rest
			}
			return url, "from " + filepath.Join(g.data, serverFile)
		}
		return scheme + g.listenAddr(), "the default --listen; no serve has recorded its address in --data " + g.data
	}
	return scheme + g.listenAddr(), "--listen"
}

// errNoServer is what a command gets when no server answers where it
// looked.
var errNoServer = errors.New("no server")

// connectTimeout bounds a command's wait for its server: a command whose
// server is not there fails in seconds.
const connectTimeout = 2 * time.Second

// dial finds the server a command works against (endpoint) and checks that
// it answers and takes identity id; it never starts one. The error says
// where it looked and what to do: start serve, or give the right --data or
// --creds.
func (g *globals) dial(id auth.Identity) (url string, opts []nats.Option, err error) {
	if err := g.checkCreds(id); err != nil {
		return "", nil, err
	}
	opts, err = g.natsOptions(id)
	if err != nil {
		return "", nil, err
	}
	url, from := g.endpoint()
	nc, err := nats.Connect(url, append(opts, nats.Timeout(connectTimeout), nats.Name("toolstream"))...)
	switch {
	case err == nil:
		nc.Close()
		return url, opts, nil
	case errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked):
		who := "this command's identity (" + string(id.Role) + " of --data " + g.data + ")"
		if g.creds != "" {
			who = "--creds " + g.creds
		} else if g.user != "" {
			who = "--nats-user " + g.user
		} else if _, lerr := auth.Load(g.authDir()); lerr != nil {
			who = "a command without credentials (--data " + g.data + " holds no security material)"
		}
		return "", nil, &exitError{exitUnavailable, fmt.Errorf("the server at %s (%s) refused %s: %w; give the --data of that serve, or --creds (toolstream creds ROLE --out FILE)",
			url, from, who, err)}
	case g.natsURL != "":
		return "", nil, fmt.Errorf("%w at %s (--nats-url): %v", errNoServer, url, err)
	}
	hint := "start one with: toolstream serve --data " + g.data
	if h, held := dataHeld(g.data); held {
		if _, recorded := readServerRecord(g.data); !recorded {
			hint = fmt.Sprintf("%s holds --data %s and has not recorded its address yet: it may still be starting", h, g.data)
		} else {
			hint = fmt.Sprintf("--data %s is held by %s: is it listening elsewhere (--listen)?", g.data, h)
		}
	} else if r, ok := readServerRecord(g.data); ok && !g.listenSet {
		from += fmt.Sprintf(", left by serve pid %d, which no longer runs", r.PID)
	}
	return "", nil, fmt.Errorf("%w at %s (%s); %s", errNoServer, url, from, hint)
}

// checkCreds refuses, before connecting, a --creds file of ours whose
// identity cannot do what the command needs (id): a producer of another
// tenant, a producer where the log is read, a reader where the operator
// acts, anything but the admin where the admin does. The server refuses
// them too, but as a permission violation on an internal subject (a data
// key's, in base64) after a timeout.
func (g *globals) checkCreds(id auth.Identity) error {
	if g.creds == "" {
		return nil
	}
	have, err := auth.CredsIdentity(g.creds)
	if err != nil || have.Role == auth.RoleAdmin {
		return nil // not a Toolstream identity: the server decides
	}
	refuse := func(why string) error {
		return &exitError{exitUnavailable, fmt.Errorf("--creds %s holds %s: %s", g.creds, describe(have), why)}
	}
	switch {
	case have.Role == auth.RoleProducer && id.Role == auth.RoleProducer && have.Tenant != id.Tenant:
		return refuse(fmt.Sprintf("it acts for tenant %s only, not %s (give --tenant %s, or %s's: toolstream creds producer --tenant %s --out FILE)",
			have.Tenant, id.Tenant, have.Tenant, id.Tenant, id.Tenant))
	case have.Role == auth.RoleProducer && id.Role != auth.RoleProducer:
		return refuse(fmt.Sprintf("this command needs %s, which a producer may not do (toolstream creds %s --out FILE, or leave --creds out to act with --data's material)",
			need(id), id.Role))
	case have.Role == auth.RoleReader && (id.Role == auth.RoleOperator || id.Role == auth.RoleAdmin),
		have.Role == auth.RoleOperator && id.Role == auth.RoleAdmin:
		return refuse(fmt.Sprintf("this command needs %s (toolstream creds %s --out FILE, or leave --creds out to act with --data's material)",
			need(id), id.Role))
	}
	return nil
}

// describe names an identity for people.
func describe(id auth.Identity) string {
	if id.Role == auth.RoleProducer {
		return "the producer of tenant " + id.Tenant
	}
	return "the " + string(id.Role) + " role"
}

// need says what a command's least identity is for.
func need(id auth.Identity) string {
	switch id.Role {
	case auth.RoleReader:
		return "the reader role (it reads the log)"
	case auth.RoleOperator:
		return "the operator role (it decides, writes memory or erases)"
	case auth.RoleAdmin:
		return "the admin role"
	}
	return describe(id)
}

// connect reaches the running server (dial) as identity id, the least
// role the command needs, and opens the log over it.
func (g *globals) connect(ctx context.Context, log *slog.Logger, id auth.Identity) (*bus.Bus, error) {
	url, opts, err := g.dial(id)
	if err != nil {
		return nil, err
	}
	cfg := g.busConfig(log, "", "", url, opts)
	cfg.Identity = g.identityOf(id)
	return bus.OpenWithKeys(ctx, cfg)
}

func (g *globals) viewDir(name string) string { return filepath.Join(g.data, "views", name) }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
