package stack

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

func TestFormatRow(t *testing.T) {
	pack := func(v any) []byte {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	bad := bytes.Repeat([]byte{0xc1}, 70) // 0xc1 is never used in msgpack
	for _, tc := range []struct {
		name       string
		key, value []byte
		want       string
	}{
		{"a rejection", []byte("r/\x00\x00\x00\x07"), pack(projector.Rejection{Seq: 7, Subject: "ts.model.acme.r1.i1", Reason: "bad input"}),
			"rejected seq 7 ts.model.acme.r1.i1: bad input"},
		{"text", []byte("s/acme\x00r1"), []byte("completed"), `"acme\x00r1" = "completed"`},
		{"msgpack to JSON", []byte("s/k"), pack(map[string]any{"n": 1, "b": []byte("text"), "l": []any{int8(2), "x"}}),
			`"k" = {"b":"text","l":[2,"x"],"n":1}`},
		{"non-string map keys", []byte("s/k"), pack(map[int]string{3: "c"}), `"k" = {"3":"c"}`},
		{"binary", []byte("s/k"), []byte{0xc1}, `"k" = c1`},
		{"long binary", []byte("s/k"), bad, `"k" = ` + strings.Repeat("c1", 64) + "… (70 bytes)"},
		{"not a rejection", []byte("r/x"), []byte("plain"), `"r/x" = "plain"`},
	} {
		if got := FormatRow(responses.Name, tc.key, tc.value); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestFormatRowParts(t *testing.T) {
	k, v := FormatRowParts(responses.Name, []byte("s/acme\x00r1"), []byte("a = b"))
	if k != `"acme\x00r1"` || v != `"a = b"` {
		t.Errorf("a text row: %s | %s", k, v)
	}
	rj, err := msgpack.Marshal(projector.Rejection{Seq: 7, Subject: "ts.model.acme.r1.i1", Reason: "bad input"})
	if err != nil {
		t.Fatal(err)
	}
	if k, v := FormatRowParts(responses.Name, []byte("r/\x00\x00\x00\x07"), rj); k != "rejected seq 7 ts.model.acme.r1.i1: bad input" || v != "" {
		t.Errorf("a rejection: %s | %s", k, v)
	}
}
