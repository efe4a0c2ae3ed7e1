package vault

import (
	"slices"
	"strings"
)

// A section of a note is addressed by a heading, or by a heading path as
// chunks and search results name them ("Sync settings > Primary device"):
// read-note takes one, and what cites a passage writes one. The rules live
// here so that a citation always names the section it came from.

// HeadingKey is a heading as compared with one asked for: lower case,
// without Markdown's code and emphasis marks or a leading '#'.
func HeadingKey(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "# ")
	s = strings.NewReplacer("`", "", "*", "", "_", " ").Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// HeadingPaths gives each heading its path of keys, outermost first.
func HeadingPaths(headings []Heading) []string {
	out := make([]string, len(headings))
	var open []Heading
	for i, h := range headings {
		for len(open) > 0 && open[len(open)-1].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, h)
		keys := make([]string, len(open))
		for j, o := range open {
			keys[j] = HeadingKey(o.Text)
		}
		out[i] = strings.Join(keys, " > ")
	}
	return out
}

// FindHeading returns the index of the heading that want names, or -1.
// want is a heading or a heading path; the last part names the heading,
// the others the headings above it when several match, and the first of
// that name is taken when the path above it matches none. A heading whose
// own text holds " > " is matched whole first.
func FindHeading(headings []Heading, want string) int {
	best := slices.IndexFunc(headings, func(h Heading) bool { return HeadingKey(h.Text) == HeadingKey(want) })
	var parts []string
	for _, p := range strings.Split(want, " > ") {
		parts = append(parts, HeadingKey(p))
	}
	paths := HeadingPaths(headings)
	for i, h := range headings {
		if best >= 0 && len(parts) == 1 {
			break
		}
		if HeadingKey(h.Text) != parts[len(parts)-1] {
			continue
		}
		if best < 0 {
			best = i
		}
		if len(parts) > 1 && strings.HasSuffix(" > "+paths[i], " > "+strings.Join(parts, " > ")) {
			best = i
			break
		}
	}
	return best
}

// SectionEnd is the last line of the section of headings[i]: the line
// before the next heading of the same or a higher level, or 0 when the
// section runs to the end of the note.
func SectionEnd(headings []Heading, i int) int {
	h := headings[i]
	for _, next := range headings[i+1:] {
		if next.Level <= h.Level {
			return next.Line - 1
		}
	}
	return 0
}

// CitedHeading is the heading path that names the smallest section
// holding lines start..end, such that FindHeading finds that section
// again, or "" when only the whole note holds them. A chunk's own heading
// path is not always it: a tiny section joins the one after it, and the
// chunk, which starts above that section's heading, takes its path.
func CitedHeading(headings []Heading, start, end int) string {
	var open []int // indexes of the headings above start, outermost first
	for i, h := range headings {
		if h.Line > start {
			break
		}
		for len(open) > 0 && headings[open[len(open)-1]].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, i)
	}
	for k := len(open) - 1; k >= 0; k-- {
		i := open[k]
		if last := SectionEnd(headings, i); last != 0 && last < end {
			continue
		}
		texts := make([]string, k+1)
		for j, o := range open[:k+1] {
			texts[j] = headings[o].Text
		}
		if path := strings.Join(texts, " > "); FindHeading(headings, path) == i {
			return path
		}
	}
	return ""
}
