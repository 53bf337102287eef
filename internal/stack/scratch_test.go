package stack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenScratch: a one-shot's server runs embedded, with its data keys,
// in a temporary directory of its own that Close removes.
func TestOpenScratch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := OpenScratch(ctx, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if !strings.HasPrefix(filepath.Base(s.Dir), "toolstream-test-") {
		t.Errorf("directory %s", s.Dir)
	}
	if !s.Bus.Embedded() || s.Bus.Keys == nil {
		t.Errorf("embedded %v, keys %v", s.Bus.Embedded(), s.Bus.Keys)
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil || len(entries) == 0 {
		t.Errorf("the server keeps nothing in %s: %v", s.Dir, err)
	}
	// A stream that holds something: Close deletes it with the others
	// before the server stops.
	if _, err := s.Bus.JS.Publish(ctx, "ts.in.acme.openai-responses.s1", []byte(`{"type":"response.created"}`)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	closed = true
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Close: %v", s.Dir, err)
	}
	if !s.Bus.Conn.IsClosed() {
		t.Error("the connection is open after Close")
	}
}
