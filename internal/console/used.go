package console

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/internal/auth"
)

// usedFile remembers the redeemed sign-in tokens (their nonces, with their
// expiry) and the signed-out sessions ("ended:<id>", until the session's
// expiry) in a file, so a restart of the console does not let a used token
// be redeemed again nor a signed-out session come back. One line
// a token or session: "<name> <expiry unix>".
// The file is owner-only; it is compacted (expired tokens dropped) when
// the console starts and at each sweep, so it holds at most the tokens
// redeemed within a token's validity. Its methods are called with
// sessions.mu held.
type usedFile struct {
	path string
	f    *os.File // open for appending
}

// openUsed reads path (missing: nothing used yet), drops what has expired
// by now, rewrites it and opens it for appending.
func openUsed(path string, now time.Time) (*usedFile, map[string]time.Time, error) {
	used := map[string]time.Time{}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("console: used sign-in tokens: %w", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		nonce, exp, ok := strings.Cut(sc.Text(), " ")
		sec, err := strconv.ParseInt(exp, 10, 64)
		if !ok || err != nil || nonce == "" {
			continue // a line cut short by a crash: its token is in no session yet
		}
		if t := time.Unix(sec, 0); now.Before(t) {
			used[nonce] = t
		}
	}
	u := &usedFile{path: path}
	if err := u.rewrite(used); err != nil {
		return nil, nil, err
	}
	return u, used, nil
}

// add records a redeemed token, synced, before its session is given out.
func (u *usedFile) add(nonce string, exp time.Time) error {
	if _, err := fmt.Fprintf(u.f, "%s %d\n", nonce, exp.Unix()); err != nil {
		return fmt.Errorf("console: record used sign-in token: %w", err)
	}
	if err := u.f.Sync(); err != nil {
		return fmt.Errorf("console: record used sign-in token: %w", err)
	}
	return nil
}

// rewrite replaces the file with used (atomically) and reopens it.
func (u *usedFile) rewrite(used map[string]time.Time) error {
	if err := os.MkdirAll(filepath.Dir(u.path), 0o700); err != nil {
		return fmt.Errorf("console: used sign-in tokens: %w", err)
	}
	var b strings.Builder
	for n, t := range used {
		fmt.Fprintf(&b, "%s %d\n", n, t.Unix())
	}
	if err := auth.WritePrivate(u.path, []byte(b.String())); err != nil {
		return fmt.Errorf("console: used sign-in tokens: %w", err)
	}
	f, err := os.OpenFile(u.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("console: used sign-in tokens: %w", err)
	}
	if u.f != nil {
		u.f.Close()
	}
	u.f = f
	return nil
}

func (u *usedFile) close() error {
	if u == nil || u.f == nil {
		return nil
	}
	return u.f.Close()
}
