package lang

import (
	"io/fs"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// TestEveryFileObeysTheSchema loads the embedded data (Load checks every
// line against schema.txt: known sections, valid values, no word twice
// under a name or with two values) and checks what Load alone does not:
// every section of the schema is in some file.
func TestEveryFileObeysTheSchema(t *testing.T) {
	sub, err := fs.Sub(dataFS, "data")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(sub)
	if err != nil {
		t.Fatal(err)
	}
	for sec := range d.schema {
		if len(d.Lines(sec)) == 0 {
			t.Errorf("section [%s] of schema.txt is in no file", sec)
		}
	}
	if len(d.Units()) == 0 {
		t.Fatal("no units")
	}
}

// TestLoadRefusesWhatTheSchemaDoesNot: each malformed file is refused
// with an error naming its file and line.
func TestLoadRefusesWhatTheSchemaDoesNot(t *testing.T) {
	schema := "things = words\nkinds = words a b\nvals = number\nunits = unit\nrefs = unitref\ncats = category\nlists = unitlist\n"
	good := "[units]\nkg = mass 1000\n"
	cases := map[string]string{
		"unknown section":      "[nope]\nx = y\n",
		"no section":           "x = y\n",
		"no equals":            "[things]\njust words\n",
		"no words":             "[things]\nx =\n",
		"word twice":           "[things]\nx = a b a\n",
		"word twice two lines": "[things]\nx = a b\nx = c a\n",
		"name not allowed":     "[kinds]\nc = w\n",
		"not a number":         "[vals]\nten = 10\n",
		"two values":           "[vals]\n1 = one\n2 = one\n",
		"unknown dimension":    "[units]\nfoo = smell 1\n",
		"bad factor":           "[units]\nfoo = mass x\n",
		"unit twice":           "[units]\nkg = mass 1\n",
		"code on mass":         "[units]\nfoo = mass 1 USD\n",
		"no such unit":         "[refs]\nlb = pound\n",
		"unit list":            "[lists]\nmass = kg lb\n",
		"bad category":         "[cats]\nstatus/shipped = shipped\n",
		"bad rank":             "[cats]\nstatus/shipped/x = shipped\n",
	}
	for name, text := range cases {
		fsys := fstest.MapFS{
			"schema.txt": {Data: []byte(schema)},
			"a.txt":      {Data: []byte(good)},
			"b.txt":      {Data: []byte(text)},
		}
		_, err := Load(fsys)
		if err == nil {
			t.Errorf("%s: loaded", name)
			continue
		}
		if !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: %v names no line", name, err)
		}
	}
	fsys := fstest.MapFS{"schema.txt": {Data: []byte(schema)}, "a.txt": {Data: []byte(good + "[refs]\nkg = kilo kilos\n[things]\nx = a_b\n")}}
	d, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if d.UnitRefs("refs")["kilos"] != d.Unit("kg") || !d.Set("things")["a_b"] {
		t.Errorf("refs %v things %v", d.UnitRefs("refs"), d.Set("things"))
	}
}

func TestParseNumber(t *testing.T) {
	d := Default()
	for s, want := range map[string]float64{
		"42": 42, "3,500": 3500, "2.5": 2.5, "seven": 7, "twenty-one": 21, "Twenty One": 21,
		"a dozen": 12, "three hundred": 300, "three hundred and five": 305,
		"two thousand": 2000, "one hundred twenty thousand": 120000, "five million": 5e6,
		"三千五百": 3500, "两": 2, "二十五": 25, "一百零五": 105, "三万二千": 32000, "十": 10, "一亿": 1e8,
	} {
		got, ok := d.ParseNumber(s)
		if !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "twenty apples", "and", "thousand", "万", "三千块", "k", "hundredth", "one two three x"} {
		if v, ok := d.ParseNumber(s); ok {
			t.Errorf("ParseNumber(%q) = %v, want none", s, v)
		}
	}
}

// TestZhDigitRun: digits written one after another (八五, 七五, 二〇二六)
// read digit by digit; a numeral with a multiplier, one digit or anything
// else is no run.
func TestZhDigitRun(t *testing.T) {
	d := Default()
	for s, want := range map[string]float64{"八五": 85, "七五": 75, "九五": 95, "二〇二六": 2026, "零五": 5} {
		if got, ok := d.ZhDigitRun([]rune(s)); !ok || got != want {
			t.Errorf("ZhDigitRun(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "八", "八十五", "八五折", "85", "三千"} {
		if v, ok := d.ZhDigitRun([]rune(s)); ok {
			t.Errorf("ZhDigitRun(%q) = %v, want none", s, v)
		}
	}
}

func TestUnits(t *testing.T) {
	d := Default()
	kg, ok := d.UnitWord("公斤")
	if !ok || kg != d.Unit("kg") || kg.Dim != DimMass || kg.Factor != 1000 {
		t.Errorf("公斤: %+v", kg)
	}
	f := d.Unit("F")
	if c := 212*f.Factor + f.Offset; math.Abs(c-100) > 1e-9 {
		t.Errorf("212 F is %v C", c)
	}
	if u, _ := d.UnitWord("degrees celsius"); u != d.Unit("C") {
		t.Errorf("degrees celsius: %+v", u)
	}
	if u := d.Unit("yen"); len(u.Codes) != 2 || u.Dim != DimMoney {
		t.Errorf("yen: %+v", u)
	}
	if m, ok := d.MinorUnit("cents"); !ok || m != 0.01 {
		t.Errorf("cents: %v %v", m, ok)
	}
	if _, ok := d.MinorUnit("dollars"); ok {
		t.Error("dollars is a minor unit")
	}
	if u := d.Unit("km/h"); math.Abs(u.Factor*3.6-1) > 1e-12 {
		t.Errorf("km/h factor %v", u.Factor)
	}
}

// TestDigestFollowsTheData: the same files give the same digest; a word
// added to a line, a comment, or another file changes it.
func TestDigestFollowsTheData(t *testing.T) {
	sub, err := fs.Sub(dataFS, "data")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{}
	names, err := fs.Glob(sub, "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(sub, n)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = &fstest.MapFile{Data: b}
	}
	load := func(fsys fs.FS) [32]byte {
		t.Helper()
		d, err := Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		return d.Digest()
	}
	base := load(files)
	if base != Default().Digest() || base == ([32]byte{}) {
		t.Fatalf("the embedded files loaded again: digest %x, Default's %x", base, Default().Digest())
	}
	keys := string(files["keys.txt"].Data)
	const line = "[generic keys]\nen = value "
	if !strings.Contains(keys, line) {
		t.Fatalf("keys.txt has no line %q to add a word to", line)
	}
	for name, edit := range map[string]func(fstest.MapFS){
		"a generic key added": func(m fstest.MapFS) {
			m["keys.txt"] = &fstest.MapFile{Data: []byte(strings.Replace(keys, line, line+"quux ", 1))}
		},
		"a comment": func(m fstest.MapFS) {
			m["keys.txt"] = &fstest.MapFile{Data: []byte(keys + "\n# one more line\n")}
		},
		"another file": func(m fstest.MapFS) {
			m["zz.txt"] = &fstest.MapFile{Data: []byte("# nothing but a comment\n")}
		},
	} {
		m := fstest.MapFS{}
		for n, f := range files {
			m[n] = f
		}
		edit(m)
		if got := load(m); got == base {
			t.Errorf("%s: digest unchanged", name)
		}
	}
}
