package logtest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is an io.Writer safe for concurrent writes and reads. The zero
// value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Lines returns the lines written so far that contain substr.
func (l *Buffer) Lines(substr string) []string {
	var out []string
	for line := range strings.Lines(l.String()) {
		if strings.Contains(line, substr) {
			out = append(out, strings.TrimSuffix(line, "\n"))
		}
	}
	return out
}
