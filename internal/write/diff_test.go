package write

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	ten := numbered(10)
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{"equal", ten, ten, ""},
		{
			name:   "one line changed, three lines of context",
			before: ten,
			after:  strings.Replace(ten, "line 5\n", "line five\n", 1),
			want:   "--- a/n.md\n+++ b/n.md\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n",
		},
		{
			name:   "changes far apart make two hunks",
			before: numbered(20),
			after:  strings.Replace(strings.Replace(numbered(20), "line 2\n", "", 1), "line 19\n", "line 19\nnew\n", 1),
			want: "--- a/n.md\n+++ b/n.md\n@@ -1,5 +1,4 @@\n line 1\n-line 2\n line 3\n line 4\n line 5\n" +
				"@@ -17,4 +16,5 @@\n line 17\n line 18\n line 19\n+new\n line 20\n",
		},
		{
			name:   "a note created from nothing",
			before: "",
			after:  "a\nb\n",
			want:   "--- a/n.md\n+++ b/n.md\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name:   "a last line without a line end",
			before: "a\nb",
			after:  "a\nb\nc",
			want:   "--- a/n.md\n+++ b/n.md\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file\n",
		},
		{
			name:   "CRLF lines are shown without their CR",
			before: "a\r\nb\r\n",
			after:  "a\r\nc\r\n",
			want:   "--- a/n.md\n+++ b/n.md\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff("n.md", []byte(tt.before), []byte(tt.after))
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffApplies checks on random edits of random notes that the hunks,
// applied to before, give after: the diff says all that changed and only
// that.
func TestDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var before []string
		for range r.IntN(40) {
			before = append(before, strconv.Itoa(r.IntN(6))+"\n")
		}
		after := append([]string(nil), before...)
		for range r.IntN(6) {
			at := r.IntN(len(after) + 1)
			switch r.IntN(3) {
			case 0:
				after = append(after[:at], append([]string{"new " + strconv.Itoa(r.IntN(3)) + "\n"}, after[at:]...)...)
			case 1:
				if at < len(after) {
					after = append(after[:at], after[at+1:]...)
				}
			case 2:
				if at < len(after) {
					after[at] = "changed\n"
				}
			}
		}
		b, a := strings.Join(before, ""), strings.Join(after, "")
		d := Diff("n.md", []byte(b), []byte(a))
		if got := applyDiff(t, b, d); got != a {
			t.Fatalf("round %d: the diff of\n%q\nto\n%q\nis\n%s\nand gives\n%q", round, b, a, d, got)
		}
	}
}

// TestDiffWithoutMyers checks the way out for a middle too costly to
// compare: removed and added whole, and still a diff that applies.
func TestDiffWithoutMyers(t *testing.T) {
	old := diffWorkLimit
	diffWorkLimit = 10
	defer func() { diffWorkLimit = old }()
	b := "keep\na\nb\nc\nd\nkeep too\n"
	a := "keep\nd\nc\nb\na\nkeep too\n"
	d := Diff("n.md", []byte(b), []byte(a))
	want := "--- a/n.md\n+++ b/n.md\n@@ -1,6 +1,6 @@\n keep\n-a\n-b\n-c\n-d\n+d\n+c\n+b\n+a\n keep too\n"
	if d != want {
		t.Errorf("got\n%s\nwant\n%s", d, want)
	}
}

func TestDiffBounded(t *testing.T) {
	before := []byte(numbered(50_000))
	after := []byte(strings.ReplaceAll(string(before), "line", "row"))
	d := Diff("big.md", before, after)
	if len(d) > MaxDiffBytes+100 {
		t.Errorf("diff of %d bytes, over the bound", len(d))
	}
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	shown := len(lines) - 1 - 2 // the headers and the last line
	wantLeft := 1 + 100_000 - shown
	if last := lines[len(lines)-1]; last != fmt.Sprintf("[%d more lines of the diff left out]", wantLeft) {
		t.Errorf("last line %q, want %d lines left out", last, wantLeft)
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@\n$`)

// applyDiff applies a unified diff that Diff wrote to text, checking each
// context and removed line against it.
func applyDiff(t *testing.T, text, diff string) string {
	t.Helper()
	if diff == "" {
		return text
	}
	src := strings.SplitAfter(text, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	var out []string
	at := 0
	lines := strings.SplitAfter(diff, "\n")
	for _, l := range lines[2:] {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@"):
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("bad hunk header %q", l)
			}
			a, _ := strconv.Atoi(m[1])
			start := a - 1
			if m[2] == ",0" {
				start = a
			}
			out = append(out, src[at:start]...)
			at = start
		case l[0] == ' ' || l[0] == '-':
			if src[at] != l[1:] {
				t.Fatalf("line %d is %q, the diff says %q", at+1, src[at], l[1:])
			}
			if l[0] == ' ' {
				out = append(out, src[at])
			}
			at++
		case l[0] == '+':
			out = append(out, l[1:])
		default:
			t.Fatalf("unexpected diff line %q", l)
		}
	}
	return strings.Join(append(out, src[at:]...), "")
}
