package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// A result kept in the object store is evidence through its excerpt in
// the outcome event, sealed as the raw result is: a claim citing a value
// of it is supported with its pointer, one citing it wrongly is
// contradicted, a count of a shortened list is checked against the whole
// list's length, a value past the excerpt is not contradicted, and a
// claim about the largest total is checked against the summary's
// statistics, not the excerpt's first rows.
func TestLargeResultIsEvidence(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: orders.list
    side_effect: none
grants:
  - tenant: acme
    permissions: [orders.list]
`)
	orders := make([]map[string]any, 1000)
	for i := range orders {
		orders[i] = map[string]any{"order_id": fmt.Sprintf("ORD-%05d", i), "total_eur": 4000 + i*7,
			"status": []string{"shipped", "pending"}[i%2], "note": strings.Repeat("n", 150)}
	}
	big, _ := json.Marshal(map[string]any{"orders": orders, "page": 1})
	list := newCounter(func(context.Context, executor.Call) (json.RawMessage, error) { return big, nil })
	startExec(t, b, reg, map[string]executor.Tool{"orders.list": list}, func(c *executor.Config) { c.Keys = b.Keys })
	key := publishCall(t, b, callSpec{tenant: "acme", tool: "orders.list", call: "big", run: "run1"})
	subj, _ := events.ResultSubject("acme", key)
	waitFor(t, "the outcome", func() bool { return lastOn(t, b, subj) != nil })
	raw := lastOn(t, b, subj)
	if bytes.Contains(raw.Data, []byte("ORD-00012")) {
		t.Fatal("the excerpt is in the log in the clear")
	}
	ev, err := events.DecodeWith(raw.Data, b.Keys)
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := ev.Body.(*events.CallSucceeded)
	if ok == nil || len(big) <= 64<<10 || ok.Result != nil || ok.RawRef == "" || len(ok.Excerpt) == 0 || len(ok.Excerpt) > 64<<10 ||
		len(ok.Cuts) != 1 || ok.Cuts[0].Pointer != "/orders" || ok.Cuts[0].Len != 1000 {
		t.Fatalf("outcome of a %d-byte result: %+v", len(big), ev.Body)
	}

	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), verifier.NewProjection(verifier.ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ev.Sealed = "" // NB: the local view reads the clear form
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	asubj, _ := events.AnswerSubject("acme", "resp1")
	answer, err := events.Encode(&events.Event{ID: "a1", Tenant: "acme", Run: "run1", Response: "resp1", At: time.Now().UnixNano(),
		Body: &events.AnswerSubmitted{Text: "Order ORD-00012 totals 4084 EUR. Order ORD-00013 totals 5200 EUR. Order ORD-00013 is shipped. " +
			"There are 1000 orders. Order ORD-00900 totals 10300 EUR. " +
			"The largest total is 10993 EUR. The largest total is 12000 EUR."}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Apply(context.Background(), &projector.Msg{Seq: 1, Subject: subj, Data: data}, &projector.Msg{Seq: 2, Subject: asubj, Data: answer}); err != nil {
		t.Fatal(err)
	}
	view := l.Runner().View()
	defer view.Close()
	v, err := verifier.Get(view, "acme", "resp1")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		verdict events.Verdict
		pointer string
	}{
		{events.VerdictSupported, "/orders/12/total_eur"},
		{events.VerdictContradicted, "/orders/13/total_eur"},
		{events.VerdictContradicted, "/orders/13/status"},
		{events.VerdictSupported, "/orders"},
		{events.VerdictUnsupported, ""},
		// The max, true or above it: bound to the summary's statistics
		// of total_eur over all the rows, not to the excerpt's first rows.
		{events.VerdictSupported, "/orders"},
		{events.VerdictContradicted, "/orders"},
	}
	cl := v.Verified.Claims
	if len(cl) != len(want) {
		t.Fatalf("claims %+v", cl)
	}
	for i, w := range want {
		c := cl[i]
		if c.Verdict != w.verdict || (w.pointer != "" && (len(c.Evidence) == 0 || c.Evidence[0].Pointer != w.pointer || c.Evidence[0].CallID != "big")) {
			t.Errorf("%q: %s %+v (%s), want %s at %s", c.Text, c.Verdict, c.Evidence, c.Reason, w.verdict, w.pointer)
		}
	}
}
