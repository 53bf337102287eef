package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model the vectors come from: vectors of two models
	// are never compared.
	Model() string
}

var (
	// ErrRemote: the service answered with an error status or could not
	// be reached.
	ErrRemote = errors.New("embed: the embeddings service failed")
	// ErrBadResponse: the service's answer is not one vector per input of
	// one dimension.
	ErrBadResponse = errors.New("embed: bad embeddings response")
	// ErrConfig: the configuration cannot work (no URL or model).
	ErrConfig = errors.New("embed: bad configuration")
)

// Config configures an HTTP embedder.
type Config struct {
	// URL is the service's base, e.g. https://api.openai.com or
	// http://localhost:11434: "/v1/embeddings" is added unless the URL
	// already ends with "/embeddings".
	URL string
	// Model is the model asked for, e.g. text-embedding-3-small.
	Model string
	// APIKey, if set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// BatchMax bounds the texts of one request; 0 means 64.
	BatchMax int
	// Timeout bounds one request; 0 means 30 s.
	Timeout time.Duration
	// Client is the HTTP client; nil means a new one.
	Client *http.Client
}

// HTTP is an Embedder for an OpenAI-compatible /v1/embeddings service.
// It is safe for concurrent use.
type HTTP struct {
	cfg      Config
	endpoint string
}

var _ Embedder = (*HTTP)(nil)

// NewHTTP returns an embedder for cfg. It returns ErrConfig without a URL
// or a model.
func NewHTTP(cfg Config) (*HTTP, error) {
	if cfg.URL == "" || cfg.Model == "" {
		return nil, fmt.Errorf("%w: a URL and a model are needed", ErrConfig)
	}
	if cfg.BatchMax <= 0 {
		cfg.BatchMax = 64
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	ep := strings.TrimRight(cfg.URL, "/")
	if !strings.HasSuffix(ep, "/embeddings") {
		if !strings.HasSuffix(ep, "/v1") {
			ep += "/v1"
		}
		ep += "/embeddings"
	}
	return &HTTP{cfg: cfg, endpoint: ep}, nil
}

// Model implements Embedder.
func (h *HTTP) Model() string { return h.cfg.Model }

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// Embed implements Embedder: the texts in batches of BatchMax, each a
// POST of {"model", "input": [...], "encoding_format": "float"}; the
// answer's data[i].index says which input data[i].embedding is of.
func (h *HTTP) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += h.cfg.BatchMax {
		batch := texts[start:min(start+h.cfg.BatchMax, len(texts))]
		vs, err := h.post(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	if len(out) > 0 {
		dim := len(out[0])
		for i, v := range out {
			if len(v) != dim {
				return nil, fmt.Errorf("%w: vector %d has %d dimensions, vector 0 %d", ErrBadResponse, i, len(v), dim)
			}
		}
	}
	return out, nil
}

func (h *HTTP) post(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(request{Model: h.cfg.Model, Input: texts, EncodingFormat: "float"})
	if err != nil {
		return nil, fmt.Errorf("embed: encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if h.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.cfg.APIKey)
	}
	resp, err := h.cfg.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRemote, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: read: %w", ErrRemote, err)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrRemote, resp.Status, msg)
	}
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResponse, err)
	}
	if len(r.Data) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrBadResponse, len(r.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: index %d out of range or repeated", ErrBadResponse, d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("%w: empty vector for input %d", ErrBadResponse, d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: input %d: component %d is not a number", ErrBadResponse, d.Index, i)
			}
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	return out, nil
}

// Cosine is the cosine similarity of a and b, 0 when their dimensions
// differ or either is zero.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
