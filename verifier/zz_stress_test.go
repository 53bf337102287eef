package verifier

import (
	"math/rand"
	"testing"
	"time"
)

func TestZZStress(t *testing.T) {
	alpha := []rune("aA. ,，。和但是and but1234567890-*\n：:;；!?e.g(（)）between 商品")
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 200000; n++ {
		l := rng.Intn(40)
		r := make([]rune, l)
		for i := range r {
			if rng.Intn(3) == 0 {
				r[i] = rune(rng.Intn(0x3100))
			} else {
				r[i] = alpha[rng.Intn(len(alpha))]
			}
		}
		done := make(chan bool)
		go func() { SplitClaims(string(r)); done <- true }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("hang on %q", string(r))
		}
	}
}

func TestZZStressCheck(t *testing.T) {
	cases := loadCases(t)
	alpha := []rune("aA. ,，。和但是and but1234567890-*\n：:;；!?e.g(（)）between 商品 all 都 only 只 not 不 $¥%kg 天 明天 tomorrow Friday 周五 more than 比 cheaper 最 库存 price stock 5月3日 2024-05-03 ~")
	rng := rand.New(rand.NewSource(2))
	c := NewChecker(CheckerConfig{})
	for n := 0; n < 20000; n++ {
		rc := cases[rng.Intn(len(cases))]
		l := rng.Intn(80)
		r := make([]rune, l)
		for i := range r {
			r[i] = alpha[rng.Intn(len(alpha))]
		}
		// Mix in words of the real answer.
		ans := string(r)
		if rng.Intn(2) == 0 {
			ar := []rune(rc.Answer)
			a := rng.Intn(len(ar))
			b := a + rng.Intn(len(ar)-a)
			ans = string(ar[a:b]) + ans
		}
		done := make(chan bool, 1)
		go func() {
			c.Check(ans, rc.evidence(), time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC))
			done <- true
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("hang: case %s answer %q", rc.Name, ans)
		}
	}
}
