package assembler_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
	"github.com/toolstream/toolstream/registry"
)

// TestConformanceIngest runs the projection contract's suite on ingest
// with a recorded history: three recorded streams of two tenants
// interleaved, numbered, some events early (held), repeated or not JSON
// (batchWorkload), and a stream whose missing position outlasts the gap
// wait, ended by a clock tick. The view is made as serve makes it.
func TestConformanceIngest(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return assembler.NewIngest(assembler.IngestConfig{}) },
		Record: ingestHistory,
	})
}

// TestConformanceAssembler runs the suite on the assembler with a recorded
// history: a signed tool registry, the model events ingest makes of
// ingestHistory (calls allowed, of unknown tools and of tools the tenant
// may not use), a registry change nobody signed, a response that goes
// silent until a clock tick times its call out, an event without a
// response id and a message that is not an event. The view is made as
// serve makes it, with the default quotas and the registry key of the
// recording (testdata/conformance/assembler.pub) trusted.
func TestConformanceAssembler(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return assembler.New(conformanceConfig(t)) },
		Record: assemblerHistory,
	})
}

// conformancePub is the public key of the registry change the assembler's
// history records (its private key was made for the recording and
// dropped).
var conformancePub = filepath.Join("testdata", "conformance", "assembler.pub")

func conformanceConfig(t *testing.T) assembler.Config {
	trust := registry.NewTrust() // trusts nothing: before the first recording only
	if _, err := os.Stat(conformancePub); err == nil {
		if trust, err = registry.LoadTrustedKeys(conformancePub); err != nil {
			t.Fatal(err)
		}
	}
	return assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](trust), Quotas: assembler.DefaultQuotas()}
}

func ingestHistory(t testing.TB) []projectortest.Message {
	var out []projectortest.Message
	for _, m := range batchWorkload(t.(*testing.T)) {
		out = append(out, projectortest.Message{Subject: m.Subject, Header: m.Header, Data: m.Data, Time: m.Time})
	}
	// A stream whose position 2 never comes: 3 and 4 are held until a
	// tick past the gap wait declares 2 lost.
	b, err := os.ReadFile(filepath.Join("..", "testdata", "streams", "anthropic-weather.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	if err := ingest.ReadEvents(bytes.NewReader(b), func(line []byte) error {
		lines = append(lines, bytes.Clone(line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	subj, err := events.IngestSubject("acme", "anthropic", "gap")
	if err != nil {
		t.Fatal(err)
	}
	at := out[len(out)-1].Time
	for pos, line := range lines[:5] {
		if pos == 2 {
			continue
		}
		at += 1e6
		h := nats.Header{}
		h.Set(assembler.HeaderSeq, strconv.Itoa(pos))
		h.Set(assembler.HeaderSession, "sess-gap")
		out = append(out, projectortest.Message{Subject: subj, Header: h, Data: line, Time: at})
	}
	at += int64(time.Minute)
	tick, err := projectortest.Event(events.InClockSubject, &events.Event{ID: fmt.Sprint("tick:", at), Tenant: events.SystemTenant, At: at, Body: &events.Tick{}})
	if err != nil {
		t.Fatal(err)
	}
	tick.Time = at
	return append(out, tick)
}

// conformanceRegistry allows acme the calculator; globex's getWeather is
// known but not granted; acme's weather is not known.
const conformanceRegistry = `tools:
  - name: calculator
    version: 1
    input_schema: {type: object}
    permission: math
  - name: getWeather
    version: 1
    input_schema: {type: object}
    permission: weather.read
grants:
  - tenant: acme
    permissions: [math]
`

func assemblerHistory(t testing.TB) []projectortest.Message {
	// The model events: what ingest makes of its history.
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "ingest"), assembler.NewIngest(assembler.IngestConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var model []projectortest.Message
	for i, m := range ingestHistory(t) {
		emitted, err := l.Apply(context.Background(), &projector.Msg{Seq: uint64(i + 1), Subject: m.Subject, Header: m.Header, Data: m.Data, Time: m.Time})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range emitted {
			msg, err := projectortest.Event(e.Subject, e.Event)
			if err != nil {
				t.Fatal(err)
			}
			msg.Time = e.Event.At
			model = append(model, msg)
		}
	}
	if len(model) == 0 {
		t.Fatal("ingest made no model events of its history")
	}
	// The registry, signed by a key made for this recording: its public
	// half is kept for conformanceConfig.
	dir := t.TempDir()
	key, err := registry.WriteKeyPair(filepath.Join(dir, "key"), filepath.Join(dir, "key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(filepath.Join(dir, "key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(conformancePub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conformancePub, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := registry.Parse([]byte(conformanceRegistry))
	if err != nil {
		t.Fatal(err)
	}
	first := model[0].Time
	rc, err := registry.Sign(key, r, "tools.yaml", first)
	if err != nil {
		t.Fatal(err)
	}
	event := func(subj string, ev *events.Event) projectortest.Message {
		t.Helper()
		m, err := projectortest.Event(subj, ev)
		if err != nil {
			t.Fatal(err)
		}
		m.Time = ev.At
		return m
	}
	out := []projectortest.Message{event(events.RegistrySubject, &events.Event{ID: events.RegistryChangedID(rc.Digest, uint64(first)), Tenant: events.SystemTenant, At: first, Body: rc})}
	out = append(out, model...)
	at := model[len(model)-1].Time
	// A change nobody signed: refused, the registry in force stays.
	at += 1e6
	out = append(out, event(events.RegistrySubject, &events.Event{ID: "unsigned", Tenant: events.SystemTenant, At: at,
		Body: &events.RegistryChanged{Digest: r.Digest(), Source: "anyone", Spec: r.Spec()}}))
	// A response that goes silent with a call open: timed out by a tick
	// past the idle timeout.
	for i, body := range []events.Body{
		&events.ResponseStarted{Provider: "anthropic"},
		&events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "calculator"},
		&events.ArgumentsDelta{Delta: `{"expression":`},
	} {
		at += 1e6
		subj, err := events.ModelSubject("acme", "quiet", "q1")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, event(subj, &events.Event{ID: fmt.Sprint("quiet/", i), Tenant: "acme", Response: "quiet", Item: "q1", CallID: "quiet-1", At: at, Body: body}))
	}
	at += int64(3 * time.Minute)
	out = append(out, event(events.ModelClockSubject, &events.Event{ID: fmt.Sprint("tick:", at), Tenant: events.SystemTenant, At: at, Body: &events.Tick{}}))
	// An event without a response id, and a message that is not one.
	subj, err := events.ModelSubject("acme", "none", "")
	if err != nil {
		t.Fatal(err)
	}
	at += 1e6
	out = append(out, event(subj, &events.Event{ID: "no-response", Tenant: "acme", At: at, Body: &events.ResponseStarted{Provider: "openai"}}))
	out = append(out, projectortest.Message{Subject: subj, Data: []byte("\x00not an event"), Time: at})
	return out
}
