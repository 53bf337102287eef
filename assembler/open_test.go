package assembler_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

func TestOpenCalls(t *testing.T) {
	l, err := projector.NewLocal(t.TempDir(), assembler.New(assembler.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq := uint64(0)
	apply := func(tenant, resp, item string, body events.Body) {
		t.Helper()
		seq++
		data, err := events.Encode(&events.Event{ID: fmt.Sprint(seq), Tenant: tenant, Response: resp, Item: item, At: int64(seq), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Apply(context.Background(), &projector.Msg{Seq: seq, Subject: "ts.model." + tenant + ".r.i", Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(wantResps, wantCalls int) {
		t.Helper()
		v := l.Runner().View()
		defer v.Close()
		resps, calls, err := assembler.OpenCalls(v)
		if err != nil || resps != wantResps || calls != wantCalls {
			t.Fatalf("OpenCalls = %d responses, %d calls, %v; want %d, %d", resps, calls, err, wantResps, wantCalls)
		}
	}
	check(0, 0)
	for _, tenant := range []string{"acme", "globex"} {
		for _, item := range []string{"a", "b"} {
			apply(tenant, "r1", item, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "t"})
			apply(tenant, "r1", item, &events.ArgumentsDelta{Delta: `{"x":1}`})
		}
	}
	check(2, 4)
	apply("acme", "r1", "a", &events.ArgumentsDone{})
	check(2, 3)
	apply("acme", "r1", "", &events.ResponseCompleted{})
	check(1, 2)
	apply("globex", "r1", "", &events.ResponseIncomplete{Reason: events.ReasonTruncated})
	check(0, 0)
}
