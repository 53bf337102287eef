package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultHeartbeat is the interval of heartbeat comments when none is
// configured.
const DefaultHeartbeat = 10 * time.Second

// DefaultClientStall bounds how long a write to a client may wait for the
// client to read (SSEWriter): three heartbeats.
const DefaultClientStall = 30 * time.Second

// FrameMax bounds one server-sent event read from an upstream (its data
// lines together).
const FrameMax = 8 << 20

// SSEWriter writes one server-sent event stream to a client: events with
// an id, and comments (heartbeats). Its methods are safe for concurrent
// use (the heartbeat goroutine writes between events). A write error is
// sticky: once the client is gone every later write returns it.
type SSEWriter struct {
	mu      sync.Mutex // guards everything below and every write to w
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	closed  bool // Close was called: w is never touched again
	err     error
	stop    chan struct{}
	done    chan struct{}
	buf     []byte // the event being written (writeEvent), reused
	// stall bounds how long a write may wait for the client to read
	// (armLocked); deadline is the connection's write deadline it set.
	stall    time.Duration
	deadline time.Time
}

// NewSSEWriter returns a writer on w. Nothing is written until Start, the
// first Event or the first heartbeat. A write that waits for the client to
// read longer than DefaultClientStall fails, and every later one with it.
func NewSSEWriter(w http.ResponseWriter) *SSEWriter {
	return newSSEWriter(w, DefaultClientStall)
}

func newSSEWriter(w http.ResponseWriter, stall time.Duration) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w), stall: stall}
}

// armLocked puts the connection's write deadline stall from now when
// less than half of it is left: a client that stops reading (its socket
// buffers full) fails the write within stall instead of holding the
// writer, and the upstream read that calls it, for ever. The deadline
// moves at most every stall/2, not at each event.
func (s *SSEWriter) armLocked() {
	now := time.Now()
	if s.deadline.Sub(now) > s.stall/2 {
		return
	}
	s.deadline = now.Add(s.stall)
	s.rc.SetWriteDeadline(s.deadline)
}

// Start writes the response's status line and headers (status 200,
// text/event-stream) unless they were written; set any other header on
// the ResponseWriter before.
func (s *SSEWriter) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.headLocked(); err != nil {
		return err
	}
	return s.flushLocked()
}

// headLocked writes the status line and headers into the response's
// buffer unless they were written: a write that follows and flushes
// sends them in the same write as its bytes (one system call, not two,
// before the client's first byte).
func (s *SSEWriter) headLocked() error {
	if s.started {
		return s.err
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	s.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *SSEWriter) flushLocked() error {
	if s.err != nil {
		return s.err
	}
	s.armLocked()
	if err := s.rc.Flush(); err != nil {
		s.err = err
	}
	return s.err
}

// SetHeader sets a header of the response unless the headers were
// written or the writer closed: the way a goroutine other than the
// handler's sets one (it never touches the ResponseWriter's map itself).
func (s *SSEWriter) SetHeader(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started && !s.closed {
		s.w.Header().Set(key, value)
	}
}

// CopyHeader sets the headers of h that reach a client (copyResponseHeader)
// unless the headers were written or the writer closed.
func (s *SSEWriter) CopyHeader(h http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started && !s.closed {
		copyResponseHeader(s.w.Header(), h)
	}
}

// Started reports whether the headers were written.
func (s *SSEWriter) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Event writes one event with its id (none when id is negative), its
// event name (none when empty) and its data (one data: line per line of
// data), and flushes it.
func (s *SSEWriter) Event(id int64, event string, data []byte) error {
	return s.writeEvent(id, event, data, true)
}

func (s *SSEWriter) writeEvent(id int64, event string, data []byte, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.headLocked(); err != nil {
		return err
	}
	// The event is put together in the writer's own buffer, kept from one
	// event to the next: no allocation an event.
	b := s.buf[:0]
	if event != "" {
		b = append(b, "event: "...)
		b = append(b, event...)
		b = append(b, '\n')
	}
	for {
		line, rest, more := bytes.Cut(data, []byte("\n"))
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
		if !more {
			break
		}
		data = rest
	}
	if id >= 0 {
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	if cap(b) <= eventBufMax {
		s.buf = b
	}
	if s.err != nil {
		return s.err
	}
	s.armLocked()
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return err
	}
	if flush {
		return s.flushLocked()
	}
	return nil
}

// eventBufMax bounds the buffer an SSEWriter keeps between events; a
// larger event's is let go.
const eventBufMax = 64 << 10

// Buffer writes one event as Event does but leaves it in the response's
// buffer: the next Event, Flush or heartbeat sends it. A relay that has
// more events in hand writes them together and flushes once.
func (s *SSEWriter) Buffer(id int64, event string, data []byte) error {
	return s.writeEvent(id, event, data, false)
}

// Flush sends what Buffer left in the response's buffer.
func (s *SSEWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.headLocked(); err != nil {
		return err
	}
	return s.flushLocked()
}

// Comment writes an SSE comment line (": text"), which clients ignore.
func (s *SSEWriter) Comment(text string) error {
	return s.write([]byte(": " + text + "\n\n"))
}

func (s *SSEWriter) write(p []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.headLocked(); err != nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	s.armLocked()
	if _, err := s.w.Write(p); err != nil {
		s.err = err
		return err
	}
	return s.flushLocked()
}

// Heartbeat writes a comment every interval (DefaultHeartbeat when not
// positive) until StopHeartbeat; the first one starts the response if
// nothing did. Calling it twice is a no-op.
func (s *SSEWriter) Heartbeat(every time.Duration) {
	if every <= 0 {
		every = DefaultHeartbeat
	}
	s.mu.Lock()
	if s.stop != nil || s.closed {
		s.mu.Unlock()
		return
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	stop, done := s.stop, s.done
	s.mu.Unlock()
	go func() {
		defer close(done)
		defer recoverPanic(nil, "heartbeat")
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if s.Comment("heartbeat") != nil {
					return
				}
			}
		}
	}()
}

