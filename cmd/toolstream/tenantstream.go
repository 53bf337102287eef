package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
)

// Per-tenant ingress streams (docs/security.md, "The fix for all three"):
// on that layout no stream takes a tenant's ts.in and ts.model subjects
// until the admin makes its stream (bus.EnsureTenant). On one machine the
// admin is --data's material, so a tenant's stream is made where its
// producer credential is issued from that material: `toolstream creds
// producer --tenant T`, and the producer commands that issue their own
// (publish, runs, without --creds). The tenant is recorded in
// --data/auth/tenants and, when a serve runs on --data, its stream made
// there at once, as the admin; serve makes the stream of every tenant
// recorded when it starts.

// tenantsFile in --data/auth lists, one a line, the tenants producer
// credentials were issued for from the material there.
const tenantsFile = "tenants"

// recordedTenants are the tenants tenantsFile lists.
func (g *globals) recordedTenants() ([]string, error) {
	f, err := os.Open(filepath.Join(g.authDir(), tenantsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, sc.Err()
}

// recordTenant adds tenant to tenantsFile unless it is there.
func (g *globals) recordTenant(tenant string) error {
	have, err := g.recordedTenants()
	if err != nil || slices.Contains(have, tenant) {
		return err
	}
	f, err := os.OpenFile(filepath.Join(g.authDir(), tenantsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, tenant); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ensureTenant records tenant and, when a serve runs on --data (or
// --nats-url or --listen name a server), makes its ingress stream there as
// the admin of --data's material; made reports whether the log has
// per-tenant streams and tenant's is now there. With no server running the
// stream is made by the next serve. A log of the shared layout needs
// nothing.
func (g *globals) ensureTenant(ctx context.Context, log *slog.Logger, tenant string) (made bool, err error) {
	if _, err := auth.Load(g.authDir()); err != nil {
		return false, nil // no material of ours: no admin to act as
	}
	if err := g.recordTenant(tenant); err != nil {
		return false, fmt.Errorf("record tenant %s in %s: %w", tenant, g.authDir(), err)
	}
	if _, running := readServerRecord(g.data); !running && g.natsURL == "" && !g.listenSet {
		return false, nil
	}
	// The admin of --data's material, whatever the command itself
	// connects as: a copy of the flags without its credentials.
	adm := *g
	adm.creds, adm.user = "", ""
	if !g.logLevelSet {
		// The stream's making is the admin's log (tenant stream created,
		// sourced by TS_IN and TS_MODEL): on the stderr of a first
		// publish it was three INFO lines a newcomer took for something
		// gone wrong. Warnings only, unless --log-level asks for more;
		// creds says in a line of its own that the stream is ready.
		adm.logLevel = "warn"
		if log, err = adm.logger(); err != nil {
			return false, err
		}
	}
	url, opts, err := adm.dial(asAdmin)
	if err != nil {
		return false, err
	}
	cfg := g.busConfig(log, "", "", url, opts)
	cfg.ConnectOnly, cfg.Identity = true, asAdmin
	b, err := bus.Open(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer b.Close()
	if err := b.EnsureTenant(ctx, tenant); err != nil {
		return false, err
	}
	return b.Stream(bus.TenantStream(tenant)) != nil, nil
}

// ensureRecordedTenants makes, on serve's own log, the ingress stream of
// every tenant recorded in --data (a no-op on the shared layout).
func (g *globals) ensureRecordedTenants(ctx context.Context, b *bus.Bus) error {
	tenants, err := g.recordedTenants()
	if err != nil {
		return err
	}
	for _, t := range tenants {
		if err := b.EnsureTenant(ctx, t); err != nil {
			return fmt.Errorf("tenant %s (recorded in %s): %w", t, filepath.Join(g.authDir(), tenantsFile), err)
		}
	}
	return nil
}
