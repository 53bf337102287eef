package projector_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/projector"
)

// publishSealed publishes a text delta of user in tenant acme, sealed.
func publishSealed(t testing.TB, b *bus.Bus, kr events.Keyring, user string, i int, text string) uint64 {
	t.Helper()
	subj, _ := events.ModelSubject("acme", "r-"+user, "i")
	data, err := events.EncodeSealed(&events.Event{ID: fmt.Sprintf("in:%s/%d", user, i), Tenant: "acme", User: user, Response: "r-" + user,
		Item: "i-" + user, At: int64(i), Body: &events.TextDelta{Index: i, Text: text}}, kr, "")
	if err != nil {
		t.Fatal(err)
	}
	ack, err := b.JS.Publish(context.Background(), subj, data)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

// filesHolding lists the files under dir that contain s.
func filesHolding(t testing.TB, dir, s string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(s)) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestErasureRebuildsTheViewWithoutTheUser: a live view that applied a
// user's sealed events, once the user's keys are destroyed and the
// tombstone arrives, holds nothing of them in any of its files, keeps the
// other user's, and equals its replay; a replay until before the tombstone
// shows the user as erased too.
func TestErasureRebuildsTheViewWithoutTheUser(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	kr, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "ann-secret-7f3a91"
	for i := 1; i <= 30; i++ {
		publishSealed(t, b, kr, "ann", i, secret)
		publishSealed(t, b, kr, "bob", i, "bob-text")
	}
	dir := filepath.Join(t.TempDir(), "view")
	r, stop := startRunner(t, b, dir, tally{}, func(c *projector.Config) { c.Keys = kr })
	defer stop()
	last, _ := b.LastSeq(ctx, events.StreamModel)
	waitFor(t, r, last)
	if err := r.DB().Flush(); err != nil { // out of memory into files
		t.Fatal(err)
	}
	if len(filesHolding(t, dir, secret)) == 0 {
		t.Fatal("the view never held the text: this test would prove nothing")
	}
	// Erase ann: keys first, then the tombstone.
	if n, err := kr.Erase(ctx, "acme", "ann"); err != nil || n != 1 {
		t.Fatalf("erase: %d, %v", n, err)
	}
	tomb, err := b.Publish(ctx, events.EraseSubjects[events.StreamModel], &events.Event{ID: events.ErasedID("acme", "ann", "", 1),
		Tenant: events.SystemTenant, Body: &events.Erased{Tenant: "acme", User: "ann"}})
	if err != nil {
		t.Fatal(err)
	}
	after := publishSealed(t, b, kr, "bob", 31, "bob-after")
	waitFor(t, r, after)
	v := r.View()
	annItem, _ := projector.TenantKey("acme", "item", "i-ann")
	bobItem, _ := projector.TenantKey("acme", "item", "i-bob")
	if _, ok, _ := v.Get(annItem); ok {
		t.Error("the view still holds the erased user's row")
	}
	if got, ok, _ := v.Get(bobItem); !ok || string(got) != "bob-after" {
		t.Errorf("the other user's row: %q %v", got, ok)
	}
	if n, _ := tallyState(v, "acme"); n != 31 {
		t.Errorf("tally of acme = %d, want bob's 31 events", n)
	}
	live, err := v.Digest()
	v.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.DB().Flush(); err != nil {
		t.Fatal(err)
	}
	if files := filesHolding(t, filepath.Dir(dir), secret); len(files) > 0 {
		t.Errorf("the erased text is still in %v", files)
	}
	replayed, err := projector.Replay(ctx, projector.Config{JS: b.JS, Dir: filepath.Join(t.TempDir(), "replay"), Keys: kr}, tally{}, live.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if replayed != live {
		t.Errorf("after the erasure live %s, replay %s", live, replayed)
	}
	// As of before the tombstone: erased there too.
	before, err := projector.Replay(ctx, projector.Config{JS: b.JS, Dir: filepath.Join(t.TempDir(), "before"), Keys: kr}, tally{}, tomb.Sequence-1)
	if err != nil {
		t.Fatal(err)
	}
	if before.Keys == 0 || strings.Contains(before.String(), secret) {
		t.Errorf("replay until before the erasure: %s", before)
	}
}
