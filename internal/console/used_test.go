package console_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/console"
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
		res, err := postSignin(c, srv.URL, tok)
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

// TestSessionSurvivesRestart: a browser signed in before serve restarts is
// still signed in after it (the cookie is the session, signed with the
// console's key, which --data keeps), with the same CSRF token; a session
// it signed out of stays ended after the restart. Attackers over raw HTTP:
// a cookie whose grant was edited (a viewer made operator), a sign-in token
// presented as a cookie, a cookie signed by another key — each 401.
func TestSessionSurvivesRestart(t *testing.T) {
	b := bustest.Start(t)
	used := filepath.Join(t.TempDir(), "auth", "console-used")
	now := time.Now()
	open := func(key []byte) *httptest.Server {
		t.Helper()
		c, err := console.New(console.Config{Bus: b, Key: key, UsedFile: used, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(c.Handler())
		t.Cleanup(srv.Close)
		return srv
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	signin := func(srv *httptest.Server, g console.Grant) string {
		t.Helper()
		tok, _ := console.Mint(testKey, g, now.Add(10*time.Minute))
		res, err := postSignin(noRedirect, srv.URL, tok)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) == 0 {
			t.Fatalf("sign-in: %d", res.StatusCode)
		}
		return res.Cookies()[0].Value
	}
	me := func(srv *httptest.Server, cookie string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/me", nil)
		req.AddCookie(&http.Cookie{Name: console.CookieName, Value: cookie})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct{ Role, CSRF string }
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body.Role + " " + body.CSRF
	}

	before := open(testKey)
	stay := signin(before, console.Grant{Role: auth.RoleOperator})
	leave := signin(before, console.Grant{Role: auth.RoleOperator})
	viewer := signin(before, console.Grant{Role: auth.RoleReader})
	code, stayMe := me(before, stay)
	if code != http.StatusOK {
		t.Fatalf("/api/me before the restart: %d", code)
	}
	_, leaveMe := me(before, leave)
	req, _ := http.NewRequest(http.MethodPost, before.URL+"/signout", nil)
	req.AddCookie(&http.Cookie{Name: console.CookieName, Value: leave})
	req.Header.Set(console.CSRFHeader, strings.Fields(leaveMe)[1])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if code, _ := me(before, leave); code != http.StatusUnauthorized {
		t.Fatalf("a signed-out session before the restart: %d, want 401", code)
	}
	before.Close()

	after := open(testKey) // the restart: a new console, the same key and file
	if code, got := me(after, stay); code != http.StatusOK || got != stayMe {
		t.Fatalf("a session after the restart: %d %q, want 200 %q (the same role and CSRF token)", code, got, stayMe)
	}
	if code, _ := me(after, leave); code != http.StatusUnauthorized {
		t.Fatalf("a signed-out session after the restart: %d, want 401", code)
	}

	// The attackers.
	payload, sig, _ := strings.Cut(viewer, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	edited := strings.Replace(string(raw), `"reader"`, `"operator"`, 1)
	if edited == string(raw) {
		t.Fatalf("the viewer's cookie does not carry its role as expected: %s", raw)
	}
	forged := base64.RawURLEncoding.EncodeToString([]byte(edited)) + "." + sig
	token, _ := console.Mint(testKey, console.Grant{Role: auth.RoleOperator}, now.Add(10*time.Minute))
	otherKey := open(make([]byte, console.KeySize))
	for name, tc := range map[string]struct {
		srv    *httptest.Server
		cookie string
	}{
		"a cookie whose grant was edited": {after, forged},
		"a sign-in token as a cookie":     {after, token},
		"a cookie of another key":         {otherKey, stay},
		"garbage":                         {after, "x.y"},
	} {
		if code, _ := me(tc.srv, tc.cookie); code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
}
