package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// speakerBytesMax bounds a speaker label (events.Observation.Speaker).
const speakerBytesMax = 64

// speakerOf returns the label a message opens with, as a transcript,
// meeting notes or a group chat write who speaks: one to three words
// each opening with a capital letter ("Caroline:", "Dr. Ortega:"), or one
// to four ideographs ("张伟："), then a colon and the rest of the message.
// "" when it opens with none, or with a label that is no name: a note, a
// reminder, a postscript, an update ("Note:", "P.S.", "提醒：";
// data/words.txt's not_speakers). The writer splits a message into
// sentences, and only the first says the label: the others carry it as
// their record's Speaker (MessageEvents), so "It was great." is found for
// a question naming who said it, as the whole message would be.
func speakerOf(text string) string {
	i := strings.IndexAny(text, ":：")
	if i <= 0 || i > speakerBytesMax {
		return ""
	}
	label := strings.TrimSpace(text[:i])
	_, n := utf8.DecodeRuneInString(text[i:])
	if strings.TrimSpace(text[i+n:]) == "" || label == "" {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(text[i+n:]); text[i] == ':' && !unicode.IsSpace(r) {
		return "" // "10:30", "http://…": no label
	}
	if han := []rune(label); len(han) <= 4 && allHan(han) {
		if zhNotSpeaker(label) {
			return ""
		}
		return label
	}
	words := strings.Fields(label)
	if len(words) > 3 || enNotSpeakers[strings.ToLower(words[0])] || enNotSpeakers[strings.ToLower(words[len(words)-1])] {
		return ""
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return ""
		}
		for _, c := range w {
			if !unicode.IsLetter(c) && c != '.' && c != '\'' && c != '-' {
				return ""
			}
		}
	}
	return label
}

// enNotSpeakers and zhNotSpeakers are data/words.txt's not_speakers:
// labels that are no name for a speaker ("Note:", "P.S.", "提醒：").
var (
	enNotSpeakers = wordSet("en words", "not_speakers")
	zhNotSpeakers = wordList("zh words", "not_speakers")
)

// zhNotSpeaker reports a Chinese label that is one of zhNotSpeakers, or
// opens or ends with one of two ideographs or more (重要提醒).
func zhNotSpeaker(label string) bool {
	for _, w := range zhNotSpeakers {
		if label == w || utf8.RuneCountInString(w) >= 2 && (strings.HasPrefix(label, w) || strings.HasSuffix(label, w)) {
			return true
		}
	}
	return false
}

// afterSpeaker returns text after the speaker label it opens with
// (speakerOf), or text when it opens with none: what the speaker says.
func afterSpeaker(text string) string {
	if speakerOf(text) == "" {
		return text
	}
	i := strings.IndexAny(text, ":：")
	_, n := utf8.DecodeRuneInString(text[i:])
	return strings.TrimSpace(text[i+n:])
}

func allHan(rs []rune) bool {
	for _, r := range rs {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return len(rs) > 0
}

// spokenText is the text a record is indexed and embedded by: its own,
// after its speaker's label when its message opened with one its own
// text does not say ("Caroline: It was great." for the second sentence
// of "Caroline: I went to the parade. It was great."), and after the
// question its message answered when it keeps one (its Context: "How
// long have you been married? Five years already!").
func spokenText(r *Record) string {
	t := r.Text
	if r.Speaker != "" && !strings.HasPrefix(r.Text, r.Speaker) {
		t = r.Speaker + ": " + r.Text
	}
	if r.Context != "" {
		t = r.Context + " " + t
	}
	return t
}
