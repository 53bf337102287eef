package lint_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// architectureDoc holds the one picture of the architecture: the table of
// its section "Layout: layers and allowed imports".
const architectureDoc = "docs/architecture.md"

const architectureSection = "## Layout: layers and allowed imports"

// layers are the layers a row may name, bottom up.
var layers = []string{"machinery", "projection", "processor", "edge", "composition", "harness"}

// rule is a package's row: its layer and the packages of ours it may
// import (any: anything).
type rule struct {
	layer string
	any   bool
	may   []string
}

type rules map[string]rule

// in returns the packages of layer, sorted.
func (rs rules) in(layer string) []string {
	var out []string
	for name, r := range rs {
		if r.layer == layer {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// architecture reads the table of docs/architecture.md: one row a
// package, "| `name` | layer | job | may import |", may import being
// backquoted names separated by commas, "—" for none or "any". A row that
// does not read so, a layer not in layers, a package named twice or a
// table missing fails t: the picture must be readable to be enforced.
func architecture(t *testing.T) rules {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := bytes.Cut(data, []byte("\n"+architectureSection+"\n"))
	if !found {
		t.Fatalf("%s has no section %q", architectureDoc, architectureSection)
	}
	rs := rules{}
	inTable := false
	sc := bufio.NewScanner(bytes.NewReader(section))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break // the table ended
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 4 {
			t.Fatalf("%s, %q: a row has four cells (package, layer, job, may import): %q", architectureDoc, architectureSection, line)
		}
		if cells[0] == "package" || strings.HasPrefix(cells[0], "---") {
			inTable = true
			continue
		}
		name, ok := backquoted(cells[0])
		if !ok {
			t.Fatalf("%s: the package of %q is not one `name`", architectureDoc, line)
		}
		if _, dup := rs[name]; dup {
			t.Fatalf("%s: %s has two rows", architectureDoc, name)
		}
		if !slices.Contains(layers, cells[1]) {
			t.Fatalf("%s: %s's layer %q is none of %v", architectureDoc, name, cells[1], layers)
		}
		r := rule{layer: cells[1]}
		switch may := cells[3]; may {
		case "any":
			r.any = true
		case "—", "-", "":
		default:
			for _, m := range strings.Split(may, ",") {
				dep, ok := backquoted(strings.TrimSpace(m))
				if !ok {
					t.Fatalf("%s: %s may import %q: want `name`, `name`, …, — or any", architectureDoc, name, may)
				}
				r.may = append(r.may, dep)
			}
		}
		rs[name] = r
	}
	if len(rs) < 10 {
		t.Fatalf("%s: the table has %d rows: it was not read", architectureDoc, len(rs))
	}
	return rs
}

func backquoted(s string) (string, bool) {
	if len(s) < 3 || s[0] != '`' || s[len(s)-1] != '`' || strings.Count(s, "`") != 2 {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// TestArchitectureTableReads: the table is read as written — the layers
// the design names hold their packages, and a row of a package that the
// table says may import nothing of ours reads as none.
func TestArchitectureTableReads(t *testing.T) {
	rs := architecture(t)
	if got := rs.in("projection"); !slices.Equal(got, []string{"assembler", "ingest", "memory", "responses", "runs", "verifier"}) {
		t.Errorf("projections %v", got)
	}
	if r := rs["events"]; r.layer != "machinery" || r.any || !slices.Equal(r.may, []string{"mpack"}) {
		t.Errorf("events: %+v", r)
	}
	if r := rs["logread"]; r.any || len(r.may) != 0 {
		t.Errorf("logread: %+v", r)
	}
	if r := rs["cmd/toolstream"]; !r.any || r.layer != "edge" {
		t.Errorf("cmd/toolstream: %+v", r)
	}
}
