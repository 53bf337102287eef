//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// chatCalls is a Chat Completions stream of n responses from first on,
// each one complete call.
func chatCalls(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"id":"chatcmpl-c%d","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_c%d","type":"function","function":{"name":"weather","arguments":""}}]}}]}`+"\n", i, i)
		fmt.Fprintf(&b, `{"id":"chatcmpl-c%d","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\": \"P%d\"}"}}]}}]}`+"\n", i, i)
		fmt.Fprintf(&b, `{"id":"chatcmpl-c%d","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n", i)
	}
	return b.String()
}

func modelMsgs(t *testing.T, ctx context.Context, b *bus.Bus) uint64 {
	t.Helper()
	s, err := b.JS.Stream(ctx, events.StreamModel)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().State.Msgs
}

// TestPublishCutShortSaysWhatIsKept: the server stopped in the middle of a
// publish; publish said "server is disconnected" and exited 1, with no word
// of what the log kept or what to do. It now says how many events the log
// acknowledged, exits 7, and the same command run again against the
// restarted server resumes: what the log holds is stored once, and every
// event acknowledged before the stop is still there.
func TestPublishCutShortSaysWhatIsKept(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	b1 := bustest.StartIn(t, dir)
	producer := bustest.Creds(t, b1, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	first, rest := chatCalls(0, 400), chatCalls(400, 400)

	// A pipe the test writes the stream into: the first part is published,
	// then the server stops, then the rest comes.
	fifo := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	r1 := edgeRig{t, ctx, b1.ClientURL()}
	go func() {
		out, err, _ := r1.run(producer, "publish", "--tenant", "acme", "--stream", "cut", fifo)
		done <- result{out, err}
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString(first); err != nil {
		t.Fatal(err)
	}
	for modelMsgs(t, ctx, b1) < 1000 {
		select {
		case <-ctx.Done():
			t.Fatalf("the first part was never stored (%d events)", modelMsgs(t, ctx, b1))
		case <-time.After(20 * time.Millisecond):
		}
	}
	b1.Close()
	w.WriteString(rest) // the reader may be gone: an error is expected
	w.Close()
	res := <-done

	if res.err == nil || exitCode(res.err) != exitCutShort {
		t.Fatalf("publish with the server stopped part way: %q, %v (exit %d); want exit %d", res.out, res.err, exitCode(res.err), exitCutShort)
	}
	msg := userMessage(res.err)
	m := regexp.MustCompile(`the log acknowledged (\d+) model events \(last at seq \d+ of TS_\w+\) and keeps them; to resume, run the same command again`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the error says neither what was kept nor how to resume: %s", msg)
	}
	acked, _ := strconv.ParseUint(m[1], 10, 64)
	if acked == 0 {
		t.Fatalf("nothing acknowledged before the stop: %s", msg)
	}

	// The server back on the same data: nothing acknowledged is lost, and
	// the same command resumes, storing what is stored once.
	b2 := bustest.StartIn(t, dir)
	if n := modelMsgs(t, ctx, b2); n < acked {
		t.Fatalf("after the restart the log holds %d model events; %d were acknowledged", n, acked)
	}
	whole := filepath.Join(t.TempDir(), "cut.jsonl")
	os.WriteFile(whole, []byte(first+rest), 0o644)
	out, err, _ := edgeRig{t, ctx, b2.ClientURL()}.run(producer, "publish", "--tenant", "acme", "--stream", "cut", whole)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	pm := regexp.MustCompile(`as (\d+) model events`).FindStringSubmatch(out)
	dm := regexp.MustCompile(`(\d+) of them were already in the log`).FindStringSubmatch(out)
	if pm == nil || dm == nil {
		t.Fatalf("resume printed %q; want the events published and those already in the log", out)
	}
	total, _ := strconv.ParseUint(pm[1], 10, 64)
	dups, _ := strconv.ParseUint(dm[1], 10, 64)
	if dups < acked {
		t.Errorf("resume found %d events already in the log; %d were acknowledged before the stop", dups, acked)
	}
	if n := modelMsgs(t, ctx, b2); n != total {
		t.Errorf("the log holds %d model events; the stream is %d (stored twice or lost)", n, total)
	}
}

// TestSameFileForAnotherUserSaysNothingNewStored: the same recorded file
// published for a second user stores nothing (its message ids name the
// stream, not the user, and its response is assembled once), and publish
// says so instead of "stored once" alone; a resume of the first user's
// publish keeps reading as one. Found by review: the second user's publish
// exited 0 saying only that events were "stored once".
func TestSameFileForAnotherUserSaysNothingNewStored(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	r := edgeRig{t, ctx, b.ClientURL()}
	producer := bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	file := filepath.Join(t.TempDir(), "refund.jsonl")
	if err := os.WriteFile(file, []byte(chatCalls(0, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []bool{false, true} {
		args := []string{"publish", "--tenant", "acme", "--stream", fmt.Sprintf("refund-%v", raw)}
		if raw {
			args = append(args, "--raw")
		}
		first, err, _ := r.run(producer, append(args, "--user", "zed", "--run", "r9", file)...)
		if err != nil || strings.Contains(first, "already in the log") {
			t.Fatalf("raw %v: zed's publish: %v %q", raw, err, first)
		}
		before := modelMsgs(t, ctx, b)
		out, err, _ := r.run(producer, append(args, "--user", "yan", "--run", "r10", file)...)
		if err != nil {
			t.Fatalf("raw %v: yan's publish: %v", raw, err)
		}
		if modelMsgs(t, ctx, b) != before {
			t.Fatalf("raw %v: yan's copy stored model events: the test's premise moved (say so in publish's message)", raw)
		}
		for _, want := range []string{"already in the log", "nothing new was stored", "another --user"} {
			if !strings.Contains(out, want) {
				t.Errorf("raw %v: yan's publish printed %q; want it to say %q", raw, out, want)
			}
		}
	}
}
