package memory

import (
	"testing"
	"time"
)

// TestSpeakerOf: a label of one to three capitalised words or one to four
// ideographs before a colon opens a message; a time, an address, a
// lower-case clause or a label with nothing after it does not.
func TestSpeakerOf(t *testing.T) {
	for text, want := range map[string]string{
		"Caroline: I went to the parade. It was great.": "Caroline",
		"Dr. Ortega-Whitby: take two a day.":            "Dr. Ortega-Whitby",
		"张伟：我明天到。":                                      "张伟",
		"Meet me at 10:30 tomorrow.":                    "",
		"see http://example.com: it moved":              "",
		"I think: yes.":                                 "",
		"Remember this: buy milk.":                      "",
		"One Two Three Four: too many words.":           "",
		"Caroline:":                                     "",
		"No label here.":                                "",
		"欢迎来到我们的城市：很好":                                  "",
		// Labels that are no name for a speaker: a note, a reminder, a
		// postscript, an update, a heading.
		"Note: the gym closes at 9.":          "",
		"Reminder: dentist on Friday.":        "",
		"PS: I moved to Lisbon.":              "",
		"P.S. Later: call me.":                "",
		"Update: I quit my job.":              "",
		"Quick note: I'm vegan now.":          "",
		"Important: I'm allergic to peanuts.": "",
		"FYI: my sister lives in Oslo.":       "",
		"Edit: it was Tuesday.":               "",
		"Fun Fact: I speak Greek.":            "",
		"注意：我对花生过敏。":                          "",
		"提醒：周五去看牙医。":                          "",
		"备注：我搬到上海了。":                          "",
		"更新：我换工作了。":                           "",
		"重要提醒：明天开会。":                          "",
		// Names still are.
		"Grace: I'm vegan now.":   "Grace",
		"Mark Noteboom: see you.": "Mark Noteboom",
		"王芳：明天见。":                 "王芳",
	} {
		if got := speakerOf(text); got != want {
			t.Errorf("speakerOf(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestASentenceIsFoundByItsMessagesSpeaker: every record of a message that
// opens with a label carries it as its Speaker, its text unchanged, and is
// found by a question naming the speaker though only the first sentence
// says the name: of two messages' "It was so moving." the one Caroline
// said ranks first for a question about Caroline (without the speaker
// they tie, and the newer, Melanie's, would).
func TestASentenceIsFoundByItsMessagesSpeaker(t *testing.T) {
	e := NewEngine(Config{}, nil)
	store := newPebbleStore(t)
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	applyMessage(t, e, store, "u1", "m1", "Caroline: I went to the pride parade yesterday. It was so moving.", at)
	applyMessage(t, e, store, "u1", "m2", "Melanie: I painted a lake at dawn last week. It was so moving.", at.Add(time.Hour))
	recs, err := e.List(store.reader(), "acme", "u1", false)
	if err != nil {
		t.Fatal(err)
	}
	var moving []Record
	for _, r := range recs {
		want := map[string]string{"m1": "Caroline", "m2": "Melanie"}[r.Message]
		if r.Speaker != want {
			t.Errorf("%s %q: speaker %q, want %q", r.ID, r.Text, r.Speaker, want)
		}
		if r.Text == "It was so moving." {
			moving = append(moving, r)
		}
	}
	if len(moving) != 2 {
		t.Fatalf("want both messages' second sentences as records of their own text, got %d: %+v", len(moving), recs)
	}
	res, err := e.Recall(store.reader(), Query{Tenant: "acme", User: "u1", Text: "What was so moving for Caroline?", K: 5,
		At: at.Add(2 * time.Hour).UnixNano()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) == 0 || res.Records[0].Record.Message != "m1" || res.Records[0].Record.Text != "It was so moving." {
		var got []string
		for _, h := range res.Records {
			got = append(got, h.Record.ID+" "+h.Record.Text)
		}
		t.Errorf("want m1's \"It was so moving.\" first, got %q", got)
	}
}
