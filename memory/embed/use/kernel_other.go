//go:build !amd64

package use

const haveAVX = false

func gemm4x16(x []float32, xs int, w []float32, k int, y []float32, ys int, b []float32) {
	gemm4x16Go(x, xs, w, k, y, ys, b)
}
