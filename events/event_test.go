package events_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

func sample() []*events.Event {
	return []*events.Event{
		{ID: "model:acme/r1/1/0", Tenant: "acme", Response: "r1", Item: "fc_1", CallID: "call_1", At: 1,
			Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Index: 2, Name: "weather"}},
		{ID: "model:acme/r1/2/0", Tenant: "acme", Response: "r1", Item: "fc_1", At: 2,
			Body: &events.ArgumentsDelta{Delta: `{"city":"P`}},
		{ID: events.CompletedID("acme", "r1", "fc_1"), Tenant: "acme", Response: "r1", Item: "fc_1", At: 3,
			Body: &events.CallCompleted{Name: "weather", Arguments: []byte(`{"city":"Paris"}`), From: events.Provenance{FirstSeq: 1, LastSeq: 9}}},
		{ID: "m1", Tenant: "beta", User: "u1", At: 4,
			Body: &events.MemoryCorrected{Observation: events.Observation{ID: "x", Text: "I can't eat spicy food"}, ExpectedVersion: 2}},
		{ID: "v1", Tenant: "beta", At: 5, Body: &events.AnswerVerified{Faithfulness: 0.5,
			Claims: []events.ClaimVerdict{{Text: "12 件", Start: 0, End: 4, Verdict: events.VerdictSupported,
				Evidence: []events.EvidenceRef{{CallID: "c", Pointer: "/stock", Value: "12"}}}}}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, ev := range sample() {
		b, err := events.Encode(ev)
		if err != nil {
			t.Fatalf("encode %s: %v", ev.ID, err)
		}
		got, err := events.Decode(b)
		if err != nil {
			t.Fatalf("decode %s: %v", ev.ID, err)
		}
		if !reflect.DeepEqual(got, ev) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", ev.ID, got, ev)
		}
		b2, _ := events.Encode(got)
		if string(b) != string(b2) {
			t.Errorf("%s: encoding is not canonical", ev.ID)
		}
	}
}

func TestDecodeBadInput(t *testing.T) {
	good, err := events.Encode(sample()[0])
	if err != nil {
		t.Fatal(err)
	}
	newer := func() []byte {
		var m map[string]any
		if err := msgpack.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		m["v"] = 99
		b, _ := msgpack.Marshal(m)
		return b
	}
	unknown := func() []byte {
		var m map[string]any
		_ = msgpack.Unmarshal(good, &m)
		m["k"] = "model.from_the_future"
		b, _ := msgpack.Marshal(m)
		return b
	}
	noTenant := func() []byte {
		var m map[string]any
		_ = msgpack.Unmarshal(good, &m)
		m["t"] = ""
		b, _ := msgpack.Marshal(m)
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, events.ErrMalformed},
		{"garbage", []byte("not msgpack at all"), events.ErrMalformed},
		{"truncated", good[:len(good)/2], events.ErrMalformed},
		{"trailing", append(append([]byte{}, good...), 0x01), events.ErrMalformed},
		{"json", []byte(`{"type":"response.created"}`), events.ErrMalformed},
		{"newer version", newer(), events.ErrUnknownVersion},
		{"unknown kind", unknown(), events.ErrUnknownKind},
		{"no tenant", noTenant(), events.ErrInvalidTenant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := events.Decode(tc.in)
			if !errors.Is(err, tc.want) || !errors.Is(err, events.ErrBadInput) {
				t.Fatalf("Decode = %v, want %v wrapping ErrBadInput", err, tc.want)
			}
		})
	}
}

func TestEncodeRefusesBadTenant(t *testing.T) {
	for _, tenant := range []string{"", "a.b", "_x", "has space", "a>b"} {
		_, err := events.Encode(&events.Event{Tenant: tenant, Body: &events.Tick{}})
		if !errors.Is(err, events.ErrInvalidTenant) {
			t.Errorf("tenant %q: err = %v, want ErrInvalidTenant", tenant, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, ev := range sample() {
		b, _ := events.Encode(ev)
		f.Add(b)
	}
	f.Add([]byte{0xde, 0xad})
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := events.Decode(data)
		if err != nil {
			if !errors.Is(err, events.ErrBadInput) {
				t.Fatalf("error does not wrap ErrBadInput: %v", err)
			}
			return
		}
		// What decodes must re-encode and decode to the same event.
		b, err := events.Encode(ev)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if _, err := events.Decode(b); err != nil {
			t.Fatalf("decode of re-encoded: %v", err)
		}
	})
}
