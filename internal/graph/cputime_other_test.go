//go:build !unix

package graph_test

import "time"

// cpuTime is not read on these systems; the benchmarks report zero.
func cpuTime() time.Duration { return 0 }
