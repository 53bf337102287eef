package use

import (
	"context"
	_ "embed"
	"runtime"
	"sync"

	"github.com/toolstream/toolstream/memory/embed"
)

//go:embed model.bin.gz
var shipped []byte

// Model is the name of the vectors Encoder gives: the shipped file's
// version. A new file (other weights, another quantisation) is a new
// model, so that its vectors are never compared with the old one's.
const Model = "toolstream-use-lite-int8/1"

// batchMax bounds the texts run through the network together: their
// rows share each read of a weight matrix, and their buffers
// (TokensMax·batchMax rows of at most ffnDim floats) stay a few MB.
const batchMax = 16

// Encoder is an embed.Embedder running the Universal Sentence Encoder
// Lite in Go. It is safe for concurrent use.
type Encoder struct {
	net *network
	// scratch keeps the buffers of calls done (*scratch), a few MB
	// each, for the next.
	scratch sync.Pool
}

var _ embed.Embedder = (*Encoder)(nil)

var load = sync.OnceValues(func() (*network, error) { return decodeModel(shipped) })

// New returns the encoder; the model is read once per process, on first
// use (about 30 MB once dequantised). It returns ErrDamaged only if the
// shipped file is.
func New() (*Encoder, error) {
	net, err := load()
	if err != nil {
		return nil, err
	}
	return &Encoder{net: net}, nil
}

// Model implements embed.Embedder.
func (e *Encoder) Model() string { return Model }

// Dim is the dimension of the vectors.
func (e *Encoder) Dim() int { return Dim }

// Embed implements embed.Embedder: one unit vector of Dim dimensions per
// text, in order; a text with no pieces (empty) gets the zero vector. A
// text longer than TokensMax pieces is read to its TokensMax-th piece,
// as the reference does. It fails only with ctx's error.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	s, _ := e.scratch.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	defer e.scratch.Put(s)
	par := runtime.GOMAXPROCS(0)
	for from := 0; from < len(texts); from += batchMax {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := texts[from:min(from+batchMax, len(texts))]
		ids := make([][]int, len(batch))
		for i, s := range batch {
			ids[i] = e.Tokens(s)
		}
		out = append(out, e.net.embed(s, ids, par)...)
	}
	return out, nil
}

// Tokens returns the vocabulary ids the network reads for text: its
// pieces, at most TokensMax.
func (e *Encoder) Tokens(text string) []int {
	ids := e.net.tok.encode(text)
	return ids[:min(len(ids), TokensMax)]
}
