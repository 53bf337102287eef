package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/console"
)

// consoleKeyFile signs the console's sign-in tokens; consoleURLFile says
// where the console of this --data listens (console-token reads both).
const (
	consoleKeyFile = "console.key"
	consoleURLFile = "console.url"
)

// consoleFlag adds serve's --console ADDR flag.
func consoleFlag(cmd *cobra.Command, addr *string) {
	cmd.Flags().StringVar(addr, "console", "", "serve the web console on ADDR (e.g. 127.0.0.1:8080); sign in with the URL `toolstream console-token` prints. "+
		"With --metrics at the same ADDR one listener carries /metrics and /healthz too; off loopback it needs --tls-cert/--tls-key (or --allow-plaintext)")
}

func consoleTokenCmd(g *globals) *cobra.Command {
	var tenant, role, base string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "console-token [--tenant T] [--role operator|reader]",
		Short: "Print a one-time sign-in URL for the web console (serve --console)",
		Long: `console-token prints a URL that signs a browser in to the console of the serve running on this
--data, once, when the page it opens is sent with Sign in (the token is after #, never sent by the
browser; opening the link alone signs nobody in): the token in it is signed with --data/auth/console.key (made by serve --console),
expires after --ttl and is refused a second time. The session it opens has the role given
(operator: sees every tenant, approves, denies, corrects and forgets; reader: sees, changes
nothing) and, with --tenant, sees that tenant only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// What was asked is checked before what is on --data: a
			// mistyped --role exited 1 naming a missing key.
			grant := console.Grant{Role: auth.Role(role), Tenant: tenant}
			if err := grant.Validate(); err != nil {
				return badInput("%w", err)
			}
			if ttl <= 0 {
				return badInput("--ttl %s: want a duration above zero, such as 10m", ttl)
			}
			key, err := console.LoadKey(filepath.Join(g.authDir(), consoleKeyFile), false)
			if errors.Is(err, console.ErrNoKey) {
				return g.noConsoleYet(err) // no serve --console has run on --data
			}
			if err != nil {
				return err
			}
			if base == "" {
				data, err := os.ReadFile(filepath.Join(g.data, consoleURLFile))
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				// An empty file is no address (a serve of an older build
				// wrote it in two steps; one read between them saw it empty):
				// a sign-in URL without a host helps nobody.
				if base = strings.TrimSpace(string(data)); base == "" {
					return g.noConsoleYet(fmt.Errorf("no console has run on --data %s (serve --console ADDR), or give --url", g.data))
				}
			}
			tok, err := console.Mint(key, grant, time.Now().Add(ttl))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(g.stdout, "%s/signin#token=%s\n", strings.TrimRight(base, "/"), url.QueryEscape(tok))
			return err
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "sign in a viewer of this tenant only (default: every tenant)")
	cmd.Flags().StringVar(&role, "role", string(auth.RoleOperator), "operator (may act) or reader (sees only)")
	cmd.Flags().StringVar(&base, "url", "", "the console's address (default: what the serve on --data wrote to --data/"+consoleURLFile+")")
	cmd.Flags().DurationVar(&ttl, "ttl", 10*time.Minute, "how long the link may be used (once)")
	return cmd
}

// noConsoleYet is err, the console's key or address missing from --data,
// as no server (exit 5), saying what holds --data if anything does: a
// serve --console writes them as its console starts, and console-token
// run while one was starting said only "serve --console makes it"
// (review rev15).
// A serve that recorded its address is up, and wrote the console's before
// it: one with neither runs without a console (it said "try again in a
// moment", which never helped).
func (g *globals) noConsoleYet(err error) error {
	if h, held := dataHeld(g.data); held {
		if _, up := readServerRecord(g.data); up {
			err = fmt.Errorf("%w; %s on --data %s runs without a console: stop it (Ctrl-C) and start it with serve --console ADDR", err, h, g.data)
		} else {
			err = fmt.Errorf("%w; %s holds --data %s: a serve --console writes them as its console starts, so try again in a moment", err, h, g.data)
		}
	}
	return &exitError{exitUnavailable, err}
}
