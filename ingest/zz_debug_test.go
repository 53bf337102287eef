package ingest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/ingest"
)

func TestZZDump(t *testing.T) {
	f := os.Getenv("DUMP")
	if f == "" {
		t.Skip()
	}
	n := ingest.New(ingest.Config{Stream: "s1", TaggedText: os.Getenv("TAGGED") != ""})
	out := feedAll(t, n, readLines(t, filepath.Join(streamsDir, f)))
	os.Stdout.WriteString(render(out))
	fo := newFold()
	fo.add(out...)
	os.Stdout.WriteString(fo.String())
}
