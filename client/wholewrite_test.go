package client_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/ingest"
)

// TestWriteWholeIsWriteOfItsEvents: a whole Chat answer written with
// WriteWhole (read once, into chunks) stores the model events, ids
// included, that Write of each of its streamed form's JSON events stores;
// so does one refused in part (too many choices) and one left to
// StreamEventsOf (a misspelt key).
func TestWriteWholeIsWriteOfItsEvents(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, bustest.Admin, client.WithKeys(b.Keys), client.WithClock(func() time.Time { return time.Unix(0, 42) }))
	for i, c0 := range []struct {
		body    string
		decoded bool
	}{
		{`{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},{"function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`, true},
		{`{"id":"c2","choices":[` + strings.Repeat(`{"message":{"content":"a"},"finish_reason":"stop"},`, 70) + `{"message":{}}]}`, true},
		{`{"id":"c3","choices":[{"index":0,"message":{"contant":"a"},"finish_reason":"stop"}]}`, false},
	} {
		a, err := ingest.DecodeWhole(ingest.FormatOpenAIChat, []byte(c0.body))
		if err != nil || a.Decoded() != c0.decoded {
			t.Fatalf("answer %d: DecodeWhole %v, decoded %v", i, err, a != nil && a.Decoded())
		}
		evs, err := a.Events()
		if err != nil {
			t.Fatal(err)
		}
		var got [2][]string
		for way := range 2 {
			tenant := fmt.Sprintf("t%d-%d", i, way)
			w, err := c.NewWriter(ctx, client.WithStream(client.Stream{Tenant: tenant, ID: "s1", Format: string(ingest.FormatOpenAIChat), User: "u1"}))
			if err != nil {
				t.Fatal(err)
			}
			if way == 0 {
				err = w.WriteWhole(ctx, a)
			} else {
				for _, ev := range evs {
					if err = w.Write(ctx, ev); err != nil {
						break
					}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Close(ctx); err != nil {
				t.Fatal(err)
			}
			for _, s := range modelEvents(ctx, t, b, tenant) {
				id := strings.Replace(s.ev.ID, tenant, "T", 1)
				got[way] = append(got[way], id+" "+canonical(s.subject, s.ev))
			}
		}
		if len(got[0]) == 0 || !slices.Equal(got[0], got[1]) {
			t.Fatalf("answer %d: WriteWhole stored\n%s\nWrite of its events\n%s", i, strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
		}
	}
}
