package use

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveFMA says whether gemm4x16 may use the AVX2 and FMA kernel.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// gemm4x16FMA is gemm4x16Go in AVX2 and FMA (kernel_amd64.s): eight
// accumulators of eight floats, one fused multiply-add per weight and
// row. The sum is taken in the same order, each step rounded once
// instead of twice.
//
//go:noescape
func gemm4x16FMA(x *float32, xs int, w *float32, k int, y *float32, ys int, b *float32)

// gemm4x16 runs the fastest kernel the CPU has. The slices are checked
// here, so the assembly reads and writes only within them.
func gemm4x16(x []float32, xs int, w []float32, k int, y []float32, ys int, b []float32) {
	if !haveFMA || k == 0 {
		gemm4x16Go(x, xs, w, k, y, ys, b)
		return
	}
	_ = x[3*xs+k-1]
	_ = w[k*panelWidth-1]
	_ = y[3*ys+panelWidth-1]
	_ = b[panelWidth-1]
	gemm4x16FMA(unsafe.SliceData(x), xs, unsafe.SliceData(w), k, unsafe.SliceData(y), ys, unsafe.SliceData(b))
}
