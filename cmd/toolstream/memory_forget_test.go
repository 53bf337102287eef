package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
)

// memoryServer is a serve over an admin-run log, driven by the operator's
// commands, for the memory erasure tests.
type memoryServer struct {
	t                        *testing.T
	ctx                      context.Context
	admin                    *bus.Bus
	logDir, serveDir, cliDir string
	stop                     func()
	errOut                   *bytes.Buffer
	serveArgs                []string // more flags for serve
}

// startMemoryServer starts serve and writes the records the tests erase
// and keep (writeMemories).
func startMemoryServer(t *testing.T) *memoryServer {
	if testing.Short() {
		t.Skip("runs serve")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	root := t.TempDir()
	s := &memoryServer{t: t, ctx: ctx, logDir: filepath.Join(root, "log"), serveDir: filepath.Join(root, "serve"), cliDir: filepath.Join(root, "cli")}
	s.admin = bustest.StartIn(t, s.logDir)
	s.serve()
	s.writeMemories()
	return s
}

// serve starts (again) serve over the log, on the same data directory.
func (s *memoryServer) serve() {
	sctx, stop := context.WithCancel(s.ctx)
	s.errOut = &bytes.Buffer{}
	cmd := newRoot(&bytes.Buffer{}, s.errOut)
	cmd.SetArgs(append([]string{"serve", "--nats-url", s.admin.ClientURL(), "--data", s.serveDir, "--log-level", "warn",
		"--creds", bustest.Creds(s.t, s.admin, bustest.Admin)}, s.serveArgs...))
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(sctx) }()
	s.stop = func() {
		stop()
		if err := <-done; err != nil {
			s.t.Fatalf("serve: %v\n%s", err, s.errOut.String())
		}
	}
	// The memory service answers once serve is up.
	waitUntil(s.t, s.ctx, "the memory service", func() bool {
		_, err := s.run("memory", "list", "--tenant", "acme", "--user", "nobody")
		return err == nil
	})
}

// run runs one operator command.
func (s *memoryServer) run(args ...string) (string, error) {
	if args[0] == "memory" || args[0] == "forget" {
		args = append(args, "--json") // the tests read the service's answers
	}
	var out, errOut bytes.Buffer
	c := newRoot(&out, &errOut)
	c.SetArgs(append(args, "--nats-url", s.admin.ClientURL(), "--data", s.cliDir, "--log-level", "error",
		"--creds", bustest.Creds(s.t, s.admin, auth.Identity{Role: auth.RoleOperator})))
	err := c.ExecuteContext(s.ctx)
	if err != nil {
		err = errors.Join(err, errors.New(errOut.String()))
	}
	return out.String(), err
}

func (s *memoryServer) cli(args ...string) string {
	s.t.Helper()
	out, err := s.run(args...)
	if err != nil {
		s.t.Fatalf("toolstream %s: %v\n%s\nserve: %s", strings.Join(args, " "), err, out, s.errOut.String())
	}
	return out
}

// write writes through the memory service and checks that every record it
// wrote was applied.
func (s *memoryServer) write(args ...string) memory.WriteReply {
	s.t.Helper()
	out := s.cli(append([]string{"memory"}, args...)...)
	var rep memory.WriteReply
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Applied {
		s.t.Fatalf("memory %s: %s (%v)", strings.Join(args, " "), out, err)
	}
	return rep
}

// files lists the files of every directory Toolstream keeps that hold text.
func (s *memoryServer) files(text string) []string {
	return filesWith(s.t, text, s.logDir, s.serveDir, s.cliDir)
}

