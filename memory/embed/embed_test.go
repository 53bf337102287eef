package embed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/embed/embedtest"
)

func TestHTTPEmbedsInOrderInBatches(t *testing.T) {
	srv := embedtest.Start(t, "k1")
	srv.Reverse.Store(true)
	e, err := embed.NewHTTP(embed.Config{URL: srv.URL, Model: "m", APIKey: "k1", BatchMax: 3})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i := range 7 {
		texts = append(texts, fmt.Sprintf("text number %d about cats", i))
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) || srv.Requests.Load() != 3 {
		t.Fatalf("%d vectors in %d requests, want 7 in 3", len(vs), srv.Requests.Load())
	}
	for i, v := range vs {
		want := embedtest.HashedNGrams(texts[i])
		if len(v) != len(want) {
			t.Fatalf("vector %d: %d dimensions", i, len(v))
		}
		for j := range v {
			if v[j] != float32(want[j]) {
				t.Fatalf("vector %d is not the vector of its text", i)
			}
		}
	}
	if e.Model() != "m" {
		t.Errorf("Model() = %q", e.Model())
	}
}

func TestHTTPErrors(t *testing.T) {
	srv := embedtest.Start(t, "k1")
	ctx := context.Background()
	if _, err := embed.NewHTTP(embed.Config{URL: srv.URL}); !errors.Is(err, embed.ErrConfig) {
		t.Errorf("no model: %v", err)
	}
	bad, _ := embed.NewHTTP(embed.Config{URL: srv.URL, Model: "m", APIKey: "wrong"})
	if _, err := bad.Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrRemote) {
		t.Errorf("wrong key: %v, want ErrRemote", err)
	}
	good, _ := embed.NewHTTP(embed.Config{URL: srv.URL + "/v1/", Model: "m", APIKey: "k1"})
	srv.Fail.Store(true)
	if _, err := good.Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrRemote) {
		t.Errorf("a 500: %v, want ErrRemote", err)
	}
	srv.Fail.Store(false)
	if vs, err := good.Embed(ctx, []string{"x"}); err != nil || len(vs) != 1 {
		t.Errorf("URL ending in /v1/: %v", err)
	}
	if vs, err := good.Embed(ctx, nil); err != nil || len(vs) != 0 {
		t.Errorf("no texts: %v %v", vs, err)
	}
	down, _ := embed.NewHTTP(embed.Config{URL: "http://127.0.0.1:1", Model: "m"})
	if _, err := down.Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrRemote) {
		t.Errorf("nobody listening: %v, want ErrRemote", err)
	}
}

func TestCosine(t *testing.T) {
	v := func(s string) []float32 {
		f := embedtest.HashedNGrams(s)
		out := make([]float32, len(f))
		for i, x := range f {
			out[i] = float32(x)
		}
		return out
	}
	cat, cats, tax := v("my cat loves fish"), v("cats love fish"), v("quarterly tax report")
	if !(embed.Cosine(cat, cats) > embed.Cosine(cat, tax)) {
		t.Errorf("cosine: near %.3f not above far %.3f", embed.Cosine(cat, cats), embed.Cosine(cat, tax))
	}
	if c := embed.Cosine(cat, cat); c < 0.999 || c > 1.001 {
		t.Errorf("cosine of a vector with itself: %f", c)
	}
	if embed.Cosine(cat, cat[:3]) != 0 || embed.Cosine(nil, nil) != 0 {
		t.Error("cosine of different dimensions or empty vectors is not 0")
	}
}

// A service that answers with the wrong number of vectors, or names one
// input twice, is refused whole.
func TestHTTPBadResponses(t *testing.T) {
	for name, body := range map[string]string{
		"too few":      `{"data":[{"index":0,"embedding":[1,0]}]}`,
		"index twice":  `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`,
		"out of range": `{"data":[{"index":0,"embedding":[1,0]},{"index":5,"embedding":[0,1]}]}`,
		"empty vector": `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[0,1]}]}`,
		"two dims":     `{"data":[{"index":0,"embedding":[1,0,0]},{"index":1,"embedding":[0,1]}]}`,
		"not json":     `<html>`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
		e, _ := embed.NewHTTP(embed.Config{URL: srv.URL, Model: "m"})
		if vs, err := e.Embed(context.Background(), []string{"a", "b"}); !errors.Is(err, embed.ErrBadResponse) || vs != nil {
			t.Errorf("%s: %v %v, want ErrBadResponse and no vectors", name, vs, err)
		}
		srv.Close()
	}
}
