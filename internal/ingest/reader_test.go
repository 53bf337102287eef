package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
)

func readAll(t *testing.T, in string) ([]string, error) {
	t.Helper()
	var got []string
	err := ingest.ReadEvents(strings.NewReader(in), func(raw []byte) error {
		got = append(got, string(raw))
		return nil
	})
	return got, err
}

func TestReadEvents(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"json lines", "{\"a\":1}\n\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"json lines crlf, no final newline", "{\"a\":1}\r\n\r\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}},
		{"json lines with bom and [DONE]", "\xef\xbb\xbf{\"a\":1}\n[DONE]\n{\"b\":2}\n", []string{`{"a":1}`}},
		{"sse crlf", "data: {\"a\":1}\r\n\r\ndata: {\"b\":2}\r\n\r\n", []string{`{"a":1}`, `{"b":2}`}},
		{"sse comments and fields", ": hi\nid: 1\nretry: 5\nevent: message\ndata: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"sse multi-line data", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}},
		{"sse last event without blank line", "data: {\"a\":1}\n\ndata: {\"b\":2}", []string{`{"a":1}`, `{"b":2}`}},
		{"sse done stops", "data: {\"a\":1}\n\ndata: [DONE]\n\ndata: {\"b\":2}\n\n", []string{`{"a":1}`}},
		{"sse empty data skipped", "data:\n\nevent: ping\n\ndata: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"sse injection", "event: content_block_stop\ndata: {\"index\":0}\n\n", []string{`{"type":"content_block_stop","index":0}`}},
		{"sse injection keeps type", "event: x\ndata: {\"type\":\"y\"}\n\n", []string{`{"type":"y"}`}},
		{"sse injection empty object", "event: ping\ndata: {}\n\n", []string{`{"type":"ping"}`}},
		{"sse injection resets per event", "event: ping\ndata: {}\n\ndata: {\"a\":1}\n\n", []string{`{"type":"ping"}`, `{"a":1}`}},
		{"empty input", "", nil},
		{"blank input", "\n\n  \n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestReadEventsErrors(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := ingest.ReadEvents(strings.NewReader("{\"a\":1}\n{\"b\":2}\n"), func([]byte) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("callback error: got %v after %d calls", err, calls)
	}

	boom := errors.New("boom")
	err = ingest.ReadEvents(iotest.ErrReader(boom), func([]byte) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}

	big := "{\"a\":\"" + strings.Repeat("x", ingest.EventMax) + "\"}\n"
	if _, err := readAll(t, big); !errors.Is(err, ingest.ErrTooLarge) || !errors.Is(err, events.ErrBadInput) {
		t.Fatalf("oversize line: %v", err)
	}
	bigSSE := "data: " + strings.Repeat("x", ingest.EventMax/2) + "\ndata: " + strings.Repeat("x", ingest.EventMax/2) + "\n\n"
	if _, err := readAll(t, bigSSE); !errors.Is(err, ingest.ErrTooLarge) {
		t.Fatalf("oversize event: %v", err)
	}
}

// toSSE renders a recording as a provider would send it over SSE: an
// "event:" line with the type, the JSON with its "type" removed (as some
// gateways do), CRLF line endings and a final [DONE].
func toSSE(t *testing.T, lines [][]byte) string {
	var b strings.Builder
	b.WriteString(": connected\r\n\r\n")
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		if typ, ok := m["type"]; ok {
			var name string
			if json.Unmarshal(typ, &name) == nil && name != "" {
				// Remove "type" textually, keeping the rest byte for byte.
				i := bytes.Index(l, []byte(`"type":`+string(typ)))
				if i > 0 {
					rest := append([]byte(nil), l[:i]...)
					tail := bytes.TrimPrefix(l[i+len(`"type":`)+len(typ):], []byte(","))
					rest = append(rest, tail...)
					rest = bytes.Replace(rest, []byte(",}"), []byte("}"), 1)
					if bytes.HasPrefix(rest, []byte("{,")) {
						rest = append([]byte("{"), rest[2:]...)
					}
					if json.Valid(rest) {
						l = rest
					}
				}
				b.WriteString("event: " + name + "\r\n")
			}
		}
		b.WriteString("data: ")
		b.Write(l)
		b.WriteString("\r\n\r\n")
	}
	b.WriteString("data: [DONE]\r\n\r\n")
	return b.String()
}

// Every recording read back from SSE framing (event names only in the
// event: line) normalises to exactly what its JSON lines do.
func TestReadEventsRecordingsAsSSE(t *testing.T) {
	for _, e := range loadManifest(t) {
		lines := readLines(t, filepath.Join(streamsDir, e.File))
		want := render(feedAll(t, ingest.New(ingest.Config{Stream: "s"}), lines))
		n := ingest.New(ingest.Config{Stream: "s"})
		var got []ingest.Out
		err := ingest.ReadEvents(strings.NewReader(toSSE(t, lines)), func(raw []byte) error {
			out, err := n.Feed(raw)
			got = append(got, out...)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		if g := render(append(got, n.Flush()...)); g != want {
			t.Fatalf("%s: SSE differs:\n%s\nwant:\n%s", e.File, g, want)
		}
	}
}
