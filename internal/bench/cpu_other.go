//go:build !unix

package bench

import "time"

// ProcessCPU is not measured here: 0, and comparisons fall back to the
// wall clock.
func ProcessCPU() time.Duration { return 0 }
