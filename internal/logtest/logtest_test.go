package logtest

import (
	"fmt"
	"sync"
	"testing"
)

// Writers in many goroutines while a reader reads: every line is kept
// whole (go test -race finds a Buffer without its mutex), and Lines picks
// those that hold the substring.
func TestBufferKeepsConcurrentLines(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				fmt.Fprintf(&b, "writer %d line %d\n", g, i)
			}
		}()
	}
	for range 10 {
		_ = b.String()
	}
	wg.Wait()
	if n := len(b.Lines("line")); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
	if n := len(b.Lines("writer 3 ")); n != 100 {
		t.Fatalf("%d lines of writer 3, want 100", n)
	}
}
