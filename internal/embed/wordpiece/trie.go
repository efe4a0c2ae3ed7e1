package wordpiece

import (
	"slices"
	"strings"
)

// trie is the vocabulary as a byte trie, so that the longest token at a
// position of a word is found in one walk, however long the word: the
// greedy WordPiece step costs the length of the token it finds, not the
// square of the word's length.
//
// The children of a node are contiguous in edgeByte/edgeNode, sorted by
// byte. The root and the node of the continuing-subword prefix ("##"),
// where every walk starts, have dense tables instead.
type trie struct {
	nodes    []trieNode
	edgeByte []byte
	edgeNode []int32
	root     [256]int32 // child of the root per byte, or -1
	cont     [256]int32 // child of the prefix node per byte, or -1
}

type trieNode struct {
	first, n int32 // children: edgeByte[first:first+n]
	id       int32 // token ending here, or -1
}

// trieEntry is one token to place in the trie.
type trieEntry struct {
	token string
	id    int32
}

// buildTrie makes the trie of the given tokens, which must be distinct.
func buildTrie(entries []trieEntry, prefix string) trie {
	slices.SortFunc(entries, func(a, b trieEntry) int { return strings.Compare(a.token, b.token) })
	var t trie
	t.add(entries, 0)
	t.root = t.dense(0)
	for i := range t.cont {
		t.cont[i] = -1
	}
	node := int32(0)
	for i := 0; i < len(prefix) && node >= 0; i++ {
		node = t.child(node, prefix[i])
	}
	if node >= 0 {
		t.cont = t.dense(node)
	}
	return t
}

// add makes the node for entries, which share their first depth bytes,
// and returns its index.
func (t *trie) add(entries []trieEntry, depth int) int32 {
	idx := int32(len(t.nodes))
	t.nodes = append(t.nodes, trieNode{id: -1})
	if len(entries) > 0 && len(entries[0].token) == depth {
		t.nodes[idx].id = entries[0].id
		entries = entries[1:]
	}
	n := 0
	for i := range entries {
		if i == 0 || entries[i].token[depth] != entries[i-1].token[depth] {
			n++
		}
	}
	first := len(t.edgeByte)
	t.nodes[idx].first, t.nodes[idx].n = int32(first), int32(n)
	t.edgeByte = append(t.edgeByte, make([]byte, n)...)
	t.edgeNode = append(t.edgeNode, make([]int32, n)...)
	k := first
	for i := 0; i < len(entries); k++ {
		b := entries[i].token[depth]
		j := i + 1
		for j < len(entries) && entries[j].token[depth] == b {
			j++
		}
		// add appends to the edge slices, so the child is placed after it
		// returns, in the slice as it is then.
		child := t.add(entries[i:j], depth+1)
		t.edgeByte[k] = b
		t.edgeNode[k] = child
		i = j
	}
	return idx
}

// dense is the child table of a node.
func (t *trie) dense(node int32) [256]int32 {
	var table [256]int32
	for i := range table {
		table[i] = -1
	}
	nd := t.nodes[node]
	for k := nd.first; k < nd.first+nd.n; k++ {
		table[t.edgeByte[k]] = t.edgeNode[k]
	}
	return table
}

// child follows the edge for b from node, returning -1 when there is none.
func (t *trie) child(node int32, b byte) int32 {
	nd := t.nodes[node]
	edges := t.edgeByte[nd.first : nd.first+nd.n]
	lo, hi := 0, len(edges)
	for hi-lo > 8 {
		mid := int(uint(lo+hi) >> 1)
		if edges[mid] < b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	// edges[hi] may be b itself: the first byte >= b is in edges[lo:hi+1].
	for k := lo; k < len(edges); k++ {
		if edges[k] >= b {
			if edges[k] == b {
				return t.edgeNode[int(nd.first)+k]
			}
			break
		}
	}
	return -1
}

// longest returns the id of the longest token matching word at start, and
// where it ends; the id is -1 when no token matches. At start 0 tokens are
// matched as they are, after it with the continuing-subword prefix.
func (t *trie) longest(word []byte, start int) (int32, int) {
	table := &t.root
	if start > 0 {
		table = &t.cont
	}
	best, end := int32(-1), start
	node := table[word[start]]
	for j := start + 1; node >= 0; j++ {
		if id := t.nodes[node].id; id >= 0 {
			best, end = id, j
		}
		if j == len(word) {
			break
		}
		node = t.child(node, word[j])
	}
	return best, end
}
