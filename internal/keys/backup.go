package keys

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/logread"
)

// backupLine is one key in a backup: its bucket name and value.
type backupLine struct {
	Name  string `json:"name"`
	Value []byte `json:"value"`
}

// Backup writes every key of the store to w, one JSON line each, and
// returns how many. The backup holds every key in the clear: keep it as
// safe as the bucket, and remember that it outlives later erasures.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int, error) {
	if err := s.whole("a backup"); err != nil {
		return 0, err
	}
	prefix := "$KV." + s.cfg.Bucket + "."
	enc := json.NewEncoder(w)
	n := 0
	err := logread.Read(ctx, logread.Config{Conn: s.cfg.JS.Conn(), Stream: s.stream.CachedInfo().Config.Name, Filter: prefix + ">"},
		func(batch []*logread.Msg) error {
			for _, m := range batch {
				if len(m.Data) == 0 {
					continue // a delete marker
				}
				if err := enc.Encode(backupLine{Name: strings.TrimPrefix(m.Subject, prefix), Value: m.Data}); err != nil {
					return err
				}
				n++
			}
			return nil
		})
	return n, err
}

// Owner is whose a key is: a tenant's user, and a memory record of the user
// ("" for the user's own key).
type Owner struct {
	Tenant, User, Record string
}

// OwnerOf reads the owner from a key's bucket name.
func OwnerOf(name string) (Owner, error) {
	parts := strings.Split(name, ".")
	dec := func(p string) (string, error) {
		if !strings.HasPrefix(p, "_") {
			return "", fmt.Errorf("keys: name part %q", p)
		}
		b, err := base64.RawURLEncoding.DecodeString(p[1:])
		return string(b), err
	}
	if len(parts) != 4 && !(len(parts) == 6 && parts[4] == "r") || parts[0] != "k" || parts[2] != "u" {
		return Owner{}, fmt.Errorf("keys: not a key name: %q", name)
	}
	var o Owner
	var err error
	if o.Tenant, err = dec(parts[1]); err != nil {
		return Owner{}, err
	}
	if o.User, err = dec(parts[3]); err != nil {
		return Owner{}, err
	}
	if len(parts) == 6 {
		if o.Record, err = dec(parts[5]); err != nil {
			return Owner{}, err
		}
	}
	return o, nil
}

// Restore puts back the keys of a backup the store does not hold, except
// those erased says were erased (an erasure made after the backup must not
// be undone), and returns how many it restored and skipped.
func (s *Store) Restore(ctx context.Context, r io.Reader, erased func(Owner) bool) (restored, skipped int, err error) {
	if err := s.whole("a restore"); err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l backupLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return restored, skipped, fmt.Errorf("keys: backup line %d: %w", restored+skipped+1, err)
		}
		o, err := OwnerOf(l.Name)
		if err != nil {
			return restored, skipped, err
		}
		if erased != nil && erased(o) {
			skipped++
			continue
		}
		if _, _, err := parse(l.Value); err != nil {
			return restored, skipped, fmt.Errorf("keys: backup of %s: %w", l.Name, err)
		}
		_, err = s.kv.Create(ctx, l.Name, l.Value)
		switch {
		case errors.Is(err, jetstream.ErrKeyExists):
			skipped++
		case err != nil:
			return restored, skipped, fmt.Errorf("%w: %w", ErrUnavailable, err)
		default:
			restored++
		}
	}
	return restored, skipped, sc.Err()
}
