package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/keys"
)

// Which commands take which flags beyond the root's (--data, --log-*),
// by command path. Commands share the flags' variables (globals): a flag
// defined on several commands has one default.
var (
	// connecting are the commands that reach a running server (or, serve,
	// run it; setup, create its log).
	connecting = []string{"serve", "setup", "publish", "calls", "approve", "deny", "trace", "verdicts", "runs", "history",
		"memory message", "memory observe", "memory recall", "memory list", "memory history", "memory correct", "memory forget",
		"forget", "keys backup", "keys restore", "tools export", "tools search", "replay"}
	// registryTrusting read the registry from the log, taking the changes
	// signed by --registry-trust.
	registryTrusting = []string{"serve", "replay", "tools export", "tools search"}
)

// commandFlags gives each command under root the flags that apply to it.
func (g *globals) commandFlags(root *cobra.Command) {
	byPath := map[string]*cobra.Command{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		byPath[c.CommandPath()] = c
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	cmd := func(path string) *cobra.Command {
		c := byPath["toolstream "+path]
		if c == nil {
			panic("flags for a command that does not exist: " + path)
		}
		return c
	}
	for _, path := range connecting {
		g.connFlags(cmd(path), path == "serve")
	}
	for _, path := range registryTrusting {
		cmd(path).Flags().StringVar(&g.registryTrustFiles, "registry-trust", "", "public keys whose registry changes take effect (PEM files, comma-separated; default --data/auth/registry.pub)")
	}
	for _, path := range []string{"serve", "auth init"} {
		cmd(path).Flags().StringVar(&g.registryKeyFile, "registry-key", "", "key that signs registry changes (PEM PKCS #8 ed25519; default --data/auth/registry.key, made by serve --tools when missing)")
	}
	for _, path := range []string{"serve", "setup"} {
		f := cmd(path).Flags()
		f.DurationVar(&g.rawRetention, "raw-retention", 24*time.Hour, "how long the log keeps raw provider events (plaintext) in TS_IN, long enough for ingest to read them")
		f.IntVar(&g.replicas, "replicas", 0, "stream replicas (0: 1 embedded, 3 on a cluster of 3 or more)")
		f.IntVar(&g.partitions, "partitions", 0, fmt.Sprintf("model subject partitions, one active assembler each (0: keep the log's setting, none on a new log; at most %d)", bus.PartitionsMax))
	}
	f := cmd("serve").Flags()
	f.StringVar(&g.sync, "sync", "", `embedded server flush policy: "" (every 2 minutes, the server default), "always", or a duration`)
	f.StringVar(&g.tlsCert, "tls-cert", "", "the embedded server's TLS certificate (PEM); clients then need --tls-ca")
	f.StringVar(&g.tlsKey, "tls-key", "", "the embedded server's TLS private key (PEM)")
	f.BoolVar(&g.plaintext, "allow-plaintext", false, "let the embedded server listen on a non-loopback address without TLS")
	f.IntVar(&g.keysUserMax, "keys-user-max", keys.DefaultUserKeysMax, "user keys made for one tenant (its producers' and what the processors seal for it); past it a new user's key is refused (507) until an erasure frees one")
	f.IntVar(&g.keysRecordMax, "keys-record-max", keys.DefaultRecordKeysMax, "memory record keys made for one user (each record's text is sealed under its own); past it a new record is refused (507) until a forget frees one")
}

// defaultListen is serve's client address unless --listen says another.
const defaultListen = "127.0.0.1:4222"

// listenAddr is --listen, or the default. (Every command that takes the
// flag shares the variable, and pflag sets a flag's default when it is
// defined: the default is given here, once.)
func (g *globals) listenAddr() string {
	if g.listen == "" {
		return defaultListen
	}
	return g.listen
}

// connFlags are the flags of a command that reaches a server: where, and
// as whom.
func (g *globals) connFlags(c *cobra.Command, serve bool) {
	f := c.Flags()
	if serve {
		f.StringVar(&g.listen, "listen", "", "client address of the embedded NATS server (default "+defaultListen+"; 127.0.0.1:-1: any free port, which commands find through --data)")
		f.StringVar(&g.natsURL, "nats-url", "", "use this NATS server or cluster (comma-separated URLs) instead of the embedded one")
		f.StringVar(&g.creds, "creds", "", "NATS credentials file (toolstream creds) to connect to --nats-url with; default: the admin of --data/auth")
	} else {
		f.StringVar(&g.listen, "listen", "", "address of the running serve (default: the one serve recorded in --data, else "+defaultListen+")")
		f.StringVar(&g.natsURL, "nats-url", "", "the NATS server or cluster to work against (comma-separated URLs) instead of serve's")
		f.StringVar(&g.creds, "creds", "", "NATS credentials file (toolstream creds ROLE --out FILE); default: the least role the command needs, from --data/auth")
	}
	f.StringVar(&g.user, "nats-user", "", "NATS user name and password (--nats-password), for a server that takes them; --user is the end user of the commands that act on one")
	f.StringVar(&g.password, "nats-password", "", "NATS password (with --nats-user)")
	f.StringVar(&g.tlsCA, "tls-ca", "", "CA certificate (PEM) that signed the server's TLS certificate")
}
