package memory

import (
	"testing"
	"time"
)

// TestAFavouriteThatKnocksAnotherOffTheTopSpot: "X have knocked Y off the
// top spot" ([favorites] dethrone, top_spot) makes X the favourite of Y's
// kind, superseding Y with the audit links both ways; a plural favourite
// ("… are my favourite …") is one too. Of a person, or with no place at
// the top said, it is no favourite.
func TestAFavouriteThatKnocksAnotherOffTheTopSpot(t *testing.T) {
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"knocked", "Fig rolls are my favourite biscuit.", "Bourbons have knocked fig rolls off the top spot.", "Bourbons"},
		{"bumped-comma", "My favourite board game is Azul.", "Honestly, Wingspan has bumped Azul off the number one spot.", "Wingspan"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, text := range []string{
		"My cousin has knocked me off the top spot in the club ladder.",
		"The storm knocked the aerial off the roof.",
	} {
		for _, o := range (RuleExtractor{}).ExtractAt(text, "", at.UnixNano()) {
			if o.Subject == "favorite" {
				t.Errorf("%q: read a favourite %s=%q", text, o.Attribute, o.Value)
			}
		}
	}
}