// opens reports, for each memory event of tenant's user in the log, whether
// it still opens with the data keys (read afresh from the key store).
func (s *memoryServer) opens(tenant, user string) (opened, erased int) {
	s.t.Helper()
	s.admin.Keys.(*keys.Store).Forget(tenant, user)
	subj, err := events.MemorySubject(tenant, user)
	if err != nil {
		s.t.Fatal(err)
	}
	err = s.admin.Read(s.ctx, logread.Config{Stream: events.StreamMemory, Filter: subj}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			_, err := events.DecodeWith(m.Data, s.admin.Keys)
			switch {
			case err == nil:
				opened++
			case errors.Is(err, events.ErrErased):
				erased++
			default:
				s.t.Errorf("%s seq %d: %v (an erased key must read as erased, never as garbage)", subj, m.Seq, err)
			}
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return opened, erased
}

// The strings the tests look for are upper case and share no four letters:
// the views' index terms are lower case, so a string is written whole in a
// file the first time it occurs (Pebble compresses its tables, and a
// compressed copy of bytes seen before is a back-reference, which a scan of
// bytes cannot find).
const (
	// acme/ann: a message of four records (the greeting an episode of its
	// own), two of them one sentence
	annMessage   = "Hello there. I live in ZORBAVILLE. I love QUEXTAR pie but I can't eat it these days"
	annForgot    = "QUEXTAR"                         // the sentence forgotten (m1#4, with m1#3)
	annKept      = "ZORBAVILLE"                      // another record of the message (m1#2)
	carV1, carV2 = "VELMORAZURE77", "KESTRANGREEN88" // both versions of a forgotten record
	annKeep      = "BISCUITWOMBLE41"                 // another record of ann
	bobKeep      = "QUORBIXTON"                      // another user of the tenant
	globexKeep   = "GLOBEXFARNDALE17"                // another tenant's ann
	danSaid      = "DRAVENHOLM"                      // a user erased whole
	danNote      = "DANNOTEPIKE63"
)

// writeMemories writes the records the tests erase and keep.
func (s *memoryServer) writeMemories() {
	s.t.Helper()
	rep := s.write("message", "--tenant", "acme", "--user", "ann", "--id", "m1", "--time", "2026-01-02T10:00:00Z", annMessage)
	var ids []string
	for _, r := range rep.Records {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"m1", "m1#2", "m1#3", "m1#4"}) {
		s.t.Fatalf("the message wrote %v", ids)
	}
	s.write("observe", "--tenant", "acme", "--user", "ann", "--id", "car", "--kind", "fact", "--subject", "vehicle",
		"--attribute", "car", "--value", "velmora", "--time", "2026-01-02T10:01:00Z", "I drive a "+carV1)
	s.write("correct", "car", "--tenant", "acme", "--user", "ann", "--expected-version", "1", "--time", "2026-01-02T10:02:00Z",
		"--text", "I drive a "+carV2)
	s.write("observe", "--tenant", "acme", "--user", "ann", "--id", "cat", "--kind", "fact", "--subject", "pet",
		"--attribute", "cat", "--value", "biscuit", "My cat is "+annKeep)
	s.write("message", "--tenant", "acme", "--user", "bob", "I live in "+bobKeep)
	s.write("observe", "--tenant", "globex", "--user", "ann", "--id", "car", "--kind", "fact", "--subject", "vehicle",
		"--attribute", "car", "--ttl", "720h", "I drive a "+globexKeep)
	s.write("message", "--tenant", "acme", "--user", "dan", "I live in "+danSaid)
	s.write("observe", "--tenant", "acme", "--user", "dan", "--id", "n1", "--kind", "episode", "We spoke of "+danNote)
}

// checkKept checks that the records that were not erased still read.
func (s *memoryServer) checkKept() {
	s.t.Helper()
	ann := s.cli("memory", "list", "--tenant", "acme", "--user", "ann")
	if !strings.Contains(ann, annKept) || !strings.Contains(ann, annKeep) || strings.Contains(ann, annForgot) || strings.Contains(ann, "VELMORA") || strings.Contains(ann, "KESTRAN") {
		s.t.Errorf("ann's records after the erasure: %s", ann)
	}
	if bob := s.cli("memory", "list", "--tenant", "acme", "--user", "bob"); !strings.Contains(bob, bobKeep) {
		s.t.Errorf("bob's records: %s", bob)
	}
	if glo := s.cli("memory", "list", "--tenant", "globex", "--user", "ann"); !strings.Contains(glo, globexKeep) {
		s.t.Errorf("globex's ann's records: %s", glo)
	}
	if dan := s.cli("memory", "list", "--tenant", "acme", "--user", "dan"); strings.Contains(dan, danSaid) || strings.Contains(dan, danNote) {
		s.t.Errorf("dan's records after his erasure: %s", dan)
	}
	// Replay equals live.
	if out, err := s.run("replay", "--projection", memory.Name, "--verify"); err != nil {
		s.t.Errorf("replay --verify after the erasure: %v\n%s", err, out)
	}
}

