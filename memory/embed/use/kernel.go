package use

// panelWidth is the number of output columns a packed panel holds: the
// kernels compute four rows by panelWidth columns at a time, their
// accumulators in registers.
const panelWidth = 16

// pack lays out w (in × out, row by row) as out/panelWidth panels, each
// in × panelWidth contiguous, so that a kernel reads its panel front to
// back. out must be a multiple of panelWidth (every matrix of the
// network's is).
func pack(w []float32, in, out int) []float32 {
	p := make([]float32, len(w))
	for j := 0; j < out/panelWidth; j++ {
		panel := p[j*in*panelWidth : (j+1)*in*panelWidth]
		for k := 0; k < in; k++ {
			copy(panel[k*panelWidth:(k+1)*panelWidth], w[k*out+j*panelWidth:k*out+(j+1)*panelWidth])
		}
	}
	return p
}

// gemm4x16Go is the portable kernel: for r in 0..3 and c in 0..15,
// y[r*ys+c] = b[c] + Σ_i x[r*xs+i]·w[i*16+c], the sum taken in order of
// i. x holds four rows of k floats (stride xs), w one packed panel (k ×
// 16), y four rows (stride ys) of which 16 columns are written.
func gemm4x16Go(x []float32, xs int, w []float32, k int, y []float32, ys int, b []float32) {
	var acc [4][panelWidth]float32
	for r := range acc {
		copy(acc[r][:], b[:panelWidth])
	}
	w = w[:k*panelWidth]
	for r := range acc {
		xr := x[r*xs : r*xs+k]
		a := &acc[r]
		for i, v := range xr {
			wi := w[i*panelWidth : i*panelWidth+panelWidth]
			for c := range a {
				a[c] += v * wi[c]
			}
		}
	}
	for r := range acc {
		copy(y[r*ys:r*ys+panelWidth], acc[r][:])
	}
}
