package assembler_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// TestAssembler runs the datadriven files in testdata/assembler: canonical
// model events in, call outcomes out, through the real bus and Pebble.
//
// Commands:
//
//	apply [tenant=T]   events, one per line (see parseLine); prints what was emitted
//	registry [unsigned] records a tools file, signed by the test's key (or not)
//	republish-registry n=N  publishes the N-th registry change of the log again
//	rejections         lists the messages the view rejected, by typed reason
//	restart            stops the runner and starts a new one on the same view
//	replay             rebuilds the view from sequence 1 and compares digests
func TestAssembler(t *testing.T) {
	datadriven.Walk(t, "testdata/assembler", func(t *testing.T, path string) {
		key, err := registry.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		cfg := assembler.Config{ArgsBytesMax: 64, AcceptRegistry: registry.Accepter[assembler.Validator](key.Trust()), LenientTenants: []string{"lenient"}}
		if strings.Contains(path, "idle") {
			cfg.IdleTimeout = 30e9
		}
		h := newHarness(t, cfg)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "apply":
				tenant := "acme"
				d.MaybeScanArgs(t, "tenant", &tenant)
				var last uint64
				for _, line := range strings.Split(d.Input, "\n") {
					if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
						continue
					}
					last = h.publish(parseLine(t, tenant, line))
				}
				h.settle(last)
				return render(h.emitted())
			case "registry":
				r, err := registry.Parse([]byte(d.Input))
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				if d.HasArg("unsigned") { // as anyone who may publish on the subject could
					h.publish(&events.Event{Tenant: events.SystemTenant, Body: &events.RegistryChanged{Digest: r.Digest(), Source: "test", Spec: r.Spec()}})
					return "ok\n"
				}
				if _, err := registry.Publish(context.Background(), registry.PublishConfig{JS: h.b.JS, Key: key, Source: "test"}, r); err != nil {
					t.Fatal(err)
				}
				return "ok\n"
			case "republish-registry":
				var n int
				d.ScanArgs(t, "n", &n)
				h.republishRegistry(n)
				return "ok\n"
			case "rejections":
				return h.rejections()
			case "restart":
				h.stop()
				h.start()
				return "ok\n"
			case "replay":
				return h.replay()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}
