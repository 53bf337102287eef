package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/toolstream/toolstream/internal/logread"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestServePartitions runs `serve --partitions 2` in-process against a
// server of its own: the flag partitions the log's model subjects, serve
// runs one assembler per partition under a lease instead of the single
// assembler, and a published provider stream becomes a completed call
// through its partition's assembler. Then serve stops cleanly.
func TestServePartitions(t *testing.T) {
	admin := bustest.Start(t)
	url := admin.ClientURL()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sctx, stopServe := context.WithCancel(ctx)
	defer stopServe()
	var serveErr bytes.Buffer
	root := newRoot(&bytes.Buffer{}, &serveErr)
	root.SetArgs([]string{"serve", "--partitions", "2", "--components", "ingest,assembler,responses",
		"--nats-url", url, "--data", filepath.Join(dir, "serve"), "--log-level", "warn", "--creds", bustest.Creds(t, admin, bustest.Admin)})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(sctx) }()

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case err := <-done:
				t.Fatalf("serve stopped while waiting for %s: %v\n%s", what, err, serveErr.String())
			case <-ctx.Done():
				t.Fatalf("%s: not in time\n%s", what, serveErr.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	// The stream is partitioned and both partitions' leases are held.
	waitFor("two lease holders", func() bool {
		kv, err := admin.JS.KeyValue(ctx, "ts_leases")
		if err != nil {
			return false
		}
		keys, err := kv.Keys(ctx)
		slices.Sort(keys)
		return err == nil && slices.Equal(keys, []string{assembler.PartitionName(0), assembler.PartitionName(1)})
	})
	opts, err := admin.UserOptions(auth.Identity{Role: auth.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := bus.Open(ctx, bus.Config{NATSURL: url, Name: "check", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if fresh.Partitions() != 2 {
		t.Fatalf("the log has %d partitions after serve --partitions 2", fresh.Partitions())
	}

	// A provider stream through the partitioned path.
	var out, errOut bytes.Buffer
	cli := newRoot(&out, &errOut)
	cli.SetArgs([]string{"publish", "--provider", "openai-responses", "--tenant", "acme",
		filepath.Join("..", "..", "testdata", "streams", "openai-responses-azure-weather.jsonl"),
		"--nats-url", url, "--data", filepath.Join(dir, "cli"), "--log-level", "error",
		"--creds", bustest.Creds(t, admin, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})})
	if err := cli.ExecuteContext(ctx); err != nil {
		t.Fatalf("publish: %v\n%s%s", err, out.String(), errOut.String())
	}
	subjects := func(filter string) []string {
		var out []string
		if err := admin.Read(ctx, logread.Config{Filter: filter}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				out = append(out, m.Subject)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	waitFor("the completed call", func() bool { return len(subjects("ts.call.>")) == 1 })
	model := subjects("ts.model.>")
	if len(model) == 0 {
		t.Fatal("no model events")
	}
	for _, s := range model {
		if n := len(strings.Split(s, ".")); n != 6 || !(strings.HasSuffix(s, ".0") || strings.HasSuffix(s, ".1")) {
			t.Fatalf("model event on %s, not a partition's subject", s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "serve", "views", assembler.Name)); !os.IsNotExist(err) {
		t.Errorf("the single assembler's view exists beside the partitions' (%v)", err)
	}

	// Each partition's view, served by this serve, equals its replay.
	for p := range 2 {
		var rout, rerr bytes.Buffer
		rp := newRoot(&rout, &rerr)
		rp.SetArgs([]string{"replay", "--projection", assembler.PartitionName(p), "--verify",
			"--nats-url", url, "--data", filepath.Join(dir, fmt.Sprint("replay", p)), "--log-level", "error",
			"--creds", bustest.Creds(t, admin, auth.Identity{Role: auth.RoleOperator})})
		if err := rp.ExecuteContext(ctx); err != nil {
			t.Fatalf("replay of partition %d: %v\n%s%s", p, err, rout.String(), rerr.String())
		}
		if !strings.Contains(rout.String()+rerr.String(), "equal") {
			t.Fatalf("replay of partition %d says:\n%s%s", p, rout.String(), rerr.String())
		}
	}

	stopServe()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, serveErr.String())
		}
	case <-ctx.Done():
		t.Fatal("serve did not stop")
	}
}

// TestServePartitionsOutOfRange: a --partitions the log cannot take is
// refused before anything starts.
func TestServePartitionsOutOfRange(t *testing.T) {
	for _, n := range []string{"-1", strconv.Itoa(bus.PartitionsMax + 1)} {
		root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		root.SetArgs([]string{"serve", "--partitions", n, "--data", t.TempDir(), "--listen", "127.0.0.1:-1", "--log-level", "error"})
		if err := root.Execute(); !errors.Is(err, bus.ErrInvalidConfig) {
			t.Errorf("--partitions %s: %v, want %v", n, err, bus.ErrInvalidConfig)
		}
	}
}
