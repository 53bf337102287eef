package ingest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]ingest.Format{
		"": ingest.FormatAuto, "auto": ingest.FormatAuto,
		"openai-responses": ingest.FormatOpenAIResponses, "responses": ingest.FormatOpenAIResponses,
		"openai-chat": ingest.FormatOpenAIChat, "openai": ingest.FormatOpenAIChat, "chat": ingest.FormatOpenAIChat,
		"Anthropic": ingest.FormatAnthropic, "claude": ingest.FormatAnthropic,
		"gemini": ingest.FormatGemini, "google": ingest.FormatGemini, " GOOGLE ": ingest.FormatGemini,
	} {
		got, err := ingest.ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ingest.ParseFormat("cohere")
	if !errors.Is(err, ingest.ErrUnknownFormat) || !errors.Is(err, events.ErrBadInput) {
		t.Fatalf("unknown format: %v", err)
	}
}

func TestSentinelsAreBadInput(t *testing.T) {
	for _, err := range []error{ingest.ErrMalformedInput, ingest.ErrUnknownShape, ingest.ErrUnknownFormat,
		ingest.ErrTooLarge, ingest.ErrBadState} {
		if !errors.Is(err, events.ErrBadInput) {
			t.Errorf("%v does not wrap events.ErrBadInput", err)
		}
		if !strings.HasPrefix(err.Error(), "ingest: ") {
			t.Errorf("%q lacks the package prefix", err)
		}
	}
}

func TestFeedBounds(t *testing.T) {
	n := ingest.New(ingest.Config{})
	big := []byte(`{"choices":[],"x":"` + strings.Repeat("a", ingest.EventMax) + `"}`)
	if _, err := n.Feed(big); !errors.Is(err, ingest.ErrTooLarge) {
		t.Fatalf("oversize event: %v", err)
	}
	if _, err := ingest.New(ingest.Config{Format: "cohere"}).Feed([]byte(`{}`)); !errors.Is(err, ingest.ErrUnknownFormat) {
		t.Fatalf("bad configured format: %v", err)
	}
	if _, err := ingest.New(ingest.Config{}).Feed([]byte(`{"hello":1}`)); !errors.Is(err, ingest.ErrUnknownFormat) {
		t.Fatalf("undetectable event: %v", err)
	}

	// Too many choices in one response.
	var b strings.Builder
	b.WriteString(`{"id":"c","choices":[`)
	for i := 0; i <= ingest.ChoicesMax; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"index":%d,"delta":{"content":"x"}}`, i)
	}
	b.WriteString(`]}`)
	if _, err := ingest.New(ingest.Config{Format: ingest.FormatOpenAIChat}).Feed([]byte(b.String())); !errors.Is(err, ingest.ErrTooLarge) {
		t.Fatalf("too many choices: %v", err)
	}
}

// More open items than ItemsMax: the oldest open call is aborted
// (too_large), never silently dropped.
func TestItemsMaxAbortsOldest(t *testing.T) {
	n := ingest.New(ingest.Config{Format: ingest.FormatOpenAIChat})
	var aborted []string
	for i := 0; i <= ingest.ItemsMax; i++ {
		out, err := n.Feed([]byte(fmt.Sprintf(`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","function":{"name":"f","arguments":"{}"}}]}}]}`, i, i)))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if a, ok := o.Body.(*events.ItemAborted); ok {
				if a.Reason != events.ReasonTooLarge {
					t.Fatalf("reason %s", a.Reason)
				}
				aborted = append(aborted, o.Item)
			}
		}
	}
	if len(aborted) != 1 || aborted[0] != "call_0" {
		t.Fatalf("aborted %v, want [call_0]", aborted)
	}
}

// A tag whose inner text exceeds ArgsMax is aborted; the text after its
// close tag is display text again.
func TestTaggedTextArgsMax(t *testing.T) {
	n := ingest.New(ingest.Config{Format: ingest.FormatOpenAIChat, TaggedText: true})
	chunk := strings.Repeat("x", 64<<10)
	var outs []ingest.Out
	feed := func(s string) {
		out, err := n.Feed(chatText(s))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out...)
	}
	feed("<tool_call>")
	for i := 0; i < ingest.ArgsMax/len(chunk)+2; i++ {
		feed(chunk)
	}
	feed("</tool_call>after")
	out, _ := n.Feed(chatStop)
	outs = append(outs, out...)
	fo := newFold()
	fo.add(outs...)
	if len(fo.Calls) != 1 || fo.Calls[0].status() != "aborted" || !strings.HasSuffix(fo.Text.String(), "after") {
		t.Fatalf("%d calls, text %q", len(fo.Calls), fo.Text.String()[:20])
	}
}

func TestRestoreErrors(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("garbage"), {0xc1}, {0x81, 0xa1, 'v', 0x05}} {
		if _, err := ingest.Restore(ingest.Config{}, data); !errors.Is(err, ingest.ErrBadState) {
			t.Errorf("Restore(%q): %v", data, err)
		}
	}
	n := ingest.New(ingest.Config{})
	if _, err := n.Feed([]byte(`{"type":"message_start","message":{"id":"m"}}`)); err != nil {
		t.Fatal(err)
	}
	st, err := n.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Restore(ingest.Config{Format: ingest.FormatGemini}, st); !errors.Is(err, ingest.ErrBadState) {
		t.Fatalf("format mismatch: %v", err)
	}
	r, err := ingest.Restore(ingest.Config{Format: ingest.FormatAnthropic}, st)
	if err != nil || r.Format() != ingest.FormatAnthropic {
		t.Fatalf("restore: %v %v", r, err)
	}
}

func ExampleNormalizer_Feed() {
	n := ingest.New(ingest.Config{Format: ingest.FormatOpenAIChat, Stream: "s1"})
	for _, raw := range []string{
		`{"id":"c1","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":"}}]}}]}`,
		`{"id":"c1","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`{"id":"c1","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	} {
		out, err := n.Feed([]byte(raw))
		if err != nil {
			fmt.Println("rejected:", err)
			continue
		}
		for _, o := range out {
			fmt.Println(o)
		}
	}
	// The stream's end ([DONE]): a chat response's verdict waits for it,
	// or for the next chunk, in case an in-band error follows.
	for _, o := range n.Flush() {
		fmt.Println(o)
	}
	// Output:
	// response_started r=c1 provider="openai-chat" model="gpt-4o"
	// item_added r=c1 i=call_1 c=call_1 type=function_call index=0 name="weather"
	// arguments_delta r=c1 i=call_1 c=call_1 delta="{\"city\":"
	// arguments_delta r=c1 i=call_1 c=call_1 delta="\"Paris\"}"
	// arguments_done r=c1 i=call_1 c=call_1
	// response_completed r=c1 stop="tool_calls"
}

func ExampleReadEvents() {
	sse := "event: message_start\n" +
		"data: {\"message\":{\"id\":\"msg_1\",\"model\":\"claude\"}}\n\n" +
		": keep-alive\n\n" +
		"event: message_delta\n" +
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n" +
		"event: message_stop\n" +
		"data: {\"type\":\"message_stop\"}\n\n"
	n := ingest.New(ingest.Config{})
	err := ingest.ReadEvents(strings.NewReader(sse), func(raw []byte) error {
		out, err := n.Feed(raw)
		for _, o := range out {
			fmt.Println(o)
		}
		return err
	})
	fmt.Println("err:", err)
	// Output:
	// response_started r=msg_1 provider="anthropic" model="claude"
	// response_completed r=msg_1 stop="end_turn"
	// err: <nil>
}
