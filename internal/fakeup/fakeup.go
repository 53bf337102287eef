// Package fakeup is a fake upstream model server for tests: it stands for
// the internet. It answers POST …/chat/completions, …/responses and
// …/messages with recorded provider streams (JSON lines as in
// testdata/streams, served as SSE in the provider's framing), chosen for
// each request by the test's script, and keeps every request body so a
// test can check what the gateway sent (the second round's tool results).
//
// A recording is served with its response id made unique per request
// (the recorded id with "-<n>" appended), as a real provider's ids are:
// the same recording served twice is two responses.
package fakeup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// Answer is what the server sends for one request: a recording (a file
// of JSON lines) or an error status with its body.
type Answer struct {
	File   string
	Status int    // non-zero: answer with this status and Body instead
	Body   string // the error body
	// Hold, when set, is waited on after the first half of the stream is
	// sent and before the rest (a model that pauses mid-answer).
	Hold <-chan struct{}
	// HeadersHold, when set, is waited on before the status and headers
	// are sent (an upstream slow to answer at all).
	HeadersHold <-chan struct{}
	// Header is added to the answer's headers (Retry-After of a 429).
	Header http.Header
	// CutAfter, when positive, cuts the connection after that many events
	// of the recording were sent; negative cuts it right after the status
	// and headers (a stream that breaks before its first event).
	CutAfter int
}

// Script picks the answer to the n-th request (1, 2, …) of the server,
// given its body; an error fails the test and answers 500.
type Script func(n int, path string, body []byte) (Answer, error)

// Server is a fake upstream.
type Server struct {
	*httptest.Server
	t      testing.TB
	script Script

	mu       sync.Mutex
	requests []Request // guarded by mu
}

// Request is one request the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Start starts a server answering with script; it stops when the test ends.
func Start(t testing.TB, script Script) *Server {
	s := &Server{t: t, script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	body.ReadFrom(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body.Bytes()})
	n := len(s.requests)
	s.mu.Unlock()
	a, err := s.script(n, r.URL.Path, body.Bytes())
	if err != nil {
		s.t.Errorf("fake upstream, request %d to %s: %v", n, r.URL.Path, err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for k, vs := range a.Header {
		w.Header()[k] = vs
	}
	if a.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		w.Write([]byte(a.Body))
		return
	}
	lines, err := Lines(a.File)
	if err != nil {
		s.t.Errorf("fake upstream: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	lines = Unique(lines, n)
	if a.HeadersHold != nil {
		select {
		case <-a.HeadersHold:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	named := strings.HasSuffix(r.URL.Path, "/messages") || strings.HasSuffix(r.URL.Path, "/responses") // event: lines, as those providers send
	if a.CutAfter < 0 {
		if fl != nil {
			fl.Flush()
		}
		panic(http.ErrAbortHandler) // net/http cuts the connection
	}
	for i, line := range lines {
		if a.CutAfter > 0 && i == a.CutAfter {
			panic(http.ErrAbortHandler)
		}
		if a.Hold != nil && i == len(lines)/2 {
			select {
			case <-a.Hold:
			case <-r.Context().Done():
				return
			}
		}
		if named {
			var ev struct{ Type string }
			json.Unmarshal(line, &ev)
			fmt.Fprintf(w, "event: %s\n", ev.Type)
		}
		fmt.Fprintf(w, "data: %s\n\n", line)
		if fl != nil {
			fl.Flush()
		}
	}
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// Lines reads a recording: one JSON event per line.
func Lines(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	return out, sc.Err()
}

// Unique rewrites a recording's response id (Chat's id, Responses'
// response.id, Anthropic's message.id) to "<id>-<n>" everywhere it occurs.
func Unique(lines [][]byte, n int) [][]byte {
	id := ""
	for _, l := range lines {
		var ev struct {
			ID       string              `json:"id"`
			Object   string              `json:"object"`
			Message  struct{ ID string } `json:"message"`
			Response struct{ ID string } `json:"response"`
		}
		if json.Unmarshal(l, &ev) != nil {
			continue
		}
		switch {
		case ev.Message.ID != "":
			id = ev.Message.ID
		case ev.Response.ID != "":
			id = ev.Response.ID
		case ev.Object == "chat.completion.chunk" && ev.ID != "":
			id = ev.ID
		}
		if id != "" {
			break
		}
	}
	if id == "" {
		return lines
	}
	old, repl := []byte(`"`+id+`"`), []byte(fmt.Sprintf(`"%s-%d"`, id, n))
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = bytes.ReplaceAll(l, old, repl)
	}
	return out
}
