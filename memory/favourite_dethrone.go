package memory

import "github.com/toolstream/toolstream/events"

// The words of a favourite that takes another's place at the top
// (data/statements.txt [favorites] dethrone, top_spot).
var (
	dethroneVerbs = phrasesOf("favorites", "dethrone")
	topSpots      = phrasesOf("favorites", "top_spot")
)

// dethroneMax bounds the words of either thing of "X knocked Y off the top
// spot".
const dethroneMax = 4

// matchDethroneEN reads "X (have) knocked Y off the top spot": X is the
// user's favourite, of no kind said (favorite/general), so that the writer
// gives it the kind of the current favourite its sentence names, Y
// (favoriteKind), and it supersedes that one. Nothing when either thing is
// missing, too long, or a person ("my sister has knocked me off the top
// spot" is no taste).
func matchDethroneEN(ws []word) (events.Observation, bool) {
	for j := 1; j < len(ws); j++ {
		n := phraseAt(ws, j, dethroneVerbs)
		if n == 0 {
			continue
		}
		k, _ := findPhrase(ws[j+n:], topSpots)
		if k <= 0 || k > dethroneMax {
			return events.Observation{}, false
		}
		y := ws[j+n : j+n+k]
		start := 0
		for i := j - 1; i >= 0; i-- {
			if ws[i].low == "," || clauseEnd[ws[i].low] {
				start = i + 1
				break
			}
		}
		x := ws[start:j]
		for len(x) > 0 && (auxiliaries[x[len(x)-1].low] || fillers[x[len(x)-1].low]) {
			x = x[:len(x)-1] // "have", "finally"
		}
		x = skip(x, fillers)
		if len(x) == 0 || len(x) > dethroneMax || pronouns[x[0].low] || people[x[0].low] || x[0].low == "i" ||
			pronouns[y[0].low] || people[y[0].low] {
			return events.Observation{}, false
		}
		o, ok := favorite(joinOrig(x))
		o.Attribute = "general"
		return o, ok
	}
	return events.Observation{}, false
}
