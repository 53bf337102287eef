package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/stack"
)

func credsCmd(g *globals) *cobra.Command {
	var tenant, out string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "creds ROLE",
		Short: "Write a NATS .creds file for a role (" + fmt.Sprint(auth.Roles) + ")",
		Long: `creds issues a user of one role, signed with the security material in --data/auth (made by
the first serve, or by auth init), and writes it as a .creds file readable by its owner only.
The stock nats CLI and every NATS client library accept it. Every role but admin and sys
receives replies on an inbox prefix of its own, which clients must use: the toolstream
commands take it from the file; the nats CLI needs --inbox-prefix (printed on stderr).

  producer  --tenant T: publish only ts.in.T.>, read (live) only T's calls, results,
            response outcomes, verdicts and previews
  assembler ingest, assembler and partitions, responses, clock; records the registry
  executor  runs calls; its bucket ts_exec and object store ts_results
  verifier  checks answers       memory   keeps memory, answers tsv.memory
  operator  approvals, memory writes and erasure, views, reads the log
  reader    reads the log, the views and raw results; writes nothing
  admin     everything: creates, updates, purges and deletes the log and buckets
  sys       the system account: server monitoring (nats server report)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput("--out: give the file to write (or - for standard output)")
			}
			// The role asked for is checked before --data's material: a
			// mistyped role was "no security material", or exited 1.
			role := auth.Role(args[0])
			if !slices.Contains(auth.Roles, role) {
				return badInput("%w: %q (want one of %v)", auth.ErrUnknownRole, role, auth.Roles)
			}
			if role == auth.RoleProducer && tenant == "" {
				return badInput("creds producer needs --tenant T: a producer publishes for one tenant")
			}
			m, err := auth.Load(g.authDir())
			if err != nil {
				return fmt.Errorf("%w (run toolstream serve or toolstream auth init with this --data first)", err)
			}
			u, err := m.Issue(auth.Identity{Role: role, Tenant: tenant}, ttl)
			if err != nil {
				return err
			}
			data, err := u.Creds()
			if err != nil {
				return err
			}
			if out == "-" {
				_, err = g.stdout.Write(data)
			} else {
				err = auth.WritePrivate(out, data)
			}
			if err != nil {
				return err
			}
			if p := u.Identity.InboxPrefix(); p != "_INBOX" {
				fmt.Fprintf(g.stderr, "%s: inbox prefix %s (nats CLI: --inbox-prefix %s)\n", u.Identity, p, p)
			}
			if u.Identity.Role == auth.RoleProducer {
				// Its tenant's ingress stream, on a log with per-tenant
				// streams: made now on a running serve, else by the next.
				log, err := g.logger()
				if err != nil {
					return err
				}
				made, err := g.ensureTenant(cmd.Context(), log, tenant)
				if err != nil {
					return fmt.Errorf("the credential is written, but tenant %s's ingress stream was not made (toolstream serve makes it when it starts; on a cluster, toolstream setup --tenants %s): %w", tenant, tenant, err)
				}
				if made {
					fmt.Fprintf(g.stderr, "tenant %s: ingress stream %s ready\n", tenant, bus.TenantStream(tenant))
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "the producer's tenant")
	cmd.Flags().StringVar(&out, "out", "", "file to write (mode 0600), or - for standard output")
	cmd.Flags().DurationVar(&ttl, "expires", 0, "validity of the user (0: no expiry)")
	return cmd
}

func authCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "auth", Short: "The installation's NATS security material"}
	var natsConfig, credsDir string
	var tenants string
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "Create the security material in --data/auth; write a server configuration and creds for a cluster",
		Long: `auth init creates the operator, accounts and registry signing key in --data/auth (owner-only
files) unless they exist, as the first serve does; what exists is kept, and said. For an external server or cluster,
--nats-config writes the configuration fragment every server includes (operator, system
account, account resolver), and --creds-dir writes one directory per role, each holding
only what that role's processes need: <role>/nats.creds and registry.pub, and the
registry signing key registry.key for the assembler (it records the tools file); one
producers/<tenant>/nats.creds per --tenants entry.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			// What is there already is kept (serve and every credential
			// issued from it go on working) and said, never made again.
			dir := g.authDir()
			_, lerr := auth.Load(dir)
			keyPath, _ := g.registryKeyPath()
			_, kerr := os.Stat(keyPath)
			m, err := auth.Ensure(dir)
			if err != nil {
				return err
			}
			k, err := g.signingKey(log, true)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			material, key := "created the security material in", "created the registry signing key"
			if lerr == nil {
				material = "kept the security material already in"
			}
			if kerr == nil {
				key = "kept the registry signing key"
			}
			fmt.Fprintf(out, "%s %s (account %s)\n%s %s (key id %s)\n", material, dir, m.AccountPublicKey(), key, keyPath, k.KeyID())
			if lerr == nil && kerr == nil {
				fmt.Fprintf(out, "made nothing new: to start anew, stop every server and remove %s (every credential issued from it stops working)\n", dir)
			}
			if natsConfig != "" {
				if err := os.WriteFile(natsConfig, []byte(m.ServerConfig()), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(out, "wrote the servers' configuration fragment %s\n", natsConfig)
			}
			if credsDir == "" {
				return nil
			}
			priv, err := os.ReadFile(keyPath)
			if err != nil {
				return err
			}
			pub, err := os.ReadFile(filepath.Join(g.authDir(), "registry.pub"))
			if err != nil {
				return err
			}
			if err := m.WriteRoleDirs(credsDir, splitList(tenants), pub, priv); err != nil {
				return err
			}
			fmt.Fprintf(out, "wrote each role's credentials under %s\n", credsDir)
			return nil
		},
	}
	initCmd.Flags().StringVar(&natsConfig, "nats-config", "", "write the nats-server configuration fragment here")
	initCmd.Flags().StringVar(&credsDir, "creds-dir", "", "write each role's creds (and registry keys) into a directory of its own here")
	initCmd.Flags().StringVar(&tenants, "tenants", "", "comma-separated tenants to write producer creds for (with --creds-dir)")
	cmd.AddCommand(initCmd)
	return cmd
}

