package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/events"
)

// extractCmd runs the datadriven command "extract [lang=en|zh]" (see
// TestDataDriven; the files are in testdata/extract/): the input is one user
// message, the output one line per observation the RuleExtractor reads from
// it — kind slot[=value] polarity, confidence, TTL if bounded, the sentence
// — or "nothing" (the message is kept as an episode). lang defaults to ""
// (both languages), as the engine calls it.
//
// With at=<RFC 3339 time> the message is read as said then (ExtractAt), and
// a start and an end said by the calendar show as from=<time>, until=<time>.
func extractCmd(t *testing.T, d *datadriven.TestData) string {
	var at int64
	if s := strArg(d, "at", ""); s != "" {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			d.Fatalf(t, "at: %v", err)
		}
		at = tm.UnixNano()
	}
	obs := RuleExtractor{}.ExtractAt(d.Input, strArg(d, "lang", ""), at)
	if len(obs) == 0 {
		return "nothing"
	}
	var b strings.Builder
	for _, o := range obs {
		if o.ID != "" || o.Confidence <= 0 || o.Confidence > 1 {
			t.Errorf("%q: malformed %+v", d.Input, o)
		}
		fmt.Fprintf(&b, "%s conf=%g", obsString(o), o.Confidence)
		if o.TTL != 0 {
			fmt.Fprintf(&b, " ttl=%s", time.Duration(o.TTL))
		}
		if o.ValidFrom != 0 {
			fmt.Fprintf(&b, " from=%s", time.Unix(0, o.ValidFrom).UTC().Format(time.RFC3339))
		}
		if o.ValidUntil != 0 {
			fmt.Fprintf(&b, " until=%s", time.Unix(0, o.ValidUntil).UTC().Format(time.RFC3339))
		}
		if o.OpenEnded {
			b.WriteString(" open_ended")
		}
		fmt.Fprintf(&b, " %q\n", o.Text)
	}
	return b.String()
}

// obsString is an observation's short form: kind subject/attribute[=value]
// polarity.
func obsString(o events.Observation) string {
	s := fmt.Sprintf("%s %s/%s", o.Kind, o.Subject, o.Attribute)
	if o.Value != "" {
		s += "=" + o.Value
	}
	return s + " " + o.Polarity
}

func extractAll(text, lang string) string {
	var out []string
	for _, o := range (RuleExtractor{}).Extract(text, lang) {
		out = append(out, obsString(o))
	}
	return strings.Join(out, "; ")
}

func TestExtractIsBounded(t *testing.T) {
	text := strings.Repeat("I love tea. ", 100)
	if n := len(RuleExtractor{}.Extract(text, "")); n != observationsMax {
		t.Fatalf("%d observations", n)
	}
}

// FuzzExtract: the extractor never panics and always gives slotted,
// well-formed observations.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"I love spicy food", "我对花生过敏", "I can't eat it", "我不能吃", "I'm", "，但是", "I am allergic to"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, o := range (RuleExtractor{}).Extract(text, "") {
			if o.Subject == "" || o.Attribute == "" || o.Kind == "" || o.Polarity == "" {
				t.Fatalf("%q: %+v", text, o)
			}
		}
	})
}

// TestExtractGoldenCoversHeldout: every message of the held-out set is the
// input of an extract command in testdata/extract/, so the golden files
// show what a change of the extractor does to each of them.
func TestExtractGoldenCoversHeldout(t *testing.T) {
	inputs := map[string]bool{}
	datadriven.Walk(t, "testdata/extract", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "extract" {
				inputs[d.Input] = true
			}
			return d.Expected
		})
	})
	for _, s := range loadHeldout(t, "heldout/scenarios.jsonl") {
		for _, l := range s.lines {
			if l.Say != "" && !inputs[l.Say] {
				t.Errorf("%s %s: %q is in no extract command of testdata/extract/", s.name, l.ID, l.Say)
			}
		}
	}
}
