package console_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/console"
)

// postSignin posts tok as the console's own sign-in form does, from
// base's origin, with c.
func postSignin(c *http.Client, base, tok string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/signin", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.Do(req)
}

// TestAttackSignInFromAnotherSite (atk13's login CSRF): a sign-in link
// (GET /signin?token=…) followed from another site signed its visitor in
// as the link's viewer. Now a GET only shows the form, and only a POST
// from the console's own page redeems a token. Each who-may-not below, a
// raw client with a good token of an acme viewer, gets no cookie, and the
// token is still unused afterwards: the console's own form signs in with
// it (the last case).
func TestAttackSignInFromAnotherSite(t *testing.T) {
	h := start(t)
	tok, err := console.Mint(testKey, console.Grant{Role: auth.RoleReader, Tenant: "acme"}, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"token": {tok}}.Encode()
	for _, tc := range []struct {
		name, method, path string
		hdr                map[string]string
		want               int
	}{
		{"a link, as before", http.MethodGet, "/signin?token=" + url.QueryEscape(tok), nil, http.StatusOK},
		{"a link from another site", http.MethodGet, "/signin?token=" + url.QueryEscape(tok), map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusOK},
		{"another site's form", http.MethodPost, "/signin", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"another site's form, Origin only", http.MethodPost, "/signin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a sibling site's form", http.MethodPost, "/signin", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"an opaque origin (a sandboxed frame)", http.MethodPost, "/signin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"a form that says nothing of where it is", http.MethodPost, "/signin", nil, http.StatusForbidden},
	} {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		var body *strings.Reader
		if tc.method == http.MethodPost {
			body = strings.NewReader(form)
		} else {
			body = strings.NewReader("")
		}
		req, _ := http.NewRequest(tc.method, h.srv.URL+tc.path, body)
		if tc.method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		u, _ := url.Parse(h.srv.URL)
		if res.StatusCode != tc.want || len(jar.Cookies(u)) != 0 {
			t.Errorf("%s: %s with %d cookies, want %d and none", tc.name, res.Status, len(jar.Cookies(u)), tc.want)
		}
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := postSignin(c, h.srv.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/" {
		t.Fatalf("the console's own form with the token after every refusal: %s at %s, want the console", res.Status, res.Request.URL)
	}
	var me struct{ Role, Tenant string }
	h.getJSON(c, "/api/me", http.StatusOK, &me)
	if me.Role != string(auth.RoleReader) || me.Tenant != "acme" {
		t.Errorf("signed in as %+v, want the token's reader of acme", me)
	}
}

// TestOwnFormUnderNoReferrerSignsIn: the console's pages are served with
// Referrer-Policy no-referrer, under which Chromium posts the console's own
// sign-in form with Origin "null" and Sec-Fetch-Site same-origin; the
// sign-in refused it (403) and nobody could sign in from a browser (found
// by the browser test in CI). Sec-Fetch-Site, which no page can set,
// decides when it is sent.
func TestOwnFormUnderNoReferrerSignsIn(t *testing.T) {
	h := start(t)
	tok, err := console.Mint(testKey, console.Grant{Role: auth.RoleReader, Tenant: "acme"}, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/signin", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "null")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/" {
		t.Fatalf("the console's own form under no-referrer: %s at %s, want the console", res.Status, res.Request.URL)
	}
}
