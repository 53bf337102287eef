// Package embedtest runs a local OpenAI-compatible /v1/embeddings service
// for tests: it stands for the service on the internet. Its vectors are
// real, computed by a documented method, never canned: the hashed
// character n-grams of the text (HashedNGrams), so texts that share
// letters and words are near and others far, and the same text always
// gives the same vector.
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
)

// Dim is the dimension of the vectors the service returns.
const Dim = 256

// HashedNGrams is the vector of text: lower-cased, each word padded with
// a space on both sides, every character trigram (and every CJK
// character) hashed by FNV-1a into one of Dim buckets, with the sign of
// the hash's top bit (the hashing trick, Weinberger et al. 2009); the
// result L2-normalised.
func HashedNGrams(text string) []float64 {
	v := make([]float64, Dim)
	add := func(g string) {
		h := fnv.New64a()
		h.Write([]byte(g))
		x := h.Sum64()
		s := 1.0
		if x>>63 == 1 {
			s = -1
		}
		v[x%Dim] += s
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		rs := []rune(" " + w + " ")
		for i := 0; i+3 <= len(rs); i++ {
			add(string(rs[i : i+3]))
		}
		for _, r := range w {
			if unicode.Is(unicode.Han, r) {
				add(string(r))
			}
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

// Server is a running embeddings service.
type Server struct {
	*httptest.Server
	// Requests counts the requests answered.
	Requests atomic.Int64
	// Reverse lists the vectors last first (their index still says which
	// input each is of), as a service may.
	Reverse atomic.Bool
	// Fail makes every answer a 500.
	Fail atomic.Bool
}

// Start runs a service until the test ends. key, if set, is the bearer
// key it requires.
func Start(t testing.TB, key string) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		if s.Fail.Load() {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
			return
		}
		var req struct {
			Model string          `json:"model"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		var inputs []string
		if json.Unmarshal(req.Input, &inputs) != nil {
			var one string
			if json.Unmarshal(req.Input, &one) != nil {
				http.Error(w, `{"error":{"message":"input"}}`, http.StatusBadRequest)
				return
			}
			inputs = []string{one}
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		data := make([]datum, len(inputs))
		for i, in := range inputs {
			data[i] = datum{"embedding", i, HashedNGrams(in)}
		}
		if s.Reverse.Load() {
			for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
				data[i], data[j] = data[j], data[i]
			}
		}
		s.Requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": 0, "total_tokens": 0}})
	}))
	t.Cleanup(s.Close)
	return s
}
