// Package search is the search service: it runs keyword search (package
// fulltext), semantic search over the chunk vectors of package vectors,
// and a combined ranking of both, applies the filter, and falls back when
// one cannot run. Every mode returns the same notes.Result, one per note,
// best passage first.
package search

import (
	"strconv"
)

// FormatScore writes a score for reading: 12.35, 0.456, 2.1e-05. A match
// never reads as 0.000, however small its score.
func FormatScore(x float64) string {
	switch {
	case x >= 1 || x <= -1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x >= 0.001 || x <= -0.001:
		return strconv.FormatFloat(x, 'f', 3, 64)
	case x == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}
