package use

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveAVX says whether gemm4x16 may use the AVX kernel.
var haveAVX = cpu.X86.HasAVX

// gemm4x16AVX is gemm4x16Go in AVX (kernel_amd64.s): eight accumulators
// of eight floats, a multiply and an add per weight and row, the sum
// taken in the same order: the same bits as gemm4x16Go. Not fused
// (FMA): a fused step rounds once, and vectors a rounding apart reorder
// records whose cosines with a query nearly tie (TestParaphraseRecall's
// Chinese set did), and the shipped vectors would no longer be the ones
// measured. It costs nothing measurable: the adds run beside the
// multiplies.
//
//go:noescape
func gemm4x16AVX(x *float32, xs int, w *float32, k int, y *float32, ys int, b *float32)

// gemm4x16 runs the fastest kernel the CPU has. The slices are checked
// here, so the assembly reads and writes only within them.
func gemm4x16(x []float32, xs int, w []float32, k int, y []float32, ys int, b []float32) {
	if !haveAVX || k == 0 {
		gemm4x16Go(x, xs, w, k, y, ys, b)
		return
	}
	_ = x[3*xs+k-1]
	_ = w[k*panelWidth-1]
	_ = y[3*ys+panelWidth-1]
	_ = b[panelWidth-1]
	gemm4x16AVX(unsafe.SliceData(x), xs, unsafe.SliceData(w), k, unsafe.SliceData(y), ys, unsafe.SliceData(b))
}
