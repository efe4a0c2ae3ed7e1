// Package search is the search service: it runs keyword search (package
// fulltext), semantic search over the chunk vectors of package vectors,
// and a combined ranking of both, applies the filter, and falls back when
// one cannot run. Every mode returns the same notes.Result, one per note,
// best passage first.
package search

import (
	"strconv"
)

// FormatScore writes a score for reading: 12.35, 0.456, and "<0.001" for
// a match scored below what three decimals show (a keyword every note
// holds), which never reads as 0.000, nor in a notation a reader may not
// know.
func FormatScore(x float64) string {
	switch {
	case x >= 1 || x <= -1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x >= 0.001 || x <= -0.001:
		return strconv.FormatFloat(x, 'f', 3, 64)
	case x == 0:
		return "0"
	case x > 0:
		return "<0.001"
	}
	return ">-0.001"
}
