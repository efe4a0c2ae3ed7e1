package vault

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A section of a note is addressed by a heading, or by a heading path as
// chunks and search results name them ("Sync settings > Primary device"):
// read-note takes one, and what cites a passage writes one. The rules live
// here so that a citation always names the section it came from.

// HeadingKey is a heading as compared with one asked for: lower case,
// without Markdown's code and emphasis marks or a leading '#'.
func HeadingKey(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "# ")
	s = headingMarks.Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

var headingMarks = strings.NewReplacer("`", "", "*", "", "_", " ")

func headingKeys(headings []Heading) []string {
	keys := make([]string, len(headings))
	for i, h := range headings {
		keys[i] = HeadingKey(h.Text)
	}
	return keys
}

// keyPaths gives each heading its path of keys, outermost first.
func keyPaths(headings []Heading, keys []string) []string {
	out := make([]string, len(headings))
	var open []int
	for i, h := range headings {
		for len(open) > 0 && headings[open[len(open)-1]].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, i)
		parts := make([]string, len(open))
		for j, o := range open {
			parts[j] = keys[o]
		}
		out[i] = strings.Join(parts, " > ")
	}
	return out
}

// FindHeading returns the index of the heading that want names, or -1.
// want is a heading or a heading path; the last part names the heading,
// the others the headings above it when several match, and the first of
// that name is taken when the path above it matches none. A heading whose
// own text holds " > " is matched whole first.
func FindHeading(headings []Heading, want string) int {
	var paths []string
	return findHeading(headings, headingKeys(headings), &paths, want)
}

// findHeading is FindHeading with the headings' keys made once and their
// paths made once when first needed (*paths nil until then).
func findHeading(headings []Heading, keys []string, paths *[]string, want string) int {
	whole := HeadingKey(want)
	best := slices.Index(keys, whole)
	var parts []string
	for _, p := range strings.Split(want, " > ") {
		parts = append(parts, HeadingKey(p))
	}
	if best >= 0 && len(parts) == 1 {
		return best
	}
	for i, k := range keys {
		if k != parts[len(parts)-1] {
			continue
		}
		if best < 0 {
			best = i // the path above it may not match: the first of that name
		}
		if len(parts) > 1 {
			if *paths == nil {
				*paths = keyPaths(headings, keys)
			}
			if strings.HasSuffix(" > "+(*paths)[i], " > "+strings.Join(parts, " > ")) {
				return i
			}
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

// MaxHeadings is the most headings Parse lists for a note: past it a
// section's end is not known, so a writer must not replace one.
const MaxHeadings = maxListItems

// MaxHeadingPath is the longest heading path, in characters, that a
// citation writes and read-note takes back: a heading can be a page long,
// and a longer path cites the section above it instead.
const MaxHeadingPath = 1000

// HeadingCiter cites sections of one note's headings, normalising each
// heading once however many passages it cites: a note of 50,000 headings
// would otherwise have every citation normalise all of them.
type HeadingCiter struct {
	headings []Heading
	keys     []string // made when first needed
	paths    []string // keyPaths, made when a nested path is first looked up
}

// NewHeadingCiter returns a citer over a note's headings, in order.
func NewHeadingCiter(headings []Heading) *HeadingCiter {
	return &HeadingCiter{headings: headings}
}

// Cite is the heading path that names the smallest section holding lines
// start..end, such that FindHeading finds that section again, of at most
// MaxHeadingPath characters, or "" when only the whole note holds them. A
// chunk's own heading path is not always it: a tiny section joins the one
// after it, and the chunk, which starts above that section's heading,
// takes its path.
func (c *HeadingCiter) Cite(start, end int) string {
	headings := c.headings
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
		if c.keys == nil {
			c.keys = headingKeys(headings)
		}
		path := strings.Join(texts, " > ")
		if utf8.RuneCountInString(path) > MaxHeadingPath {
			continue
		}
		if findHeading(headings, c.keys, &c.paths, path) == i {
			return path
		}
	}
	return ""
}

// PassageSections names the sections a passage of a note covers, so that
// its label is true of all of it. A chunk's stored heading path is not
// that: a tiny section joins the deeper one after it, and the chunk takes
// the later section's path, although its first lines are above it.
type PassageSections struct {
	// Path is the heading path in force at the passage's first line, which
	// read-note takes back; "" before the note's first heading.
	Path string
	// Then are the headings of the later sections the passage runs into,
	// in order.
	Then []string
}

// SectionsOf names the sections that lines start..end of a note cover,
// given the note's headings in line order: the path in force at start
// (each heading closes those of its level and deeper, and a heading
// without text is left out of the path), and the headings after start up
// to end.
func SectionsOf(headings []Heading, start, end int) PassageSections {
	var open []Heading
	var out PassageSections
	for _, h := range headings {
		if h.Line > end && h.Line > start {
			break
		}
		if h.Line > start {
			if h.Text != "" {
				out.Then = append(out.Then, h.Text)
			}
			continue
		}
		for len(open) > 0 && open[len(open)-1].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, h)
	}
	parts := make([]string, 0, len(open))
	for _, h := range open {
		if h.Text != "" {
			parts = append(parts, h.Text)
		}
	}
	out.Path = strings.Join(parts, " > ")
	return out
}

// Label is how a passage's sections are printed for a person or a model:
// "Silas Crowe > Lair" for a passage within one section, "Silas Crowe,
// then Secrets" for one that runs into a later section, and "" for one
// before the first heading that runs into none.
func (p PassageSections) Label() string {
	if len(p.Then) == 0 {
		return p.Path
	}
	parts := make([]string, 0, len(p.Then)+1)
	if p.Path != "" {
		parts = append(parts, p.Path)
	} else {
		parts = append(parts, "the note's opening")
	}
	parts = append(parts, p.Then...)
	return strings.Join(parts, ", then ")
}
