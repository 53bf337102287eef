package lexical

import "testing"

// The examples the paper gives for each step, and the inflections recall
// must bring together.
func TestStem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// step 1a
		{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"}, {"cats", "cat"},
		// step 1b
		{"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"}, {"motoring", "motor"},
		{"sing", "sing"}, {"conflated", "conflat"}, {"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"},
		{"tanned", "tan"}, {"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
		{"filing", "file"},
		// step 1c
		{"happy", "happi"}, {"sky", "sky"},
		// step 2
		{"relational", "relat"}, {"conditional", "condit"}, {"rational", "ration"}, {"valenci", "valenc"},
		{"digitizer", "digit"}, {"conformabli", "conform"}, {"radicalli", "radic"}, {"differentli", "differ"},
		{"vileli", "vile"}, {"analogousli", "analog"}, {"vietnamization", "vietnam"}, {"predication", "predic"},
		{"operator", "oper"}, {"feudalism", "feudal"}, {"decisiveness", "decis"}, {"hopefulness", "hope"},
		{"callousness", "callous"}, {"formaliti", "formal"}, {"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"},
		// step 3
		{"triplicate", "triplic"}, {"formative", "form"}, {"formalize", "formal"}, {"electriciti", "electr"},
		{"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"},
		// step 4
		{"revival", "reviv"}, {"allowance", "allow"}, {"inference", "infer"}, {"airliner", "airlin"},
		{"gyroscopic", "gyroscop"}, {"adjustable", "adjust"}, {"defensible", "defens"}, {"irritant", "irrit"},
		{"replacement", "replac"}, {"adjustment", "adjust"}, {"dependent", "depend"}, {"adoption", "adopt"},
		{"homologou", "homolog"}, {"communism", "commun"}, {"activate", "activ"}, {"angulariti", "angular"},
		{"homologous", "homolog"}, {"effective", "effect"}, {"bowdlerize", "bowdler"},
		// step 5
		{"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"}, {"controll", "control"}, {"roll", "roll"},
		// left alone
		{"a", "a"}, {"is", "is"}, {"café", "café"}, {"b2b", "b2b"},
	} {
		if got := Stem(c.in); got != c.want {
			t.Errorf("Stem(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStemJoinsInflections(t *testing.T) {
	for _, g := range [][]string{
		{"adopt", "adopted", "adopting", "adopts", "adoption"},
		{"name", "named", "names", "naming"},
		{"recommend", "recommended", "recommending", "recommendation", "recommendations"},
		{"organize", "organized", "organizing", "organization"},
		{"travel", "traveled", "traveling", "travels"},
		{"prescribe", "prescribed", "prescribes"},
		{"volunteer", "volunteered", "volunteering", "volunteers"},
		{"enroll", "enrolled", "enrolling"},
	} {
		want := Stem(g[0])
		for _, w := range g[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want one stem", w, got, g[0], want)
			}
		}
	}
}
