package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadEvents reads producer input and calls fn with each raw event's JSON
// bytes, in order. The input is either
//
//   - JSON lines: one JSON object per line, blank lines skipped; or
//   - raw server-sent events: "event:" and "data:" fields, several "data:"
//     lines of one event joined with "\n", ":" comment lines and "id:" /
//     "retry:" fields ignored, events separated by a blank line;
//
// detected from the first non-blank line (a line starting with '{' means JSON
// lines). Lines end in LF or CRLF. "data: [DONE]" (or a "[DONE]" line) ends
// the stream; the rest of the input is not read.
//
// Event-name injection: Anthropic and OpenAI Responses put the event type
// both in the SSE "event:" line and in the JSON's "type"; some producers and
// gateways keep only the former. When an SSE event has an explicit event name
// (other than the SSE default "message") and its data is a JSON object without
// a top-level "type", ReadEvents inserts "type": <event name> as the object's
// first member before calling fn. Data that is not a JSON object is passed on
// unchanged, for Feed to reject.
//
// A line or an event larger than EventMax returns ErrTooLarge. An error from
// fn stops reading and is returned as it is; a read error is wrapped. The
// bytes fn is given are valid only until it returns (they may be the
// reader's buffer): fn copies what it keeps.
func ReadEvents(r io.Reader, fn func(raw []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first := true
	for {
		line, err := readLine(br)
		if err != nil {
			return err
		}
		if line == nil {
			return nil
		}
		if first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			first = false
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '{' || t[0] == '[' {
			return readJSONLines(br, line, fn)
		}
		return readSSE(br, line, fn)
	}
}

// readLine returns the next line without its LF or CRLF, nil at the end of
// the input. A line that fits the reader's buffer is the buffer's bytes,
// not a copy: valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	frag, err := br.ReadSlice('\n')
	if err == nil {
		return bytes.TrimSuffix(frag[:len(frag)-1], []byte("\r")), nil
	}
	var line []byte
	for first := true; ; first = false {
		if !first {
			frag, err = br.ReadSlice('\n')
		}
		if len(line)+len(frag) > EventMax+2 {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrTooLarge, EventMax)
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			line = line[:len(line)-1]
			return bytes.TrimSuffix(line, []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil, nil
			}
			return bytes.TrimSuffix(line, []byte("\r")), nil
		default:
			return nil, fmt.Errorf("ingest: read: %w", err)
		}
	}
}

func readJSONLines(br *bufio.Reader, line []byte, fn func([]byte) error) error {
	for line != nil {
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
		case bytes.Equal(t, []byte("[DONE]")):
			return nil
		default:
			if err := fn(t); err != nil {
				return err
			}
		}
		var err error
		if line, err = readLine(br); err != nil {
			return err
		}
	}
	return nil
}

func readSSE(br *bufio.Reader, line []byte, fn func([]byte) error) error {
	var (
		name    string
		data    []byte
		hasData bool
	)
	dispatch := func() (stop bool, err error) {
		defer func() { name, data, hasData = "", nil, false }()
		if !hasData {
			return false, nil
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
			return true, nil
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return false, nil
		}
		return false, fn(injectType(data, name))
	}
	for line != nil {
		if len(line) == 0 {
			if stop, err := dispatch(); stop || err != nil {
				return err
			}
		} else if line[0] != ':' {
			field, value := line, []byte(nil)
			if i := bytes.IndexByte(line, ':'); i >= 0 {
				field, value = line[:i], line[i+1:]
				value = bytes.TrimPrefix(value, []byte(" "))
			}
			switch string(field) {
			case "event":
				name = string(value)
			case "data":
				if hasData {
					data = append(data, '\n')
				}
				if len(data)+len(value) > EventMax {
					return fmt.Errorf("%w: event data longer than %d bytes", ErrTooLarge, EventMax)
				}
				data = append(data, value...)
				hasData = true
			}
			// id, retry and unknown fields are ignored.
		}
		var err error
		if line, err = readLine(br); err != nil {
			return err
		}
	}
	_, err := dispatch() // an event not followed by a blank line before the end
	return err
}

// injectType returns data with "type": name inserted when data is a JSON
// object without a top-level "type" and name is an explicit event name.
func injectType(data []byte, name string) []byte {
	if name == "" || name == "message" {
		return data
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return data
	}
	if hasType, ok := topHasType(t); !ok || hasType {
		return data
	}
	out := make([]byte, 0, len(t)+len(name)+12)
	out = append(out, `{"type":`...)
	out = appendQuoted(out, name)
	rest := bytes.TrimSpace(t[1:])
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// topHasType reports whether the JSON object t has a top-level "type" key
// (ok false: t is no JSON object). The scanner answers in one pass with no
// allocation; where it gives up (an escaped key, deep nesting, bad input)
// encoding/json decides, as it did for every named event before.
func topHasType(t []byte) (hasType, ok bool) {
	s := &scanner{b: t}
	if s.top(func(key []byte, i int) int {
		hasType = hasType || string(key) == "type"
		return s.skip(i)
	}) {
		return hasType, true
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(t, &top) != nil {
		return false, false
	}
	_, hasType = top["type"]
	return hasType, true
}
