package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPreviousResponseIsTheUsers: the upstream's key and the responses it
// stores are shared by every tenant, so a previous_response_id is the
// history of whoever got that response. Alice continues her own response;
// bob (her tenant's other user), the tenant's key without a user, another
// tenant's key and anyone naming an id nobody was given get OpenAI's 404
// and the upstream is not asked. A previous_response_id of null is no
// continuation, and one that is not a string is a bad request.
func TestPreviousResponseIsTheUsers(t *testing.T) {
	tg := startGateway(t, withAliceAndBob)
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyAlice))
	readSSE(t, resp.Body, 0)
	resp.Body.Close()
	if resp.Header.Get(HeaderStream) != c.stream {
		t.Fatalf("alice's stream is %q, want %q", resp.Header.Get(HeaderStream), c.stream)
	}
	upstream := func() int {
		tg.fake.mu.Lock()
		defer tg.fake.mu.Unlock()
		return len(tg.fake.requests)
	}
	body := func(prev string) string {
		return `{"model":"` + c.model + `","stream":true,"input":"and tomorrow?","previous_response_id":` + prev + `}`
	}
	for _, tc := range []struct {
		name    string
		header  map[string]string
		prev    string
		status  int
		reaches bool // the request reaches the upstream
	}{
		{"bob, alice's id", bearer(clientKeyBob), `"` + c.stream + `"`, http.StatusNotFound, false},
		{"the tenant's key without a user", bearer(clientKey), `"` + c.stream + `"`, http.StatusNotFound, false},
		{"the tenant's key acting for bob", map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "bob"}, `"` + c.stream + `"`, http.StatusNotFound, false},
		{"another tenant's key", bearer(clientKeyOther), `"` + c.stream + `"`, http.StatusNotFound, false},
		{"another tenant naming alice", map[string]string{"Authorization": "Bearer " + clientKeyOther, HeaderUser: "alice"}, `"` + c.stream + `"`, http.StatusNotFound, false},
		{"an id nobody was given", bearer(clientKeyAlice), `"resp_never_given"`, http.StatusNotFound, false},
		{"an id that is no subject token", bearer(clientKeyAlice), `"resp.*.>"`, http.StatusNotFound, false},
		{"not a string", bearer(clientKeyAlice), `42`, http.StatusBadRequest, false},
		{"null", bearer(clientKeyAlice), `null`, http.StatusOK, true},
		{"alice, her own", bearer(clientKeyAlice), `"` + c.stream + `"`, http.StatusOK, true},
		{"the tenant's key acting for alice", map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "alice"}, `"` + c.stream + `"`, http.StatusOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := upstream()
			r := tg.request(t, "POST", c.path, body(tc.prev), tc.header)
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if r.StatusCode != tc.status {
				t.Fatalf("%d %.300s, want %d", r.StatusCode, b, tc.status)
			}
			if tc.status == http.StatusNotFound && !strings.Contains(string(b), "not found") {
				t.Errorf("404 body %.300s, want OpenAI's \"Previous response with id … not found.\"", b)
			}
			if got := upstream() - before; (got > 0) != tc.reaches {
				t.Errorf("%d requests reached the upstream, want reaching it %v", got, tc.reaches)
			}
		})
	}
}
