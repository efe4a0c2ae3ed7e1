package write

import (
	"bytes"
	"fmt"
	"strings"
)

// Diff is written here rather than taken from a library: the one in the
// module proxy (github.com/pmezard/go-difflib) has not changed since 2016,
// matches lines in time that grows with the square of a note's length, and
// has no bound on its output. A Myers diff with a bound on its work is
// short.

// Bounds of a diff: a dry run answers in one tool result, and a rewrite of
// an 8 MB note must neither take long to compare nor come back whole.
const (
	// MaxDiffBytes is about the most a diff holds; what is past it is left
	// out, with a line saying how much.
	MaxDiffBytes = 64 << 10
	// diffContext is how many unchanged lines a hunk shows around a change.
	diffContext = 3
)

// diffWorkLimit bounds the steps the Myers search takes; past it the
// changed middle of the note is shown as removed and added whole. A
// variable so that a test can reach that way out with a small note.
var diffWorkLimit = 20_000_000

// Diff is the unified diff of a note's text before and after a change, for
// a dry run: "--- a/path" and "+++ b/path" headers, @@ hunks with 3 lines
// of context, and "\ No newline at end of file" where a side ends without
// one. Lines are shown without their line ends. It is "" when before and
// after are equal, and is cut at about MaxDiffBytes with a last line
// saying how many lines were left out.
func Diff(path string, before, after []byte) string {
	if bytes.Equal(before, after) {
		return ""
	}
	a, b := splitLines(before), splitLines(after)
	script := diffLines(a, b)

	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", path, path)
	var body []string // the hunks' lines, each ending in "\n"
	for _, h := range hunks(script) {
		body = append(body, h.header())
		for _, e := range script[h.from:h.to] {
			var line []byte
			switch e.kind {
			case ' ', '-':
				line = a[e.a]
			case '+':
				line = b[e.b]
			}
			body = append(body, string(e.kind)+strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")+"\n")
			if !bytes.HasSuffix(line, []byte("\n")) {
				body = append(body, "\\ No newline at end of file\n")
			}
		}
	}
	size := out.Len()
	for i, line := range body {
		if size+len(line) > MaxDiffBytes {
			left := len(body) - i
			fmt.Fprintf(&out, "[%d more %s of the diff left out]\n", left, plural(left, "line", "lines"))
			break
		}
		out.WriteString(line)
		size += len(line)
	}
	return out.String()
}

// splitLines splits text after each "\n"; the last line may lack one.
func splitLines(text []byte) [][]byte {
	if len(text) == 0 {
		return nil
	}
	lines := bytes.SplitAfter(text, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of an edit script: ' ' (in both, a[a] == b[b]), '-'
// (a[a] removed) or '+' (b[b] added).
type diffOp struct {
	kind byte
	a, b int
}

// diffLines is an edit script turning lines a into lines b: the lines
// both start and end with are kept, and the middle is compared by Myers'
// algorithm, or shown as removed and added whole when that takes more
// than diffWorkLimit steps.
func diffLines(a, b [][]byte) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	// Lines compared as numbers: equal lines get the same one.
	ids := map[string]int{}
	id := func(lines [][]byte) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			n, ok := ids[string(l)]
			if !ok {
				n = len(ids)
				ids[string(l)] = n
			}
			out[i] = n
		}
		return out
	}
	ma, mb := id(a[pre:len(a)-suf]), id(b[pre:len(b)-suf])

	script := make([]diffOp, 0, len(a)+len(b))
	for i := range pre {
		script = append(script, diffOp{' ', i, i})
	}
	mid, ok := myers(ma, mb)
	if !ok {
		mid = mid[:0]
		for i := range ma {
			mid = append(mid, diffOp{'-', i, 0})
		}
		for j := range mb {
			mid = append(mid, diffOp{'+', len(ma), j})
		}
	}
	for _, e := range mid {
		script = append(script, diffOp{e.kind, e.a + pre, e.b + pre})
	}
	for i := range suf {
		script = append(script, diffOp{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return script
}

// myers is the shortest edit script from a to b (E. Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), or false when finding
// it takes more than diffWorkLimit steps.
func myers(a, b []int) ([]diffOp, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		var script []diffOp
		for i := range n {
			script = append(script, diffOp{'-', i, 0})
		}
		for j := range m {
			script = append(script, diffOp{'+', 0, j})
		}
		return script, true
	}
	limit := n + m
	off := limit + 1
	v := make([]int, 2*limit+3) // v[off+k]: the furthest x on diagonal k
	var trace [][]int           // trace[d][k+d]: v after step d
	work := 0
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: a line of b added
			} else {
				x = v[off+k-1] + 1 // right: a line of a removed
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
				work++
			}
			v[off+k] = x
			work++
			if work > diffWorkLimit {
				return nil, false
			}
			if x >= n && y >= m {
				trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	return nil, false // not reached: d = n+m always ends
}

// backtrack walks myers' trace back from (n, m) to (0, 0).
func backtrack(trace [][]int, n, m int) []diffOp {
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{' ', x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{'+', x, y})
		} else {
			x--
			rev = append(rev, diffOp{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', x, y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// hunk is script[from:to] with the lines it starts at in a and b.
type hunk struct {
	from, to       int
	aStart, bStart int // 0-based
	aLines, bLines int
}

// header is the hunk's "@@ -l,s +l,s @@" line.
func (h hunk) header() string {
	side := func(start, lines int) string {
		switch lines {
		case 0:
			return fmt.Sprintf("%d,0", start)
		case 1:
			return fmt.Sprintf("%d", start+1)
		}
		return fmt.Sprintf("%d,%d", start+1, lines)
	}
	return fmt.Sprintf("@@ -%s +%s @@\n", side(h.aStart, h.aLines), side(h.bStart, h.bLines))
}

// hunks groups the changes of script with diffContext lines around each;
// changes closer than twice that share a hunk.
func hunks(script []diffOp) []hunk {
	var out []hunk
	for i := 0; i < len(script); {
		if script[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-diffContext)
		to := i
		for j := i; j < len(script); j++ {
			if script[j].kind != ' ' {
				to = j + 1
			} else if j-to >= 2*diffContext {
				break
			}
		}
		to = min(len(script), to+diffContext)
		h := hunk{from: from, to: to, aStart: -1, bStart: -1}
		for _, e := range script[from:to] {
			if e.kind != '+' {
				if h.aStart < 0 {
					h.aStart = e.a
				}
				h.aLines++
			}
			if e.kind != '-' {
				if h.bStart < 0 {
					h.bStart = e.b
				}
				h.bLines++
			}
		}
		// A side with no lines in the hunk starts after the line before it.
		if h.aStart < 0 {
			h.aStart = script[from].a
		}
		if h.bStart < 0 {
			h.bStart = script[from].b
		}
		out = append(out, h)
		i = to
	}
	return out
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
