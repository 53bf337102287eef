package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
)

// rawResponse is one OpenAI Responses stream whose call's arguments and
// text hold secret, as JSON lines a producer publishes verbatim.
func rawResponse(resp, secret string) [][]byte {
	args := fmt.Sprintf(`{"q":%q}`, secret)
	lines := []any{
		map[string]any{"type": "response.created", "sequence_number": 0, "response": map[string]any{"id": resp, "status": "in_progress", "output": []any{}}},
		map[string]any{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
			"item": map[string]any{"id": "fc_" + resp, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_" + resp, "name": "lookup"}},
		map[string]any{"type": "response.function_call_arguments.delta", "sequence_number": 2, "item_id": "fc_" + resp, "output_index": 0, "delta": args},
		map[string]any{"type": "response.function_call_arguments.done", "sequence_number": 3, "item_id": "fc_" + resp, "output_index": 0, "arguments": args},
		map[string]any{"type": "response.output_item.done", "sequence_number": 4, "output_index": 0,
			"item": map[string]any{"id": "fc_" + resp, "type": "function_call", "status": "completed", "arguments": args, "call_id": "call_" + resp, "name": "lookup"}},
		map[string]any{"type": "response.completed", "sequence_number": 5, "response": map[string]any{"id": resp, "status": "completed", "output": []any{}}},
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i], _ = json.Marshal(l)
	}
	return out
}

// rawCLI runs the stock nats CLI as id and returns its output and error.
func rawCLI(t *testing.T, b *bus.Bus, id auth.Identity, args ...string) (string, error) {
	t.Helper()
	all := append([]string{"--server", b.ClientURL(), "--creds", bustest.Creds(t, b, id), "--inbox-prefix", id.InboxPrefix(), "--timeout", "3s"}, args...)
	out, err := exec.Command(jstest.NatsCLI(t), all...).CombinedOutput()
	return string(out), err
}

// TestRawEventsRestSealed: a third-party producer (the stock nats CLI with
// acme's producer credentials) publishes raw provider events verbatim, one
// stream without a Ts-User header and one naming ann. Ingest copies each
// sealed into ts.raw.acme.<stream>, normalises the copy and deletes the
// clear message: the pipeline still assembles (both calls decided, their
// model events named by the clear messages' sequences), and afterwards the
// stock CLI reading TS_IN back as the admin finds every clear message gone
// and no message holding the secrets, nor does any file of the server's
// store. Attackers: globex's producer, and acme's own, reading the raw
// stream or subscribing to the sealed copies are refused by the server.
// Erasure: erasing ann makes her stream's copies unreadable and leaves the
// user-less stream's readable; erasing the tenant's user-less scope (user
// "") then makes those unreadable too.
func TestRawEventsRestSealed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	b := bustest.StartIn(t, dir)
	s, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{assembler.IngestName, assembler.Name}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	const noUserSecret, annSecret = "rawsecret-nouser-4b1d", "rawsecret-ann-77c2"
	acme := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	clear := map[uint64]bool{}
	for _, st := range []struct {
		stream, secret string
		headers        []string
	}{{"s1", noUserSecret, nil}, {"s2", annSecret, []string{"Ts-User:ann"}}} {
		subj, _ := events.IngestSubject("acme", "openai-responses", st.stream)
		for _, line := range rawResponse("resp_"+st.stream, st.secret) {
			clear[natsPub(t, b, acme, subj, line, st.headers...)] = true
		}
	}

	// The pipeline assembles both responses' calls (refused: no registry
	// knows the tool), from model events named by the clear messages.
	if _, err := bustest.WaitEvents(ctx, b, []string{"ts.call.acme.>"}, func(evs []*events.Event) bool { return len(evs) == 2 }); err != nil {
		t.Fatalf("the calls were not decided: %v", err)
	}
	model, err := b.ReadEvents(ctx, []string{"ts.model.acme.>"})
	if err != nil || len(model) == 0 {
		t.Fatalf("model events: %d, %v", len(model), err)
	}
	for _, ev := range model {
		if _, _, seq, _, ok := events.SplitModelEventID(ev.ID); !ok || !clear[seq] {
			t.Errorf("model event %s is not named by a clear raw event's sequence", ev.ID)
		}
		if ev.Sealed == "" {
			t.Errorf("model event %s is not sealed", ev.ID)
		}
	}

	// Every clear message is deleted once its copy is read.
	st := b.Stream(events.StreamIn)
	deadline := time.Now().Add(time.Minute)
	for seq := range clear {
		for {
			_, err := st.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("clear raw event %d still in %s: %v", seq, events.StreamIn, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// The stock CLI, as the admin, reads TS_IN back message by message:
	// the clear ones are gone, the copies hold no secret.
	last, err := b.LastSeq(ctx, events.StreamIn)
	if err != nil {
		t.Fatal(err)
	}
	copies := map[string][]uint64{} // by stream
	admin := auth.Identity{Role: auth.RoleAdmin}
	for seq := uint64(1); seq <= last; seq++ {
		out, err := rawCLI(t, b, admin, "stream", "get", events.StreamIn, strconv.FormatUint(seq, 10), "--json")
		if clear[seq] {
			if err == nil || !strings.Contains(strings.ToLower(out), "no message found") {
				t.Errorf("nats stream get %d (a clear raw event): %v\n%s", seq, err, out)
			}
			continue
		}
		if err != nil {
			t.Fatalf("nats stream get %d: %v\n%s", seq, err, out)
		}
		var m struct {
			Subject string `json:"subject"`
			Data    []byte `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("nats stream get %d printed %q: %v", seq, out, err)
		}
		for _, secret := range []string{noUserSecret, annSecret} {
			if bytes.Contains(m.Data, []byte(secret)) || strings.Contains(out, secret) {
				t.Errorf("TS_IN %d (%s) holds %q in the clear", seq, m.Subject, secret)
			}
		}
		if strings.HasPrefix(m.Subject, "ts.raw.acme.") {
			copies[strings.TrimPrefix(m.Subject, "ts.raw.acme.")] = append(copies[strings.TrimPrefix(m.Subject, "ts.raw.acme.")], seq)
		}
	}
	if len(copies["s1"]) != 6 || len(copies["s2"]) != 6 {
		t.Fatalf("sealed copies by stream: %v, want 6 of each", copies)
	}
	// No file of the server's store holds a secret.
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, secret := range []string{noUserSecret, annSecret} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds %q", path, secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Attackers: no producer reads the raw stream or the copies.
	for _, id := range []auth.Identity{{Role: auth.RoleProducer, Tenant: "globex"}, acme} {
		out, err := rawCLI(t, b, id, "stream", "get", events.StreamIn, strconv.FormatUint(copies["s1"][0], 10), "--json")
		if err == nil || strings.Contains(out, `"data"`) {
			t.Errorf("%s read a sealed raw event: %v\n%s", id, err, out)
		}
		out, err = rawCLI(t, b, id, "sub", "ts.raw.acme.>", "--count", "1", "--wait", "2s")
		if err == nil || !strings.Contains(strings.ToLower(out), "permission") {
			t.Errorf("%s subscribed to acme's sealed raw events: %v\n%s", id, err, out)
		}
	}

	// Erasure reaches the copies: ann's by her key, the user-less ones by
	// the tenant's user-less scope.
	ks := b.Keys.(*keys.Store)
	readable := func(stream string) (n int) {
		for _, seq := range copies[stream] {
			raw, err := st.GetMsg(ctx, seq)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := events.DecodeAtWith(raw.Subject, raw.Data, b.Keys)
			switch {
			case errors.Is(err, events.ErrErased):
			case err != nil:
				t.Fatalf("copy %d: %v", seq, err)
			default:
				if body, ok := ev.Body.(*events.RawSealed); !ok || body.Seq == 0 || !clear[body.Seq] {
					t.Fatalf("copy %d: %+v does not name a clear raw event", seq, ev.Body)
				}
				n++
			}
		}
		return n
	}
	if readable("s1") != 6 || readable("s2") != 6 {
		t.Fatalf("before erasure: %d and %d copies readable", readable("s1"), readable("s2"))
	}
	if _, err := erasure.User(ctx, b, ks, "acme", "ann"); err != nil {
		t.Fatal(err)
	}
	ks.Forget("acme", "ann")
	if n1, n2 := readable("s1"), readable("s2"); n1 != 6 || n2 != 0 {
		t.Fatalf("after erasing ann: %d user-less and %d of ann's copies readable, want 6 and 0", n1, n2)
	}
	if _, err := erasure.User(ctx, b, ks, "acme", ""); err != nil {
		t.Fatal(err)
	}
	ks.Forget("acme", "")
	if n := readable("s1"); n != 0 {
		t.Fatalf("after erasing acme's user-less scope: %d copies readable", n)
	}
}

// copySeq waits for ingest's sealed copy of the raw event at TS_IN
// sequence raw and returns the copy's sequence.
func copySeq(ctx context.Context, t *testing.T, b *bus.Bus, tenant string, raw uint64) uint64 {
	t.Helper()
	want := events.RawSealedID(tenant, raw)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var found uint64
		err := b.Read(ctx, logread.Config{Stream: events.StreamIn, Filter: "ts.raw." + tenant + ".>"}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				if env, err := events.Envelope(m.Data); err == nil && env.ID == want {
					found = m.Seq
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if found != 0 {
			return found
		}
	}
	t.Fatalf("no sealed copy of raw event %d of %s", raw, tenant)
	return 0
}

// TestDeleteRawOfAGoneMessageIsNoError: ingest deletes a clear raw event
// once its copy is read, and again when it reads the copy again (a
// rebuild after an erasure, a copy relayed twice): the server's "no
// message found" (10057) is no error, or every later delete would wait
// behind it.
func TestDeleteRawOfAGoneMessageIsNoError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	ack, err := b.JS.Publish(ctx, "ts.in.acme.openai-chat.s1", []byte(`{"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	del := DeleteRaw(b)
	for i := range 2 {
		if err := del(ctx, ack.Sequence); err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
	}
	if _, err := b.Stream(events.StreamIn).GetMsg(ctx, ack.Sequence); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Fatalf("the raw event after its delete: %v", err)
	}
}
