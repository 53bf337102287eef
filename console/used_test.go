package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/auth"
	"github.com/toolstream/toolstream/bus/bustest"
	"github.com/toolstream/toolstream/console"
)

// TestUsedTokenStaysUsedAfterRestart: a sign-in token redeemed on one
// console is refused by the next console on the same --data (a restart),
// over raw HTTP as a browser or a thief holding the link would try it.
// Attacker: 401, no session cookie. Victim: a token minted with it and not
// yet redeemed still signs in after the restart (the refusal is for the
// used one, not for everyone); the file that remembers them is owner-only
// and, once the tokens expired, a later start drops them (bounded).
func TestUsedTokenStaysUsedAfterRestart(t *testing.T) {
	b := bustest.Start(t)
	used := filepath.Join(t.TempDir(), "auth", "console-used")
	now := time.Now()
	open := func(at time.Time) *httptest.Server {
		t.Helper()
		c, err := console.New(console.Config{Bus: b, Key: testKey, UsedFile: used, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(c.Handler())
		t.Cleanup(srv.Close)
		return srv
	}
	signin := func(srv *httptest.Server, tok string) (int, bool) {
		t.Helper()
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := c.Get(srv.URL + "/signin?token=" + url.QueryEscape(tok))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, len(res.Cookies()) > 0 && res.Cookies()[0].Value != ""
	}
	g := console.Grant{Role: auth.RoleOperator}
	first, _ := console.Mint(testKey, g, now.Add(10*time.Minute))
	second, _ := console.Mint(testKey, g, now.Add(10*time.Minute))

	before := open(now)
	if code, cookie := signin(before, first); code != http.StatusSeeOther || !cookie {
		t.Fatalf("first sign-in: %d (cookie %v), want 303 with a session", code, cookie)
	}
	if code, _ := signin(before, first); code != http.StatusUnauthorized {
		t.Fatalf("the same token again before the restart: %d, want 401", code)
	}
	before.Close()

	after := open(now.Add(time.Minute)) // the restart: a new console, the same file
	if code, cookie := signin(after, first); code != http.StatusUnauthorized || cookie {
		t.Fatalf("the used token after a restart: %d (cookie %v), want 401 and no session", code, cookie)
	}
	if code, cookie := signin(after, second); code != http.StatusSeeOther || !cookie {
		t.Fatalf("an unused token after a restart: %d (cookie %v), want 303 with a session", code, cookie)
	}
	st, err := os.Stat(used)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("%s is %v, want owner-only 0600", used, st.Mode().Perm())
	}
	data, _ := os.ReadFile(used)
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Fatalf("%s holds %d tokens, want the 2 redeemed:\n%s", used, n, data)
	}
	open(now.Add(time.Hour)) // both expired: dropped when the console starts
	if data, _ := os.ReadFile(used); len(data) != 0 {
		t.Fatalf("%s still holds expired tokens:\n%s", used, data)
	}
}
