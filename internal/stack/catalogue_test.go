package stack

import (
	"errors"
	"slices"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/verifier"
)

func TestCatalogueNamesAreTheProjectionsOwn(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || len(names) != len(Catalogue(Projections{})) {
		t.Fatalf("Names() = %v: want every catalogue name, sorted", names)
	}
	for _, name := range names {
		p, err := New(Projections{}, name)
		if err != nil {
			t.Fatalf("New(%s): %v", name, err)
		}
		if p.Name() != name {
			t.Errorf("New(%s) is projection %s", name, p.Name())
		}
		if len(p.Subjects()) == 0 {
			t.Errorf("%s reads no subjects", name)
		}
	}
}

func TestCatalogueBuildsFreshInstances(t *testing.T) {
	f := Catalogue(Projections{})[assembler.Name]
	if f() == f() {
		t.Fatal("the assembler's factory returned the same instance twice: a replay would share state with serve")
	}
}

func TestNewPartitionsAndUnknownNames(t *testing.T) {
	for _, tc := range []struct {
		name   string
		want   string // the projection's name; "" for ErrUnknown
		partOf int
		isPart bool
	}{
		{name: assembler.PartitionName(0), want: assembler.PartitionName(0), partOf: 0, isPart: true},
		{name: assembler.PartitionName(7), want: assembler.PartitionName(7), partOf: 7, isPart: true},
		{name: assembler.Name + "-p07"},
		{name: assembler.Name + "-p-1"},
		{name: assembler.Name + "-px"},
		{name: "nope"},
		{name: verifier.Name, want: verifier.Name},
	} {
		p, ok := PartitionNumber(tc.name)
		if ok != tc.isPart || p != tc.partOf {
			t.Errorf("PartitionNumber(%q) = %d, %v; want %d, %v", tc.name, p, ok, tc.partOf, tc.isPart)
		}
		got, err := New(Projections{}, tc.name)
		if tc.want == "" {
			if !errors.Is(err, ErrUnknown) {
				t.Errorf("New(%q): err %v, want ErrUnknown", tc.name, err)
			}
			continue
		}
		if err != nil || got.Name() != tc.want {
			t.Errorf("New(%q) = %v, %v; want projection %s", tc.name, got, err, tc.want)
		}
	}
}
