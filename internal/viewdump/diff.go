package viewdump

import "bytes"

// ChangeKind says how a key differs between two views.
type ChangeKind int

const (
	// OnlyA is a key the first view holds and the second does not.
	OnlyA ChangeKind = iota
	// OnlyB is a key the second view holds and the first does not.
	OnlyB
	// Changed is a key both hold with different values.
	Changed
)

// Change is one key where two views differ: A is its value in the first
// view (nil for OnlyB), B in the second (nil for OnlyA).
type Change struct {
	Kind ChangeKind
	Key  []byte
	A, B []byte
}

// DiffCount counts the keys of a comparison by how they compare.
type DiffCount struct {
	OnlyA, OnlyB, Changed, Same int
}

// Differ is the number of keys that differ.
func (c DiffCount) Differ() int { return c.OnlyA + c.OnlyB + c.Changed }

// Diff walks the rows of two views in key order, a page at a time (what
// `replay --diff` compares a rebuild with the live view by), calls fn with
// every key where they differ, in key order, and counts them all. An error
// of a pager or of fn stops it and is returned.
func Diff(a, b Pager, fn func(Change) error) (DiffCount, error) {
	var n DiffCount
	ia, ib := NewIter(a), NewIter(b)
	ak, av, aok, err := ia.Next()
	if err != nil {
		return n, err
	}
	bk, bv, bok, err := ib.Next()
	if err != nil {
		return n, err
	}
	for aok || bok {
		c := 0
		switch {
		case !aok:
			c = 1
		case !bok:
			c = -1
		default:
			c = bytes.Compare(ak, bk)
		}
		var ch *Change
		switch {
		case c < 0:
			n.OnlyA++
			ch = &Change{Kind: OnlyA, Key: ak, A: av}
		case c > 0:
			n.OnlyB++
			ch = &Change{Kind: OnlyB, Key: bk, B: bv}
		case !bytes.Equal(av, bv):
			n.Changed++
			ch = &Change{Kind: Changed, Key: ak, A: av, B: bv}
		default:
			n.Same++
		}
		if ch != nil {
			if err := fn(*ch); err != nil {
				return n, err
			}
		}
		if c <= 0 {
			if ak, av, aok, err = ia.Next(); err != nil {
				return n, err
			}
		}
		if c >= 0 {
			if bk, bv, bok, err = ib.Next(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
