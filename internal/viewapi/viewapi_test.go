package viewapi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/viewapi"
)

// TestSubjects: each projection's subjects, a partition's under its
// projection's wildcard, read back to the name; a name that is no subject
// token is refused.
func TestSubjects(t *testing.T) {
	for _, tc := range []struct{ name, digest, dump string }{
		{"memory", "tsv.digest.memory", "tsv.dump.memory"},
		{"runs-calls", "tsv.digest.runs-calls", "tsv.dump.runs-calls"},
		{assembler.Name, "tsv.digest.assembler", "tsv.dump.assembler"},
		{assembler.PartitionName(0), "tsv.digest.assembler.p0", "tsv.dump.assembler.p0"},
		{assembler.PartitionName(1023), "tsv.digest.assembler.p1023", "tsv.dump.assembler.p1023"},
		{"assembler-p07", "tsv.digest.assembler-p07", "tsv.dump.assembler-p07"}, // not a partition's name
		{"x-p", "tsv.digest.x-p", "tsv.dump.x-p"},
	} {
		for prefix, want := range map[string]string{viewapi.DigestPrefix: tc.digest, viewapi.DumpPrefix: tc.dump} {
			got, err := viewapi.Subject(prefix, tc.name)
			if err != nil || got != want {
				t.Errorf("Subject(%s, %s) = %q, %v; want %q", prefix, tc.name, got, err, want)
			}
			if name, ok := viewapi.Projection(prefix, got); !ok || name != tc.name {
				t.Errorf("Projection(%s, %s) = %q, %v; want %q", prefix, got, name, ok, tc.name)
			}
		}
	}
	for _, bad := range []string{"", "a.b", "*", ">", "mem ory", "assembler.p3"} {
		if s, err := viewapi.Subject(viewapi.DigestPrefix, bad); !errors.Is(err, viewapi.ErrBadName) {
			t.Errorf("Subject of %q = %q, %v; want ErrBadName", bad, s, err)
		}
	}
	for _, s := range []string{"tsv.digest", "tsv.digest.", "tsv.dump.memory", "tsv.digest.assembler.p07", "tsv.digest.assembler.x3", "tsv.digest.a.b.c"} {
		if name, ok := viewapi.Projection(viewapi.DigestPrefix, s); ok {
			t.Errorf("Projection(tsv.digest, %s) = %q, want none", s, name)
		}
	}
	for p := range 3 {
		sub, _ := viewapi.Subject(viewapi.DumpPrefix, assembler.PartitionName(p))
		want := viewapi.Partitions(viewapi.DumpPrefix, assembler.Name)
		if rest, ok := strings.CutPrefix(sub, strings.TrimSuffix(want, "*")); !ok || rest == "" || strings.Contains(rest, ".") {
			t.Errorf("partition %d's subject %s is not under %s", p, sub, want)
		}
	}
}
