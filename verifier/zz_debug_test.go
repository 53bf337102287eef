package verifier

import (
	"os"
	"testing"
	"time"
)

func TestZZInternals(t *testing.T) {
	name, text := os.Getenv("VERIFIER_CASE"), os.Getenv("VERIFIER_CLAIM")
	if name == "" || text == "" {
		t.Skip()
	}
	for _, rc := range loadCases(t) {
		if rc.Name != name {
			continue
		}
		now, _ := time.Parse(time.RFC3339, rc.Now)
		c := NewChecker(CheckerConfig{})
		ix := buildIndex(rc.evidence())
		var prev *claimCtx
		for _, cl := range SplitClaims(rc.Answer) {
			cx := c.newClaimCtx(ix, cl, now, prev)
			prev = cx
			if cl.Text != text {
				continue
			}
			t.Logf("concepts %v cues %b negs %d groups %v scope %v scoped %v", cx.concepts, cx.cues, cx.negs, cx.groups, cx.scope, cx.scoped)
			for _, w := range cx.words {
				t.Logf("word %q %d-%d info=%v", w.s, w.start, w.end, w.info)
			}
			for i := range cx.nums {
				m := &cx.nums[i]
				t.Logf("num %+v", *m)
				t.Logf("  concepts %v", cx.numberConcepts(m))
				keep := func(lf *leaf) bool { return lf.kind == kindNum && dimFits(lf, m.unit) }
				for _, l := range cx.targets(cx.numberConcepts(m), keep) {
					t.Logf("  target %s %v own=%v ctx=%v score=%d", ix.leaves[l].ptr, ix.leaves[l].num, ix.leaves[l].own, ix.leaves[l].ctx, attrScore(cx.numberConcepts(m), &ix.leaves[l]))
				}
				if len(m.local) > 0 {
					for _, l := range cx.targets(m.local, keep) {
						t.Logf("  local target %s %v", ix.leaves[l].ptr, ix.leaves[l].num)
					}
				}
			}
			for _, te := range cx.times {
				t.Logf("time %+v", te)
			}
			for _, f := range cx.facts(true) {
				t.Logf("fact %+v", f)
			}
			t.Logf("verdict %+v", cx.check())
		}
	}
}

func TestZZIndex(t *testing.T) {
	name := os.Getenv("VERIFIER_IDX")
	if name == "" {
		t.Skip()
	}
	for _, rc := range loadCases(t) {
		if rc.Name != name {
			continue
		}
		ix := buildIndex(rc.evidence())
		for i, n := range ix.nodes {
			t.Logf("node %d %s parent=%d leaves=[%d,%d) nodeHi=%d subj=%q concepts=%v", i, n.ptr, n.parent, n.leafLo, n.leafHi, n.nodeHi, n.subject, n.concepts)
		}
		for i, l := range ix.leaves {
			t.Logf("leaf %d %s kind=%d num=%v str=%q unit=%v dim=%d own=%v ctx=%v node=%d text=%v", i, l.ptr, l.kind, l.num, l.str, l.unit, l.dim, l.own, l.ctx, l.node, l.text)
		}
	}
}
