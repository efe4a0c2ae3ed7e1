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
