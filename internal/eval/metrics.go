package eval

import (
	"math"
	"sort"
)

// NDCG is the normalised discounted cumulative gain of the first k of
// ranked, with gains from the judgements: the ideal ranking scores 1.
func NDCG(ranked []string, gains map[string]int, k int) float64 {
	dcg := 0.0
	for i, p := range ranked[:min(k, len(ranked))] {
		dcg += float64(gains[p]) / math.Log2(float64(i+2))
	}
	ideal := make([]int, 0, len(gains))
	for _, g := range gains {
		ideal = append(ideal, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, g := range ideal[:min(k, len(ideal))] {
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall is the share of the relevant notes found in the first k.
func Recall(ranked []string, relevant map[string]int, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	found := 0
	for _, p := range ranked[:min(k, len(ranked))] {
		if relevant[p] > 0 {
			found++
		}
	}
	return float64(found) / float64(len(relevant))
}

// Hit is 1 when any relevant note is in the first k, else 0.
func Hit(ranked []string, relevant map[string]int, k int) float64 {
	for _, p := range ranked[:min(k, len(ranked))] {
		if relevant[p] > 0 {
			return 1
		}
	}
	return 0
}

// ReciprocalRank is 1/rank of the first relevant note, 0 when none is
// ranked.
func ReciprocalRank(ranked []string, relevant map[string]int) float64 {
	for i, p := range ranked {
		if relevant[p] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Spearman is the rank correlation of x and y: the Pearson correlation of
// their ranks, equal values sharing the mean of the ranks they span. It is
// NaN when either has fewer than two distinct values.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("eval.Spearman: x and y differ in length")
	}
	rx, ry := fractionalRanks(x), fractionalRanks(y)
	n := float64(len(x))
	var sx, sy float64
	for i := range rx {
		sx += rx[i]
		sy += ry[i]
	}
	mx, my := sx/n, sy/n
	var cov, vx, vy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		cov += dx * dy
		vx += dx * dx
		vy += dy * dy
	}
	if vx == 0 || vy == 0 {
		return math.NaN()
	}
	return cov / math.Sqrt(vx*vy)
}

// fractionalRanks ranks v from 1, ties taking the mean of their ranks.
func fractionalRanks(v []float64) []float64 {
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return v[order[a]] < v[order[b]] })
	ranks := make([]float64, len(v))
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && v[order[hi]] == v[order[lo]] {
			hi++
		}
		// Positions lo..hi-1 hold ranks lo+1..hi; their mean is (lo+1+hi)/2.
		mean := float64(lo+1+hi) / 2
		for _, i := range order[lo:hi] {
			ranks[i] = mean
		}
		lo = hi
	}
	return ranks
}
