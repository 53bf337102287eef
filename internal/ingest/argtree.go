package ingest

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// argTree builds a call's arguments from Gemini partialArgs: values addressed
// by JSON paths ("$.recipe.ingredients[0].name"), strings possibly in pieces.
//
// The tree keeps object keys in order of first appearance and serialises
// deterministically. Its "open serialisation" is the JSON text with the
// closers of the rightmost spine (the last child of the root, its last child,
// …, and a string on it that is still continuing) left off. As long as every
// update extends the spine — the usual case, values arriving in document
// order — the open serialisation only grows, and what it grows by is
// emitted as an ArgumentsDelta, computed from the update alone (cost linear in
// the bytes received). An update anywhere else (a value revisited, a key of an
// earlier object) stops the deltas for that call; the authoritative
// arguments come with ArgumentsDone either way.

// node is one JSON value of an argument tree.
type node struct {
	K    byte     `msgpack:"k"`            // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	Keys []string `msgpack:"ks,omitempty"` // object keys, parallel to Kids
	Kids []node   `msgpack:"kd,omitempty"` // object values or array elements
	S    []byte   `msgpack:"s,omitempty"`  // string value or number text; bytes so pieces append in linear time
	Cont bool     `msgpack:"c,omitempty"`  // string: more pieces follow
}

// seg is one step of a JSON path: an object key or an array index.
type seg struct {
	key   string
	idx   int
	isIdx bool
}

// pval is one partial argument's value.
type pval struct {
	k    byte // as node.K, scalars only
	s    string
	cont bool
}

// parsePath reads "$", then ".name", "[n]", "['name']" or "[\"name\"]" steps.
func parsePath(p string) ([]seg, bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	p = p[1:]
	var out []seg
	for p != "" {
		if len(out) >= PathDepthMax {
			return nil, false
		}
		switch p[0] {
		case '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			if end == 0 {
				return nil, false
			}
			out = append(out, seg{key: p[:end]})
			p = p[end:]
		case '[':
			if len(p) > 1 && (p[1] == '\'' || p[1] == '"') {
				q := p[1]
				end := strings.IndexByte(p[2:], q)
				if end < 0 || len(p) < 2+end+2 || p[2+end+1] != ']' {
					return nil, false
				}
				out = append(out, seg{key: p[2 : 2+end]})
				p = p[2+end+2:]
				continue
			}
			end := strings.IndexByte(p, ']')
			if end < 2 {
				return nil, false
			}
			i, err := strconv.Atoi(p[1:end])
			if err != nil || i < 0 || i > ArrayIndexMax {
				return nil, false
			}
			out = append(out, seg{idx: i, isIdx: true})
			p = p[end+1:]
		default:
			return nil, false
		}
	}
	return out, true
}

// valueOf reads one partial argument's value; ok is false when it has none,
// bad when it has one that is not valid.
func valueOf(pa *gemPartial) (v pval, ok, bad bool) {
	switch {
	case pa.StringValue != nil:
		return pval{k: 's', s: *pa.StringValue, cont: pa.WillContinue}, true, false
	case present(pa.NumberValue):
		t := strings.TrimSpace(string(pa.NumberValue))
		if strings.HasPrefix(t, `"`) { // int64 as a JSON string in proto3 JSON
			t = scalarText(pa.NumberValue)
		}
		var num json.Number
		if json.Unmarshal([]byte(t), &num) != nil || !json.Valid([]byte(t)) {
			return pval{}, false, true
		}
		return pval{k: 'n', s: t}, true, false
	case pa.BoolValue != nil:
		if *pa.BoolValue {
			return pval{k: 't'}, true, false
		}
		return pval{k: 'f'}, true, false
	case len(pa.NullValue) > 0:
		return pval{k: 'z'}, true, false
	}
	return pval{}, false, false
}

// set applies v at path in the object tree t. It returns the text by which
// the open serialisation grew when the update extended the spine (appended),
// the bytes added to the tree, and a rejection reason when the path conflicts
// with what was built so far.
func (t *node) set(path []seg, v pval) (delta string, appended bool, grew int, why events.Reason) {
	if len(path) == 0 {
		return "", false, 0, events.ReasonMalformedEvent // "$" itself: arguments must stay an object
	}
	cur, onSpine := t, true
	for i, s := range path {
		if (cur.K == 'o') == s.isIdx {
			return "", false, 0, events.ReasonMalformedEvent // key into an array or index into an object
		}
		ci := cur.find(s)
		if ci < 0 {
			// New child(ren) at the end of cur: the divergence point.
			var b []byte
			if onSpine && len(cur.Kids) > 0 {
				b = closers(&cur.Kids[len(cur.Kids)-1], b)
			}
			sub := build(path[i+1:], v)
			grew = len(s.key) + size(&sub)
			if s.isIdx {
				for len(cur.Kids) < s.idx {
					if onSpine && len(cur.Kids) > 0 {
						b = append(b, ',')
					}
					b = append(b, "null"...)
					cur.Kids = append(cur.Kids, node{K: 'z'})
					grew += 4
				}
			} else {
				if len(cur.Keys) >= KeysMax {
					return "", false, 0, events.ReasonTooLarge
				}
				cur.Keys = append(cur.Keys, s.key)
			}
			if onSpine {
				if len(cur.Kids) > 0 {
					b = append(b, ',')
				}
				if !s.isIdx {
					b = appendQuoted(b, s.key)
					b = append(b, ':')
				}
				b = sub.appendJSON(b, true)
			}
			cur.Kids = append(cur.Kids, sub)
			return string(b), onSpine, grew, ""
		}
		if ci != len(cur.Kids)-1 {
			onSpine = false
		}
		child := &cur.Kids[ci]
		if i == len(path)-1 {
			return child.assign(v, onSpine)
		}
		need := byte('o')
		if path[i+1].isIdx {
			need = 'a'
		}
		switch {
		case child.K == need:
		case child.K == 'z': // a padding null becomes the container
			*child = node{K: need}
			onSpine = false
		default:
			return "", false, 0, events.ReasonMalformedEvent
		}
		cur = child
	}
	return "", false, 0, events.ReasonMalformedEvent // unreachable: the loop returns
}

