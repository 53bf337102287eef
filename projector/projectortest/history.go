package projectortest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Message is one entry of a recorded history: what a producer or another
// projection stored in the stream the projection reads.
type Message struct {
	Subject string
	Header  nats.Header // may be nil
	Data    []byte
	// Time is the stream timestamp the history records (Unix ns); zero
	// takes the previous message's plus a millisecond. The suite applies
	// the history with these times for the golden results, and with the
	// times the server stamps on a real bus.
	Time int64
}

// Event returns the message of ev on subject, encoded in the clear. A
// history holds no data keys: what a sealed log would hold is recorded
// opened.
func Event(subject string, ev *events.Event) (Message, error) {
	data, err := events.Encode(ev)
	if err != nil {
		return Message{}, fmt.Errorf("projectortest: %s: %w", subject, err)
	}
	return Message{Subject: subject, Data: data}, nil
}

// history is a recorded log and the results it must give.
type history struct {
	msgs    []projector.Msg // Seq 1…n, recorded times
	results string          // the golden results, as written
}

// timeBase is the time of a history's first message when Record gives
// none: 2026-01-01T00:00:00Z.
const timeBase = int64(1767225600) * 1e9

// stamp numbers recorded messages from 1 and fills missing times.
func stamp(in []Message) []projector.Msg {
	out := make([]projector.Msg, len(in))
	at := timeBase - 1e6
	for i, m := range in {
		if m.Time != 0 {
			at = m.Time
		} else {
			at += 1e6
		}
		out[i] = projector.Msg{Seq: uint64(i + 1), Subject: m.Subject, Header: m.Header, Data: m.Data, Time: at}
	}
	return out
}

const fileHead = `# Recorded history of the %s projection, and the results every run of it
# must reach (projector/projectortest). "msg SEQ TIME SUBJECT" is a message
# of the log, its headers on "hdr" lines, its bytes on the "data" line
# (quoted text, or base64 of an encoded event); after the log, the digest of
# the view, the events it emits and the messages it rejects.
# Regenerate: go test ./%s -run %s -update
`

// write writes the history and its results to path.
func write(path, name, pkg, test string, msgs []projector.Msg, results string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, fileHead, name, pkg, test)
	for _, m := range msgs {
		fmt.Fprintf(&b, "\nmsg %d %d %s\n", m.Seq, m.Time, m.Subject)
		if ev, err := events.Decode(m.Data); err == nil {
			fmt.Fprintf(&b, "# %s %s\n", ev.Kind, ev.ID)
		}
		for _, k := range slices.Sorted(maps.Keys(m.Header)) {
			for _, v := range m.Header[k] {
				fmt.Fprintf(&b, "hdr %s: %s\n", k, v)
			}
		}
		if text(m.Data) {
			fmt.Fprintf(&b, "data %s\n", strconv.Quote(string(m.Data)))
		} else {
			fmt.Fprintf(&b, "data b64:%s\n", base64.StdEncoding.EncodeToString(m.Data))
		}
	}
	b.WriteString("\n" + results)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// text reports whether data reads well as a quoted line: valid UTF-8
// without control characters but tabs.
func text(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, c := range data {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// read parses a history file.
func read(path string) (*history, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := &history{}
	var res strings.Builder
	var cur *projector.Msg
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", path, n, why, line) }
		switch verb {
		case "msg":
			f := strings.Fields(rest)
			if len(f) != 3 {
				return nil, bad("want msg SEQ TIME SUBJECT")
			}
			seq, err1 := strconv.ParseUint(f[0], 10, 64)
			at, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 != nil || err2 != nil || seq != uint64(len(h.msgs)+1) {
				return nil, bad("sequences count from 1 and times are Unix ns")
			}
			h.msgs = append(h.msgs, projector.Msg{Seq: seq, Time: at, Subject: f[2]})
			cur = &h.msgs[len(h.msgs)-1]
		case "hdr":
			k, v, ok := strings.Cut(rest, ": ")
			if cur == nil || !ok {
				return nil, bad("a header belongs to a msg")
			}
			if cur.Header == nil {
				cur.Header = nats.Header{}
			}
			cur.Header.Add(k, v)
		case "data":
			if cur == nil || cur.Data != nil {
				return nil, bad("one data line per msg")
			}
			if b64, ok := strings.CutPrefix(rest, "b64:"); ok {
				cur.Data, err = base64.StdEncoding.DecodeString(b64)
			} else {
				var s string
				s, err = strconv.Unquote(rest)
				cur.Data = []byte(s)
			}
			if err != nil {
				return nil, bad(err.Error())
			}
			if cur.Data == nil {
				cur.Data = []byte{}
			}
		default:
			res.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h.results = res.String()
	return h, nil
}
