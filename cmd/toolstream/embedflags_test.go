package main

import "testing"

// serve's embeddings flags: none is lexical recall, --embed-local (on
// by default) the shipped word vectors; a model or key
// without a URL, a URL without a model, or an empty key variable refuse
// to start.
func TestEmbedFlags(t *testing.T) {
	t.Setenv("TS_TEST_EMBED_KEY", "k")
	t.Setenv("TS_TEST_EMBED_EMPTY", "")
	for _, c := range []struct {
		f       embedFlags
		want    bool // an embedder
		wantErr bool
	}{
		{embedFlags{}, false, false},
		{embedFlags{local: true}, true, false},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", local: true}, true, false},
		{embedFlags{model: "m"}, false, true},
		{embedFlags{keyEnv: "TS_TEST_EMBED_KEY"}, false, true},
		{embedFlags{url: "http://127.0.0.1:1"}, false, true},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", keyEnv: "TS_TEST_EMBED_EMPTY"}, false, true},
		{embedFlags{url: "http://127.0.0.1:1", model: "m", keyEnv: "TS_TEST_EMBED_KEY"}, true, false},
	} {
		e, err := c.f.embedder()
		if (err != nil) != c.wantErr || (e != nil) != c.want {
			t.Errorf("%+v: embedder %v, error %v", c.f, e, err)
		}
	}
}
