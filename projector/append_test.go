package projector_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// script is a projection whose messages are programs, one operation per
// line: "append K V", "set K V", "del K", "get K" and "scan" (the reads
// are written to rows of their own, so the view records what each read
// saw) and "fail" (the message is rejected: none of its writes count).
type script struct{}

func (script) Name() string       { return "script" }
func (script) Subjects() []string { return []string{">"} }
func (script) Apply(tx *projector.Tx, m *projector.Msg) error {
	for i, line := range strings.Split(string(m.Data), "\n") {
		f := strings.Fields(line)
		key := func(k string) []byte { return []byte("t\x00" + k) }
		seen := fmt.Sprintf("t\x00read/%06d/%02d", m.Seq, i)
		var err error
		switch f[0] {
		case "append":
			err = tx.Append(key(f[1]), []byte(f[2]))
		case "set":
			err = tx.Set(key(f[1]), []byte(f[2]))
		case "del":
			err = tx.Delete(key(f[1]))
		case "get":
			v, ok, gerr := tx.Get(key(f[1]))
			if err = gerr; err == nil {
				err = tx.Set([]byte(seen), fmt.Appendf(nil, "%v %s", ok, v))
			}
		case "scan":
			var all []string
			if err = tx.Scan([]byte("t\x00k"), func(k, v []byte) error {
				all = append(all, fmt.Sprintf("%s=%s", k[2:], v))
				return nil
			}); err == nil {
				err = tx.Set([]byte(seen), []byte(strings.Join(all, " ")))
			}
		case "fail":
			return fmt.Errorf("%w: told to fail", events.ErrBadInput)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// model applies the same programs to a map.
type model map[string]string

func (md model) apply(seq uint64, prog string) {
	if strings.Contains(prog, "fail") {
		return
	}
	for i, line := range strings.Split(prog, "\n") {
		f := strings.Fields(line)
		seen := fmt.Sprintf("read/%06d/%02d", seq, i)
		switch f[0] {
		case "append":
			md[f[1]] += f[2]
		case "set":
			md[f[1]] = f[2]
		case "del":
			delete(md, f[1])
		case "get":
			v, ok := md[f[1]]
			md[seen] = fmt.Sprintf("%v %s", ok, v)
		case "scan":
			var all []string
			for k, v := range md {
				if strings.HasPrefix(k, "k") {
					all = append(all, k+"="+v)
				}
			}
			slices.Sort(all)
			md[seen] = strings.Join(all, " ")
		}
	}
}

func randomProgram(rng *rand.Rand) string {
	var lines []string
	for range 1 + rng.IntN(4) {
		k := fmt.Sprintf("k%d", rng.IntN(4))
		switch r := rng.IntN(20); {
		case r < 9:
			lines = append(lines, fmt.Sprintf("append %s %c", k, 'a'+rng.IntN(26)))
		case r < 11:
			lines = append(lines, fmt.Sprintf("set %s %c", k, 'A'+rng.IntN(26)))
		case r < 13:
			lines = append(lines, "del "+k)
		case r < 16:
			lines = append(lines, "get "+k)
		case r < 18:
			lines = append(lines, "scan")
		default:
			lines = append(lines, "fail")
		}
	}
	return strings.Join(lines, "\n")
}

// TestAppendAgreesWithAModelWhateverTheBatching: random programs of
// appends, sets, deletes, reads and failures applied in batches cut at
// random give the same view as a plain map applying them one by one: reads
// see earlier appends of the same batch, a failed message's appends do not
// count, a set or delete overrides earlier appends, and the stored values
// do not depend on the batch boundaries.
func TestAppendAgreesWithAModelWhateverTheBatching(t *testing.T) {
	trials := 40
	if testing.Short() {
		trials = 10
	}
	ctx := context.Background()
	for trial := range trials {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		progs := make([]string, 200)
		md := model{}
		for i := range progs {
			progs[i] = randomProgram(rng)
			md.apply(uint64(i+1), progs[i])
		}
		var want strings.Builder
		keys := make([]string, 0, len(md))
		for k := range md {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&want, "%s=%s\n", k, md[k])
		}

		l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), script{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(progs); {
			n := 1 + rng.IntN(30)
			var msgs []*projector.Msg
			for j := i; j < min(i+n, len(progs)); j++ {
				msgs = append(msgs, &projector.Msg{Seq: uint64(j + 1), Subject: "x", Data: []byte(progs[j])})
			}
			if _, err := l.Apply(ctx, msgs...); err != nil {
				t.Fatal(err)
			}
			i += n
		}
		var got strings.Builder
		v := l.Runner().View()
		err = v.Scan([]byte("t\x00"), func(k, val []byte) error {
			fmt.Fprintf(&got, "%s=%s\n", k[2:], val)
			return nil
		})
		v.Close()
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("trial %d: view\n%s\nwant (a map applying the programs one by one)\n%s", trial, got.String(), want.String())
		}
	}
}
