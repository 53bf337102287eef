package executor

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

const testSecret = `s3cr3t/"v&l<ue"+=`

func testRedactor() *redactor {
	r := &redactor{}
	r.add("API_TOKEN", testSecret)
	r.add("Authorization", "Bearer "+testSecret)
	r.add("SHORT", "on")
	return r
}

// Every form of a secret is replaced by its marker, the longest first;
// values too short to guard are left alone.
func TestRedactorForms(t *testing.T) {
	r := testRedactor()
	js, _ := json.Marshal(testSecret)
	for _, in := range []string{
		testSecret, string(js[1 : len(js)-1]), `s3cr3t/\"v&l<ue\"+=`,
		url.QueryEscape(testSecret), url.PathEscape(testSecret),
		base64.StdEncoding.EncodeToString([]byte(testSecret)), base64.RawURLEncoding.EncodeToString([]byte(testSecret)),
		hex.EncodeToString([]byte(testSecret)), strings.ToUpper(hex.EncodeToString([]byte(testSecret))),
	} {
		if got := r.String("a " + in + " b"); got != "a [redacted:API_TOKEN] b" {
			t.Errorf("%q -> %q", in, got)
		}
	}
	if got := r.String("Authorization: Bearer " + testSecret); got != "Authorization: [redacted:Authorization]" {
		t.Errorf("the longer form: %q", got)
	}
	if got := r.String("turn it on"); got != "turn it on" {
		t.Errorf("a short value: %q", got)
	}
	var zero *redactor
	if zero.String(testSecret) != testSecret || (&redactor{}).tail([]byte(testSecret), 100, false) != testSecret {
		t.Error("no secrets must change nothing")
	}
}

// A tail that cuts through a secret keeps no end of it.
func TestRedactorTailCutsNoFragment(t *testing.T) {
	r := testRedactor()
	text := []byte("the token was " + testSecret + " and that is all")
	for n := len(" and that is all"); n < len(text); n++ {
		got := r.tail(text, n, false)
		for k := secretRedactMin; k < len(testSecret); k++ {
			if strings.Contains(got, testSecret[len(testSecret)-k:]) && !strings.Contains(got, "[redacted:") {
				t.Fatalf("n=%d: %q holds the end of the secret", n, got)
			}
		}
		if strings.Contains(got, `"+=`) || strings.Contains(got, "l<ue") {
			t.Fatalf("n=%d: %q", n, got)
		}
	}
	// The front of a text that was itself cut (a tool's stderr past its
	// bound) is treated the same.
	if got := r.tail([]byte(testSecret[3:]+" end"), 100, true); got != "… end" {
		t.Fatalf("cut front: %q", got)
	}
}

// A result and a typed error leave the tool redacted; a result whose
// secret cannot be replaced within JSON is withheld.
func TestRedactorOutcome(t *testing.T) {
	r := testRedactor()
	js, _ := json.Marshal(map[string]string{"echo": testSecret})
	out, err := r.outcome("t", js, nil)
	if err != nil || string(out) != `{"echo":"[redacted:API_TOKEN]"}` {
		t.Fatalf("result: %s %v", out, err)
	}
	_, err = r.outcome("t", nil, Errorf(events.ErrToolError, "failed with %s", testSecret))
	if te, ok := err.(*ToolError); !ok || te.Message != "failed with [redacted:API_TOKEN]" || te.Type != events.ErrToolError {
		t.Fatalf("error: %v", err)
	}
	n := &redactor{}
	n.add("PIN", "12345678")
	if _, err := n.outcome("t", json.RawMessage(`{"pin":12345678}`), nil); err == nil || strings.Contains(err.Error(), "12345678") {
		t.Fatalf("a secret written as a number: %v", err)
	}
}
