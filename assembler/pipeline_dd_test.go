package assembler_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
)

// TestPipelineDataDriven feeds raw provider events (as the provider sent
// them) through ingest and the assembler and prints the outcomes: one file
// per behaviour, per provider.
//
//	stream format=F [tagged]   raw events, one JSON object per line; the
//	                           stream then ends (end-of-stream marker)
//	stream-open format=F       the same without the end marker
//	arrive format=F            raw events in arrival order, each line
//	                           "<position> <json>", "<position> end" (the end
//	                           marker) or "tick <ms>" (a clock tick at that
//	                           event time; raw event k arrives at ≈2k ms)
func TestPipelineDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/pipeline", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			format := "auto"
			d.MaybeScanArgs(t, "format", &format)
			if d.HasArg("tagged") {
				format += assembler.TaggedSuffix
			}
			p := newPipeline(t)
			p.runs++
			p.tenant, p.out = "t", nil
			pos := 0
			for _, line := range strings.Split(d.Input, "\n") {
				if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if d.Cmd == "arrive" {
					arrive(t, p, format, line)
					continue
				}
				p.raw(format, "s", pos, []byte(line), false)
				pos++
			}
			if d.Cmd == "stream" {
				p.raw(format, "s", pos, nil, true)
			}
			var outs []*events.Event
			for _, ev := range p.out {
				if strings.HasPrefix(string(ev.Kind), "call.") || ev.Kind == events.KindInputRejected {
					outs = append(outs, ev)
				}
			}
			return render(outs)
		})
	})
}

// arrive applies one line of the arrive command.
func arrive(t *testing.T, p *pipeline, format, line string) {
	head, rest, _ := strings.Cut(line, " ")
	if head == "tick" {
		ms, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			t.Fatalf("tick %q: %v", rest, err)
		}
		p.tick(ms * 1e6)
		return
	}
	pos, err := strconv.Atoi(head)
	if err != nil {
		t.Fatalf("position %q: %v", head, err)
	}
	if rest == "end" {
		p.raw(format, "s", pos, nil, true)
		return
	}
	p.raw(format, "s", pos, []byte(rest), false)
}
