package console

import (
	"context"
	"net/http"
	"sort"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/projector"
)

// Projection is one projection's health.
type Projection struct {
	Name       string `json:"name"`
	Stream     string `json:"stream"`
	Running    bool   `json:"running"`
	Checkpoint uint64 `json:"checkpoint"`
	Last       uint64 `json:"last"` // the stream's last sequence
	Lag        uint64 `json:"lag"`  // messages behind the stream
	Backlog    int64  `json:"relay_backlog"`
	Applied    uint64 `json:"applied"`
	Rejected   uint64 `json:"rejected"`
}

// Health is what the health page shows, as /metrics measures it.
type Health struct {
	Connected   bool               `json:"connected"`
	Projections []Projection       `json:"projections"`
	OpenCalls   *int               `json:"open_calls,omitempty"`     // the assembler's (every tenant: only a grant of every tenant sees it)
	OpenResps   *int               `json:"open_responses,omitempty"` // likewise
	Pending     int                `json:"pending"`                  // calls the grant sees decided but not finished
	Executor    *executor.Stats    `json:"executor,omitempty"`
	Breakers    []executor.Breaker `json:"breakers"`
	At          time.Time          `json:"at"`
}

func (s *Server) health(w http.ResponseWriter, r *http.Request, g Grant) {
	writeJSON(w, s.Health(r.Context(), g))
}

// Health measures this process for g: projections, the log, the
// executor's breakers of the tenants g sees.
func (s *Server) Health(ctx context.Context, g Grant) Health {
	b := s.cfg.Bus
	h := Health{Connected: b.Conn != nil && b.Conn.IsConnected(), Breakers: []executor.Breaker{}, At: s.cfg.Now().UTC()}
	lasts := map[string]uint64{}
	names := make([]string, 0, len(s.cfg.Runners))
	for n := range s.cfg.Runners {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := s.cfg.Runners[n]
		st := r.Stats()
		p := Projection{Name: n, Stream: r.Stream(), Running: r.Running(), Checkpoint: st.Checkpoint, Backlog: st.OutboxBacklog,
			Applied: st.Applied, Rejected: st.Rejected}
		last, ok := lasts[p.Stream]
		if !ok && h.Connected {
			c, cancel := context.WithTimeout(ctx, 2*time.Second)
			if seq, err := b.LastSeq(c, p.Stream); err == nil {
				last, ok = seq, true
				lasts[p.Stream] = seq
			}
			cancel()
		}
		if ok {
			p.Last = last
			if last > st.Checkpoint {
				p.Lag = last - st.Checkpoint
			}
		}
		h.Projections = append(h.Projections, p)
		if n == assembler.Name && g.Tenant == "" {
			h.OpenResps, h.OpenCalls = openCalls(r)
		}
	}
	list, _ := s.feed.list(g, CallFilter{})
	for _, c := range list {
		if c.State == StateCompleted || c.State == StateRunning || c.State == StateAwaiting {
			h.Pending++
		}
	}
	if ex := s.cfg.Executor; ex != nil {
		st := ex.Stats()
		if g.Tenant == "" {
			h.Executor = &st
		}
		for _, br := range ex.Breakers() {
			if g.Sees(br.Tenant) {
				h.Breakers = append(h.Breakers, br)
			}
		}
	}
	return h
}

// openCalls reads the assembler's open responses and calls from a snapshot
// of its view; nil when the runner closed under it.
func openCalls(r *projector.Runner) (resps, calls *int) {
	defer func() {
		if p := recover(); p != nil { // the runner closed under the read
			resps, calls = nil, nil
		}
	}()
	v := r.View()
	defer v.Close()
	nr, nc, err := assembler.OpenCalls(v)
	if err != nil {
		return nil, nil
	}
	return &nr, &nc
}
