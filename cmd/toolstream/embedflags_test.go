package main

import (
	"testing"

	"github.com/toolstream/toolstream/memory/embed/use"
)

// serve's embeddings flags: none is lexical recall, --embed-local (on
// by default) the shipped word vectors, --embed-sentences (on by
// default) the shipped sentence encoder as the embedder (its vectors
// recorded) with the word vectors as the matcher; a URL's service takes
// the default's place; a model or key without a URL, a URL without a
// model, an empty key variable, or a URL with --embed-sentences given
// refuse to start. serve's own flags default to the word vectors and the
// sentence encoder.
func TestEmbedFlags(t *testing.T) {
	t.Setenv("TS_TEST_EMBED_KEY", "k")
	t.Setenv("TS_TEST_EMBED_EMPTY", "")
	for _, c := range []struct {
		f       embedFlags
		want    bool // an embedder
		matcher bool
		wantErr bool
	}{
		{embedFlags{}, false, false, false},
		{embedFlags{local: true}, true, false, false},
		{embedFlags{local: true, sentences: true}, true, true, false},
		{embedFlags{sentences: true}, true, false, false},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", local: true}, true, false, false},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", sentences: true}, true, false, false},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", sentences: true, sentencesSet: true}, false, false, true},
		{embedFlags{model: "m"}, false, false, true},
		{embedFlags{keyEnv: "TS_TEST_EMBED_KEY"}, false, false, true},
		{embedFlags{url: "http://127.0.0.1:1"}, false, false, true},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", keyEnv: "TS_TEST_EMBED_EMPTY"}, false, false, true},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", keyEnv: "TS_TEST_EMBED_KEY"}, true, false, false},
	} {
		e, m, err := c.f.embedder()
		if (err != nil) != c.wantErr || (e != nil) != c.want || (m != nil) != c.matcher {
			t.Errorf("%+v: embedder %v, matcher %v, error %v", c.f, e, m, err)
		}
		if c.f.sentences && c.f.url == "" && e != nil && e.Model() != use.Model {
			t.Errorf("%+v: embedder of model %s", c.f, e.Model())
		}
	}
	f := serveCmd(&globals{}).Flags()
	for _, name := range []string{"embed-local", "embed-sentences"} {
		if fl := f.Lookup(name); fl == nil || fl.DefValue != "true" {
			t.Errorf("serve --%s: not on by default (%v)", name, fl)
		}
	}
}
