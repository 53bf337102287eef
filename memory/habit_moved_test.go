package memory

import (
	"testing"
	"time"
)

// TestAnEnglishHabitGivenANewDayOrFrequencySupersedes: a habit said with
// "go to" or "go for" and how often it is done is the user's habit of
// that thing, and a newer day, clock time or frequency of it — said as
// the thing being on another day now, as going to it every week now, or
// as moving it (or "the dog's walk") to a clock time — ends it in its slot
// with both audit links, as the Chinese habits of habit_schedule_test.go
// are; a trip said once ("next week") is no habit, and a move of another
// person's thing is theirs.
func TestAnEnglishHabitGivenANewDayOrFrequencySupersedes(t *testing.T) {
	at := time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		want                string // a word the new value holds
	}{
		{"is-on-another-day-now", "I go to choir rehearsal at the town hall every Thursday evening.",
			"Choir rehearsal is on Tuesday evenings now.", "Tuesday"},
		{"every-week-now", "I go to a pottery class every other Saturday.",
			"I'm going to the pottery class every single Saturday now.", "every single Saturday"},
		{"go-for-moved", "I go for a swim on Sunday mornings.", "I've moved my swim to Wednesday evenings.", "Wednesday"},
		{"moved-to-a-clock-time", "I groom the pony every evening at 6.", "I've moved the pony's groom to 7:30 in the evening.", "7:30"},
		{"pushed-to-pm", "I water the tomatoes every evening at 8.", "I've pushed watering the tomatoes to 9pm.", "9pm"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct{ name, first, second string }{
		{"another-persons-move", "I go to yoga every Monday evening.", "My sister's yoga class has moved to Fridays."},
	} {
		t.Run(c.name, func(t *testing.T) { keepsBoth(t, c.first, c.second, at, false) })
	}
	// going once is no habit; going again and again is one
	for _, c := range []struct {
		text string
		want bool
	}{
		{"I go to Lisbon next week.", false},
		{"I go to the library on Saturday mornings.", true},
		{"I go for a walk twice a day.", true},
	} {
		slotted := false
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", at.UnixNano()) {
			slotted = slotted || o.Subject == plainDoes
		}
		if slotted != c.want {
			t.Errorf("%q: read as a habit %v, want %v", c.text, slotted, c.want)
		}
	}
}
