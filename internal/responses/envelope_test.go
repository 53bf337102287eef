package responses_test

import (
	"context"
	"crypto/cipher"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/projector"
)

// countingKeys is a keyring whose keys count the sealed bodies they open.
type countingKeys struct {
	events.Keyring
	opened *atomic.Int64
}

func (k countingKeys) OpenKey(tenant, scope, id string) (cipher.AEAD, error) {
	a, err := k.Keyring.OpenKey(tenant, scope, id)
	if err != nil {
		return nil, err
	}
	return countingAEAD{AEAD: a, opened: k.opened}, nil
}

type countingAEAD struct {
	cipher.AEAD
	opened *atomic.Int64
}

func (a countingAEAD) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	a.opened.Add(1)
	return a.AEAD.Open(dst, nonce, ciphertext, additionalData)
}

// TestOnlyTheBodiesTheRowKeepsAreOpened: the projection counts every event
// of a response but opens (and decodes) only the bodies whose fields it
// keeps — the start, the end — never a delta's or an item's; an event whose
// key was destroyed still changes nothing, as when every body was opened.
func TestOnlyTheBodiesTheRowKeepsAreOpened(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	type ev struct {
		item string
		body events.Body
	}
	history := []ev{
		{"", &events.ResponseStarted{Provider: "openai", Model: "m1"}},
		{"i1", &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "weather"}},
		{"i1", &events.ArgumentsDelta{Delta: `{"city":`}},
		{"i1", &events.ArgumentsDelta{Delta: `"Oslo"`}},
		{"i1", &events.ArgumentsDelta{Delta: `}`}},
		{"i1", &events.ArgumentsDone{}},
		{"i1", &events.OutputItemDone{}},
		{"i2", &events.OutputItemAdded{Type: events.ItemText}},
		{"i2", &events.TextDelta{Text: "它在下雨 and cold"}},
		{"i2", &events.OutputItemDone{}},
		{"", &events.ResponseCompleted{StopReason: "tool_use"}},
	}
	var last uint64
	for _, user := range []string{"u1", "u2"} {
		for i, e := range history {
			subj, err := events.ModelSubject("acme", "r-"+user, e.item)
			if err != nil {
				t.Fatal(err)
			}
			ack, err := b.Publish(ctx, subj, &events.Event{ID: "acme/r-" + user + "/" + string(rune('a'+i)), Tenant: "acme", User: user,
				Response: "r-" + user, Item: e.item, At: int64(i + 1), Body: e.body})
			if err != nil {
				t.Fatal(err)
			}
			last = ack.Sequence
		}
	}
	if _, err := b.Keys.(*keys.Store).Erase(ctx, "acme", "u2"); err != nil {
		t.Fatal(err)
	}
	var opened atomic.Int64
	r, err := projector.New(projector.Config{JS: b.JS, Keys: countingKeys{Keyring: b.Keys, opened: &opened}, Dir: t.TempDir()}, responses.Projection{})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	t.Cleanup(func() { cancel(); <-done; r.Close() })
	if err := r.WaitFor(rctx, last); err != nil {
		t.Fatal(err)
	}
	v := r.View()
	defer v.Close()
	got, err := responses.Get(v, "acme", "r-u1")
	if err != nil {
		t.Fatal(err)
	}
	want := responses.Response{Tenant: "acme", ID: "r-u1", Provider: "openai", Model: "m1", Status: "completed", Reason: "tool_use",
		Items: 2, Events: len(history), FirstSeq: 1, LastSeq: uint64(len(history)), FirstAt: 1, LastAt: int64(len(history))}
	if got != want {
		t.Errorf("row\n got %+v\nwant %+v", got, want)
	}
	if n := opened.Load(); n != 2 {
		t.Errorf("%d sealed bodies opened of %d events, want 2 (the start and the end)", n, len(history))
	}
	if _, err := responses.Get(v, "acme", "r-u2"); !errors.Is(err, responses.ErrNotFound) {
		t.Errorf("a response whose key was destroyed: err %v, want ErrNotFound (its events change nothing)", err)
	}
}