func setupCmd(g *globals) *cobra.Command {
	var tenantStreams bool
	var tenants string
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Create or update the log and the buckets (as the admin identity; once per cluster)",
		Long: `setup creates the log's stream TOOLSTREAM (or updates its replicas and partitions when
--replicas or --partitions say so), the executors' bucket ts_exec and object store
ts_results, the lease bucket ts_leases, and every processor's durable consumer (ts-executor,
ts-verifier, ts-assembler-p<N>…), then exits. Only the admin identity may; the
processors' roles only open them. serve on one machine does it by itself.

A new log starts on per-tenant ingress streams (docs/security.md, "The fix for all three"):
TS_IN and TS_MODEL take each tenant's ts.in and ts.model subjects from TS_ING_<tenant>.
--tenants makes those streams for the tenants named (a tenant's producers can publish only
once its stream exists); give it again for each new tenant. A log made before, on the shared
layout, keeps it until --tenant-streams moves it: TS_IN and TS_MODEL keep what they stored,
and the stream of every tenant their subjects hold, every tenant recorded in --data and every
one --tenants names is made. The layout sticks: later opens without the flag keep it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			var opts []nats.Option
			if g.natsURL == "" { // the embedded server on --data: setup owns it meanwhile
				release, err := lockData(g.data, "setup")
				if err != nil {
					return err
				}
				defer release()
			} else if opts, err = g.natsOptions(asAdmin); err != nil {
				return err
			}
			cfg := g.busConfig(log, g.data, "127.0.0.1:-1", g.natsURL, opts)
			// A new --data starts on per-tenant streams; a cluster's log
			// only with --tenant-streams (its tenants' streams are made by
			// setup --tenants, which its operator must run for each).
			cfg.TenantStreams, cfg.NewLogTenantStreams = tenantStreams, g.natsURL == ""
			b, err := bus.Open(ctx, cfg) // without the data keys: Setup makes their bucket
			if err != nil {
				return err
			}
			defer b.Close()
			if err := cluster.Setup(ctx, b, log); err != nil {
				return err
			}
			list := splitList(tenants)
			if len(list) > 0 && !b.TenantStreams() {
				return fmt.Errorf("--tenants: the log takes every tenant's ingress in its shared streams; give --tenant-streams to move it to per-tenant streams")
			}
			if tenantStreams {
				// Moving a log: every tenant it holds, or a credential
				// was issued for here, needs its stream to publish again.
				stored, err := b.StoredTenants(ctx)
				if err != nil {
					return err
				}
				recorded, err := g.recordedTenants()
				if err != nil {
					return err
				}
				for _, t := range slices.Concat(stored, recorded) {
					if !slices.Contains(list, t) {
						list = append(list, t)
					}
				}
			}
			for _, t := range list {
				if err := b.EnsureTenant(ctx, t); err != nil {
					return err
				}
			}
			// Every processor's durable consumer: the roles only bind them.
			return stack.CreateConsumers(ctx, b, log)
		},
	}
	cmd.Flags().BoolVar(&tenantStreams, "tenant-streams", false, "move a log of the shared layout to per-tenant ingress streams (TS_ING_<tenant>, sourced by TS_IN and TS_MODEL), making the stream of every tenant it holds")
	cmd.Flags().StringVar(&tenants, "tenants", "", "comma-separated tenants whose ingress streams to make (with per-tenant streams)")
	return cmd
}
