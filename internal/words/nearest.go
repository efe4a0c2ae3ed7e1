package words

import "strings"

// Nearest is the candidate a mistyped word most likely meant: the one
// fewest edits from typed (a letter left out, added or changed, two
// neighbours swapped), compared without regard to case, at most max
// edits away; "" when none is that near or two are as near. "Did you
// mean" suggestions all ask it.
func Nearest(typed string, candidates []string, max int) string {
	best, bestDist, tie := "", max+1, false
	for _, c := range candidates {
		d := EditDistance(strings.ToLower(typed), strings.ToLower(c))
		switch {
		case d < bestDist:
			best, bestDist, tie = c, d, false
		case d == bestDist && c != best:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// EditDistance counts the edits that turn a into b: a character left out,
// added or changed, or two neighbours swapped, each one.
func EditDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
