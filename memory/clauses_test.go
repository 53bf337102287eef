package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// Three statements in one sentence, the later ones opened by the speaker
// after a comma, are three records in the order said, each holding its own
// words, whether a reader slots it or not: nothing said is dropped.
// Forgetting the middle one leaves no byte of its words in the store or its
// index, and the other two as they were.
func TestThreeStatementsOfASentenceAreThreeRecords(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		words      [3]string // a word only its statement holds
	}{
		{"en fact between episodes", "My dentist is in Harrogate, my locker number at the gym is 5520, and my library card number is LC-30918.",
			[3]string{"Harrogate", "5520", "LC-30918"}},
		{"en constraint between", "We moved to a cottage near Whitby last spring, I'm allergic to penicillin, and our wifi password is heron-7734.",
			[3]string{"Whitby", "penicillin", "heron-7734"}},
		{"zh fact between", "我的牙医在苏州工业园区，我的储物柜号码是3318，我的借书证号是K-2207。",
			[3]string{"苏州", "3318", "K-2207"}},
		{"zh constraint between", "我们刚搬到厦门鼓浪屿，我对花生过敏，我的快递柜取件码是5061。",
			[3]string{"鼓浪屿", "花生", "5061"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			at := time.Date(2026, 5, 2, 16, 0, 0, 0, time.UTC)
			ids := applyMessage(t, e, s, "u1", "t1", tc.text, at)
			if fmt.Sprint(ids) != "[t1 t1#2 t1#3]" {
				t.Fatalf("records %v, want three: one per statement", ids)
			}
			for i, id := range ids {
				r, err := e.Get(s.reader(), "acme", "u1", id)
				if err != nil || !strings.Contains(r.Text, tc.words[i]) {
					t.Fatalf("record %s: %+v, %v; want its text to hold %q", id, r, err, tc.words[i])
				}
				for j, w := range tc.words {
					if j != i && strings.Contains(r.Text, w) {
						t.Errorf("record %s holds %q, another statement's word", id, w)
					}
				}
			}
			forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Hour).UnixNano(),
				Body: &events.MemoryForgotten{ID: "t1#2"}}
			forget.Kind = forget.Body.Kind()
			if err := s.apply(e, forget); err != nil {
				t.Fatal(err)
			}
			if where, ok := rawContains(s.reader(), []byte(tc.words[1])); ok {
				t.Errorf("the forgotten statement's %q is still in %s", tc.words[1], where)
			}
			for _, i := range []int{0, 2} {
				r, err := e.Get(s.reader(), "acme", "u1", ids[i])
				if err != nil || r.Status != StatusActive || !strings.Contains(r.Text, tc.words[i]) {
					t.Errorf("record %s after forgetting t1#2: %+v, %v", ids[i], r, err)
				}
			}
		})
	}
}

// A comma before the speaker cuts a sentence only after a clause of its
// own: not after a subordinate clause or a part without a subject.
func TestSpeakerAfterACommaOpensAStatement(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"My new flat is in Leeds, my door code is 4471.", 2},
		{"我新家在杭州，我的车位号是B2-117。", 2},
		{"If I'm late, I call ahead.", 1},
		{"When we travel, we fly economy.", 1},
		{"Honestly, I hate queues.", 1},
		{"如果我迟到，我会先打电话。", 1},
		{"I like apples, pears and plums.", 1},
	} {
		if got := len(statementSentences(tc.text)); got != tc.want {
			t.Errorf("%q: %d statements, want %d", tc.text, got, tc.want)
		}
	}
}