// checkFiles stops everything and scans every file kept.
func (s *memoryServer) checkFiles() {
	s.t.Helper()
	s.stop()
	s.admin.Close()
	for _, text := range []string{annForgot, carV1, carV2, danSaid, danNote} {
		if files := s.files(text); len(files) > 0 {
			s.t.Errorf("%q is still in %v", text, files)
		}
	}
	// The view keeps what was not erased, readable: the scan would find
	// erased text too. And what the view holds, read through Pebble
	// (whatever its files' compression), has none of the erased text.
	view := s.viewText()
	for _, text := range []string{annKept, annKeep, bobKeep, globexKeep} {
		if len(filesWith(s.t, text, s.serveDir)) == 0 || !strings.Contains(view, strings.ToLower(text)) {
			s.t.Errorf("the scan does not find %q, which was kept: it would prove nothing", text)
		}
	}
	for _, text := range []string{annForgot, carV1, carV2, danSaid, danNote, "velmora"} {
		if strings.Contains(view, strings.ToLower(text)) {
			s.t.Errorf("the memory view holds %q", text)
		}
	}
}

// viewText is every key and value of the memory view, lower case.
func (s *memoryServer) viewText() string {
	db, err := projector.OpenPebble(filepath.Join(s.serveDir, "views", memory.Name), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	it, err := db.NewIter(nil)
	if err != nil {
		s.t.Fatal(err)
	}
	defer it.Close()
	var b strings.Builder
	for it.First(); it.Valid(); it.Next() {
		b.Write(it.Key())
		b.WriteByte(' ')
		b.Write(it.Value())
		b.WriteByte('\n')
	}
	return strings.ToLower(b.String())
}

// TestMemoryForgetErasesFromEveryFile: records written through a running
// serve (`memory message`, `memory observe`, `memory correct`), then one
// record of a shared sentence forgotten (`memory forget`), a record of two
// versions forgotten, and a user erased whole (`forget`). When the commands
// return, the memory view answers without them, replay equals live, a
// replay until before the forgetting shows them erased without their text,
// their events in the log read as erased; and once serve stops, no file of
// the log, the views or the command's directory holds their text — while
// the user's other records (of the same message too), another user's and
// another tenant's are still there.
func TestMemoryForgetErasesFromEveryFile(t *testing.T) {
	s := startMemoryServer(t)
	if opened, _ := s.opens("acme", "ann"); opened != 14 { // seven writes and their vectors
		t.Fatalf("ann's events open %d times before the erasure, want 14", opened)
	}
	before := time.Now()

	var res struct {
		memory.WriteReply
		Keys         int    `json:"keys_destroyed"`
		Tombstone    uint64 `json:"tombstone"`
		NotConfirmed bool   `json:"not_confirmed"`
	}
	out := s.cli("memory", "forget", "m1#4", "--tenant", "acme", "--user", "ann")
	if err := json.Unmarshal([]byte(out), &res); err != nil || !slices.Equal(res.Erase, []string{"m1#3", "m1#4"}) ||
		res.Keys != 2 || res.Tombstone == 0 || res.NotConfirmed {
		t.Fatalf("memory forget m1#4: %s (%v)", out, err)
	}
	out = s.cli("memory", "forget", "car", "--tenant", "acme", "--user", "ann")
	res.Erase = nil
	if err := json.Unmarshal([]byte(out), &res); err != nil || !slices.Equal(res.Erase, []string{"car"}) || res.Keys != 1 || res.NotConfirmed {
		t.Fatalf("memory forget car: %s (%v)", out, err)
	}
	// A record the user does not have is not found (exit 3), one they no
	// longer have is already forgotten (exit 6), and nothing is written to
	// the log: it said applied: true.
	memSeq := func() uint64 {
		st, err := s.admin.JS.Stream(s.ctx, events.StreamMemory)
		if err != nil {
			t.Fatal(err)
		}
		return st.CachedInfo().State.LastSeq
	}
	seq := memSeq()
	for id, code := range map[string]int{"nope": exitNotFound, "car": exitConflict} {
		if out, err := s.run("memory", "forget", id, "--tenant", "acme", "--user", "ann"); err == nil || exitCode(err) != code {
			t.Errorf("memory forget %s, which ann does not have: %q, %v (exit %d, want %d)", id, out, err, exitCode(err), code)
		}
	}
	if after := memSeq(); after != seq {
		t.Errorf("forgetting what is not there wrote %d events", after-seq)
	}
	// Once memory forget returns, the text is in no file: the view was
	// rebuilt without it and its old files deleted. (Scanned with serve
	// stopped, so that Pebble has written out what it buffers; and before
	// the user's erasure below, which rebuilds the view too.)
	s.stop()
	for _, text := range []string{annForgot, carV1, carV2} {
		if files := s.files(text); len(files) > 0 {
			t.Errorf("%q is still in %v after memory forget", text, files)
		}
	}
	if len(filesWith(t, annKeep, s.serveDir)) == 0 {
		t.Errorf("the scan does not find %q, which was kept: it would prove nothing", annKeep)
	}
	s.serve()
	out = s.cli("forget", "--tenant", "acme", "--user", "dan")
	if !strings.Contains(out, `"keys_destroyed"`) || strings.Contains(out, "not_confirmed") {
		t.Fatalf("forget dan: %s", out)
	}
	// ann: the message's first two records (the greeting and where she
	// lives), the cat, their vectors (serve
	// records a vector of each record's version: the sentence encoder,
	// on by default, sealed under the record's key) and (sealed under
	// her own key) the two forgettings open; the forgotten sentence's
	// two records, both versions of the car and the four vectors of
	// them do not.
	if opened, erased := s.opens("acme", "ann"); opened != 8 || erased != 8 {
		t.Errorf("ann's events: %d open, %d erased; want 8 and 8", opened, erased)
	}
	if opened, erased := s.opens("acme", "dan"); opened != 0 || erased != 4 {
		t.Errorf("dan's events: %d open, %d erased; want 0 and 4 (two with their vectors)", opened, erased)
	}
	if _, err := s.run("memory", "history", "car", "--tenant", "acme", "--user", "ann"); err == nil || !strings.Contains(err.Error(), "forgotten") {
		t.Errorf("history of a forgotten record: %v", err)
	}
	s.checkKept()
	// As it was before: the erased records are marks without text.
	dump := s.cli("replay", "--projection", memory.Name, "--until", before.Format(time.RFC3339Nano), "--dump")
	for _, want := range []string{"acme/ann/id/m1#3 = erased", "acme/ann/id/m1#4 = erased", "acme/ann/id/car = erased", annKept, annKeep} {
		if !strings.Contains(dump, want) {
			t.Errorf("replay --until before the erasure lacks %q:\n%s", want, dump)
		}
	}
	for _, gone := range []string{annForgot, carV1, carV2, danSaid, danNote} {
		if strings.Contains(dump, gone) {
			t.Errorf("replay --until before the erasure shows %q:\n%s", gone, dump)
		}
	}
	s.checkFiles()
}

// TestMemoryErasureWhileTheProjectionIsDown: a record and a user are
// erased while serve (and so the memory projection) is stopped; the view
// on disk still holds their text then. Restarted, the projection catches
// up, reads the tombstones, rebuilds its view without them and deletes the
// old files: no file holds the text any more, and the rest reads.
func TestMemoryErasureWhileTheProjectionIsDown(t *testing.T) {
	s := startMemoryServer(t)
	ctx := s.ctx
	s.stop()
	if len(filesWith(t, carV2, s.serveDir)) == 0 {
		t.Fatal("the stopped view does not hold the record: the test would prove nothing")
	}

	// The operator erases while the projection is down: a record's key, by
	// id (every version of it), and a user.
	if out := s.cli("forget", "--tenant", "acme", "--user", "dan", "--wait", "1s"); !strings.Contains(out, "memory") {
		t.Fatalf("forget dan with serve down confirms what it cannot: %s", out)
	}
	res, err := erasure.Record(ctx, s.admin, s.admin.Keys.(*keys.Store), "acme", "ann", "car")
	if err != nil || res.Keys != 1 {
		t.Fatalf("erasure.Record: %+v, %v", res, err)
	}
	for _, id := range []string{"m1#3", "m1#4"} {
		if n, err := s.admin.Keys.(*keys.Store).EraseRecord(ctx, "acme", "ann", id); err != nil || n != 1 {
			t.Fatalf("EraseRecord %s: %d, %v", id, n, err)
		}
	}
	res, err = erasure.Record(ctx, s.admin, s.admin.Keys.(*keys.Store), "acme", "ann", "m1#3")
	if err != nil {
		t.Fatal(err)
	}

	s.serve()
	waitUntil(t, ctx, "the memory projection's rebuild", func() bool {
		dg, err := viewdump.Digest(ctx, s.admin.Conn, memory.Name)
		return err == nil && dg.Seq >= res.Tombstones[events.StreamMemory]
	})
	if out, err := s.run("memory", "history", "car", "--tenant", "acme", "--user", "ann"); err == nil {
		t.Errorf("history of an erased record: %s", out)
	}
	s.checkKept()
	s.checkFiles()
}
