package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/toolstream/toolstream/internal/logread"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// runCLI runs one command line against the demo log's server and data
// directory; it returns stdout, stderr and the error.
func (d *demoLog) runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs(append(args, "--data", d.dir, "--nats-url", d.b.ClientURL(), "--log-level", "error",
		"--creds", bustest.Creds(t, d.b, auth.Identity{Role: auth.RoleOperator})))
	err := root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

type stored struct {
	seq uint64
	at  time.Time
	ev  *events.Event
}

// allMessages reads a whole stream of the log with its stream timestamps
// (projector's TestSeqAtTime checks --until TIME's search against such a
// scan).
func allMessages(t *testing.T, b *bus.Bus, stream string) []stored {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []stored
	err := b.Read(ctx, logread.Config{Stream: stream}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, _ := events.DecodeWith(m.Data, b.Keys)
			out = append(out, stored{m.Seq, time.Unix(0, m.Time), ev})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReplayUntil(t *testing.T) {
	d := startDemoLog(t, 0)
	msgs := allMessages(t, d.b, events.StreamOut) // the verifier's stream

	// The verifier's view as it was just before the final answer reached
	// the log: no verdict yet. At the end of the log: the verdict.
	var before uint64
	for _, m := range msgs {
		if m.ev != nil && m.ev.Response == "msg_demo_answer" {
			before = m.seq - 1
			break
		}
	}
	if before == 0 {
		t.Fatal("the final answer is not in the log")
	}
	verdictKey := `v\x00msg_demo_answer`
	out, errOut, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--until", fmt.Sprint(before), "--dump")
	if err != nil {
		t.Fatalf("replay --until %d: %v\n%s", before, err, errOut)
	}
	if !strings.Contains(out, fmt.Sprintf("replayed verifier: seq=%d ", before)) || strings.Contains(out, verdictKey) {
		t.Errorf("replay --until %d:\n%s", before, out)
	}
	if !strings.Contains(errOut, "replay verifier: from seq 1 to") || !strings.Contains(errOut, "events/s") {
		t.Errorf("no progress lines on a non-terminal:\n%s", errOut)
	}
	last := msgs[len(msgs)-1]
	out, errOut, err = d.runCLI(t, "replay", "--projection", verifier.Name, "--until", last.at.Format(time.RFC3339Nano), "--dump")
	if err != nil {
		t.Fatalf("replay --until TIME: %v\n%s", err, errOut)
	}
	if want := fmt.Sprintf("the last message stored at or before it is seq %d", last.seq); !strings.Contains(out, want) || !strings.Contains(out, verdictKey) {
		t.Errorf("replay --until %s: want %q and the verdict:\n%s", last.at.Format(time.RFC3339Nano), want, out)
	}
	// A time before the log: an empty view.
	out, _, err = d.runCLI(t, "replay", "--projection", verifier.Name, "--until", msgs[0].at.Add(-time.Hour).Format(time.RFC3339))
	if err != nil || !strings.Contains(out, "replayed verifier: seq=0 keys=0") {
		t.Errorf("replay --until before the log: %v\n%s", err, out)
	}
	// --into keeps the rebuild; a later replay into it resumes there and
	// reaches what a replay from 1 reaches.
	into := t.TempDir() + "/verifier"
	if _, errOut, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--until", fmt.Sprint(before), "--into", into); err != nil {
		t.Fatalf("replay --into: %v\n%s", err, errOut)
	}
	whole, _, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--until", fmt.Sprint(last.seq))
	if err != nil {
		t.Fatal(err)
	}
	resumed, errOut, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--until", fmt.Sprint(last.seq), "--into", into)
	if err != nil || resumed != whole || !strings.Contains(errOut, fmt.Sprintf("from seq %d to %d", before+1, last.seq)) {
		t.Errorf("resumed replay: %v\n%s\n%s\nwant\n%s", err, resumed, errOut, whole)
	}
	// A live view is not a replay's directory: it is left alone.
	if _, _, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--into", d.dir+"/views/"+verifier.Name); !errors.Is(err, projector.ErrNotReplay) {
		t.Errorf("replay --into a live view: %v, want ErrNotReplay", err)
	}
	if _, _, err := d.runCLI(t, "replay", "--projection", assembler.Name, "--into", into); !errors.Is(err, projector.ErrNotReplay) {
		t.Errorf("replay --into another projection's replay: %v, want ErrNotReplay", err)
	}
	if _, _, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--until", "yesterday"); err == nil {
		t.Error("--until yesterday was accepted")
	}
	if _, _, err := d.runCLI(t, "replay", "--projection", verifier.Name, "--until", fmt.Sprint(last.seq+100)); err == nil {
		t.Error("--until past the end of the log was accepted")
	}
}