// ErrClosed is returned by an SSEWriter's writes after Close.
var ErrClosed = errors.New("gateway: the event stream was closed")

// Close stops the heartbeats and every later write (they return
// ErrClosed, SetHeader and Heartbeat do nothing), waiting for a write
// under way: after it the ResponseWriter is no longer touched. Call it
// before the handler returns when another goroutine may still write; it
// may be called more than once.
func (s *SSEWriter) Close() {
	s.mu.Lock()
	s.closed = true // no heartbeat starts now
	s.mu.Unlock()
	s.StopHeartbeat()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true // never write the headers now
	if s.err == nil {
		if !s.deadline.IsZero() { // the connection may serve another request
			s.rc.SetWriteDeadline(time.Time{})
		}
		s.err = ErrClosed
	}
}

// StopHeartbeat stops the heartbeats and waits until none is being
// written. Call it before the handler returns.
func (s *SSEWriter) StopHeartbeat() {
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// beforeWait is an upstream's body that calls fn (when set) before each
// read of it: the moment the relay has nothing more of the upstream's in
// hand and may wait for it, so a writer that left events in its buffer
// (SSEWriter.Buffer) sends them then, and never holds one back while the
// upstream is quiet.
type beforeWait struct {
	r  io.Reader
	fn func()
}

func (b *beforeWait) Read(p []byte) (int, error) {
	if b.fn != nil {
		b.fn()
	}
	return b.r.Read(p)
}

// sseReader reads the events of an upstream's server-sent event stream.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, sseReaderBytes)}
}

// sseReaderBytes is the buffer of an sseReader: an event up to it is read
// without a copy of its line.
const sseReaderBytes = 64 << 10

// sseReader returns a reader of r's events, its buffer one a stream that
// ended gave back (putSSEReader), else new: 64 KiB a stream, about what
// a streamed answer of a few hundred events holds, was garbage after
// every answer.
func (g *Gateway) sseReader(r io.Reader) *sseReader {
	if rd, ok := g.sseReaders.Get().(*sseReader); ok {
		rd.br.Reset(r)
		return rd
	}
	return newSSEReader(r)
}

// putSSEReader gives rd's buffer back for another stream. rd is not read
// again: next's data are copies, never the buffer's bytes, so nothing a
// stream handed on refers to it.
func (g *Gateway) putSSEReader(rd *sseReader) {
	rd.br.Reset(nil)
	g.sseReaders.Put(rd)
}

// errFrameTooLarge is the error of an upstream event over FrameMax.
var errFrameTooLarge = fmt.Errorf("%w: an event over %d bytes", ErrUpstream, FrameMax)

// next returns the next event's name and data (data lines joined by
// newlines, as the SSE specification dispatches them); comments, ids and
// retry fields are dropped. At the end it returns io.EOF; an event cut
// off by the end is returned first.
func (r *sseReader) next() (event string, data []byte, err error) {
	var hasData bool
	for {
		line, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(long) > FrameMax {
					return "", nil, errFrameTooLarge
				}
				line, err = r.br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", nil, err
		}
		eof := err != nil
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			if hasData {
				return event, data, nil
			}
			if eof {
				return "", nil, io.EOF
			}
			event = ""
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			event = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if len(data) > FrameMax {
				return "", nil, errFrameTooLarge
			}
		}
		if eof {
			if hasData {
				return event, data, nil
			}
			return "", nil, io.EOF
		}
	}
}