// assign sets an existing node to v: appending to a continuing string, or
// replacing a scalar.
func (c *node) assign(v pval, onSpine bool) (string, bool, int, events.Reason) {
	if c.K == 'o' || c.K == 'a' {
		return "", false, 0, events.ReasonMalformedEvent
	}
	if c.K == 's' && c.Cont && v.k == 's' {
		c.S = append(c.S, v.s...)
		c.Cont = v.cont
		if !onSpine {
			return "", false, len(v.s), ""
		}
		b := appendEscaped(nil, v.s)
		if !v.cont {
			b = append(b, '"')
		}
		return string(b), true, len(v.s), ""
	}
	*c = leaf(v)
	return "", false, len(v.s) + 4, ""
}

func leaf(v pval) node {
	if v.k == 's' {
		return node{K: 's', S: []byte(v.s), Cont: v.cont}
	}
	return node{K: v.k, S: []byte(v.s)}
}

// build returns the subtree that holds v at path (relative).
func build(path []seg, v pval) node {
	if len(path) == 0 {
		return leaf(v)
	}
	kid := build(path[1:], v)
	if path[0].isIdx {
		n := node{K: 'a', Kids: make([]node, path[0].idx, path[0].idx+1)}
		for i := range n.Kids {
			n.Kids[i] = node{K: 'z'}
		}
		n.Kids = append(n.Kids, kid)
		return n
	}
	return node{K: 'o', Keys: []string{path[0].key}, Kids: []node{kid}}
}

// pathCost bounds the bytes set can add for path: its keys and the null
// padding its indexes may need.
func pathCost(path []seg) int {
	c := 0
	for _, s := range path {
		c += len(s.key) + 4 + 5*s.idx
	}
	return c
}

// size approximates the serialised bytes of a subtree (for ArgsMax).
func size(n *node) int {
	s := len(n.S) + 4
	for _, k := range n.Keys {
		s += len(k) + 3
	}
	for i := range n.Kids {
		s += size(&n.Kids[i])
	}
	return s
}

func (n *node) find(s seg) int {
	if s.isIdx {
		if s.idx < len(n.Kids) {
			return s.idx
		}
		return -1
	}
	if last := len(n.Keys) - 1; last >= 0 && n.Keys[last] == s.key {
		return last // the usual case: values arrive in document order
	}
	for i, k := range n.Keys {
		if k == s.key {
			return i
		}
	}
	return -1
}

// closers appends what closes n's open spine, innermost first.
func closers(n *node, b []byte) []byte {
	switch n.K {
	case 'o', 'a':
		if len(n.Kids) > 0 {
			b = closers(&n.Kids[len(n.Kids)-1], b)
		}
		if n.K == 'o' {
			return append(b, '}')
		}
		return append(b, ']')
	case 's':
		if n.Cont {
			return append(b, '"')
		}
	}
	return b
}

// appendJSON appends n's JSON text; open leaves off the closers of its
// spine.
func (n *node) appendJSON(b []byte, open bool) []byte {
	switch n.K {
	case 'o', 'a':
		opener, closer := byte('{'), byte('}')
		if n.K == 'a' {
			opener, closer = '[', ']'
		}
		b = append(b, opener)
		for i := range n.Kids {
			if i > 0 {
				b = append(b, ',')
			}
			if n.K == 'o' {
				b = appendQuoted(b, n.Keys[i])
				b = append(b, ':')
			}
			b = n.Kids[i].appendJSON(b, open && i == len(n.Kids)-1)
		}
		if !open {
			b = append(b, closer)
		}
		return b
	case 's':
		b = append(b, '"')
		b = appendEscapedBytes(b, n.S)
		if !(open && n.Cont) {
			b = append(b, '"')
		}
		return b
	case 'n':
		return append(b, n.S...)
	case 't':
		return append(b, "true"...)
	case 'f':
		return append(b, "false"...)
	}
	return append(b, "null"...)
}