func TestReplayDiff(t *testing.T) {
	d := startDemoLog(t, 0)
	// No serve: the live views are the view directories.
	d.s.Stop()
	out, errOut, err := d.runCLI(t, "replay", "--projection", assembler.Name, "--diff")
	if err != nil {
		t.Fatalf("replay --diff: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(out, "ok: the rebuilt assembler view equals the live view, key by key") || !strings.Contains(out, "/views/assembler") {
		t.Errorf("replay --diff:\n%s", out)
	}
	// "An upgrade": a smaller argument limit decides the demo's calls
	// differently.
	out, _, err = d.runCLI(t, "replay", "--projection", assembler.Name, "--diff", "--args-max", "12")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !errors.Is(err, projector.ErrDigestMismatch) {
		t.Fatalf("replay --diff with another limit: %v\n%s", err, out)
	}
	if !strings.Contains(out, "~ \"shop\\x00c\\x00") || !strings.Contains(out, `"oc":"rejected"`) || !strings.Contains(out, "keys differ") {
		t.Errorf("replay --diff with another limit does not show the changed calls:\n%s", out)
	}
	if _, _, err := d.runCLI(t, "replay", "--projection", assembler.Name, "--verify", "--args-max", "12"); !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("replay --verify with another limit: %v", err)
	}
	// The live view has serve's default quotas (their rows and usage): a
	// replay without them is another view.
	if _, _, err := d.runCLI(t, "replay", "--projection", assembler.Name, "--verify", "--quota", "off"); !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("replay --verify without the quotas: %v", err)
	}
	if _, _, err := d.runCLI(t, "replay", "--projection", assembler.Name, "--verify", "--quota", "events=0"); !errors.Is(err, assembler.ErrInvalidQuota) {
		t.Errorf("replay --verify --quota events=0: %v, want ErrInvalidQuota", err)
	}

	// A running serve: the live views come from tsv.dump.<projection>, page by page.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func(n int) { dumpPageRows = n }(dumpPageRows)
	dumpPageRows = 3 // the local pages too: both sides page alike
	live := []string{assembler.Name, verifier.Name, responses.Name}
	s, err := stack.Start(ctx, stack.Config{Bus: d.b, ViewsDir: d.dir + "/views", Components: live, DumpPageRows: dumpPageRows,
		Projections: stack.Projections{IdleTimeout: 2 * time.Minute, ArgsBytesMax: 1 << 20, Quotas: assembler.DefaultQuotas(), Trust: d.trust}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	for _, name := range live {
		r, _ := s.Runner(name)
		last, err := d.b.LastSeq(ctx, r.Stream())
		if err != nil {
			t.Fatal(err)
		}
		if err := r.WaitFor(ctx, last); err != nil {
			t.Fatal(err)
		}
	}
	// the server has the dump service's subscriptions before the CLI asks
	if err := d.b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{assembler.Name, verifier.Name, responses.Name} {
		out, errOut, err = d.runCLI(t, "replay", "--projection", name, "--diff")
		if err != nil || !strings.Contains(out, "(running serve)") || !strings.Contains(out, "equals the live view, key by key") {
			t.Errorf("replay --diff of %s against a running serve: %v\n%s\n%s", name, err, out, errOut)
		}
	}
	out, _, err = d.runCLI(t, "replay", "--projection", assembler.Name, "--diff", "--args-max", "12", "--diff-max", "1")
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(out, "more differences (--diff-max)") {
		t.Errorf("replay --diff against a running serve with another limit: %v\n%s", err, out)
	}
	if out, _, err := d.runCLI(t, "replay", "--projection", "nope", "--diff"); err == nil {
		t.Errorf("unknown projection: %s", out)
	}
}

func TestViewDumpsPaging(t *testing.T) {
	d := startDemoLog(t, 2) // the stack's dump service pages by 2 rows
	runners := d.s.Node().Runners()
	d.settle(t, context.Background())
	ctx := context.Background()
	seq, page, err := viewdump.Open(ctx, d.b.Conn, assembler.Name)
	if err != nil {
		t.Fatal(err)
	}
	r := runners[assembler.Name]
	v := r.View()
	defer v.Close()
	if seq != v.Seq() {
		t.Skipf("the view moved on (%d → %d)", seq, v.Seq())
	}
	var want, got []string
	v.Rows(nil, func(k, val []byte) error { want = append(want, fmt.Sprintf("%q=%x", k, val)); return nil })
	it := viewdump.NewIter(page)
	for {
		k, val, ok, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%q=%x", k, val))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 5 {
		t.Errorf("paged dump differs from the view (%d rows, want %d)", len(got), len(want))
	}
	// A projection no process runs is no answer, not an empty view: its
	// subject (tsv.dump.nope) has no subscriber, so the server says so.
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, _, err := viewdump.Open(sctx, d.b.Conn, "nope"); !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("dump of an unknown projection: %v", err)
	}
}
