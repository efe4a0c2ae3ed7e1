// Package contextpack assembles the passages of the user's notes that best
// answer a question into a budget of tokens: whole sections or paragraphs,
// each with what is needed to cite it and read it again, near-duplicates
// dropped, in an order that reads well, and a list of what was left out.
// The passages and their scores come from search; this package decides
// what fits.
package contextpack

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Budget bounds, in tokens.
const (
	DefaultBudget = 4000
	MinBudget     = 200
	MaxBudget     = 20000
	// MaxPaths is the most notes a request may start from.
	MaxPaths = 20
	// MaxLeftOut is the most left-out passages a pack lists; it counts the
	// rest.
	MaxLeftOut = 20
	// Hop is how many of the best notes have the notes they link to read
	// as well.
	Hop = 3
)

// Why a passage was left out.
const (
	OverBudget = "over budget"
	Duplicate  = "duplicate"
	WeakMatch  = "weak match"
)

// Tokens is what a text costs: 4 characters a token, rounded up. It is the
// usual rule of thumb for English with the tokenizers models use; it needs
// no tokenizer, and every client can check it.
func Tokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// Cost is what a passage costs: its citation line, a line break and its
// text, as Render writes them.
func Cost(citation, text string) int {
	return Tokens(citation + "\n" + text)
}

// Citation is the line that names where a passage comes from; label names
// the sections it covers (SectionLabel).
func Citation(vaultName, path, label string, start, end int) string {
	if label == "" {
		return fmt.Sprintf("[%s] %s, %s", vaultName, path, words.LineRange(start, end))
	}
	return fmt.Sprintf("[%s] %s § %s, %s", vaultName, path, label, words.LineRange(start, end))
}

// SectionLabel names the sections lines start..end of a note cover as
// search labels a passage (vault.SectionsOf): "Ingest lag, then Timeline"
// for one that runs from one section into the next. heading is the
// section cited for read-note; it stands in for a label longer than
// vault.MaxHeadingPath.
func SectionLabel(headings []vault.Heading, heading string, start, end int) string {
	label := vault.SectionsOf(headings, start, end).Label()
	if utf8.RuneCountInString(label) > vault.MaxHeadingPath {
		return heading
	}
	return label
}

// Request is one pack to build.
type Request struct {
	Query string
	// Budget is the most tokens the passages may cost, MinBudget to
	// MaxBudget; DefaultBudget when 0.
	Budget int
	// Paths are notes to start from: paths, titles or aliases.
	Paths []string
	// Vault limits the pack to one vault; Vaults are those served.
	Vault  string
	Vaults []string
	// Index is the background index's state, as in search.Query.
	Index index.State
}

// Passage is one passage of the pack.
type Passage struct {
	Vault string
	Path  string
	Title string
	// Heading names the section to pass to read-note, one that holds the
	// whole passage; "" for the whole note.
	Heading string
	// Label names the sections the passage covers, as its citation does
	// (SectionLabel).
	Label              string
	StartLine, EndLine int
	Text               string
	Citation           string
	Tokens             int
	Score              float64
	// Via is the note linking to this one, for a passage reached along a
	// link.
	Via string
	// Part is set for a paragraph of a section too large for the budget
	// left.
	Part bool
}

// LeftOut is a passage the pack could not or would not hold.
type LeftOut struct {
	Vault, Path, Heading string
	// Label names the sections of the lines, as a citation does
	// (SectionLabel).
	Label              string
	StartLine, EndLine int
	Tokens             int
	Reason             string
	// Part is set for paragraphs of a section some of whose other
	// paragraphs were taken: only the lines not taken are named, so that
	// no line is said to be both given and left out.
	Part bool
}

// Pack is the passages chosen, and what was left out.
type Pack struct {
	Passages []Passage
	Budget   int
	Used     int
	LeftOut  []LeftOut
	// MoreLeftOut counts the passages left out beyond LeftOut.
	MoreLeftOut int
	Degraded    bool
	Reason      string
	Embedder    string
	Remarks     []string
	// Unready, when the search found no note for a reason other than the
	// query, says why (search.PassageAnswer.Unready).
	Unready string
}

// PassageFunc runs a passage search (search.Service.Passages).
type PassageFunc func(ctx context.Context, q search.PassageQuery) (search.PassageAnswer, error)

// FindFunc resolves a note reference (graph.Graph.FindNote).
type FindFunc func(ctx context.Context, vault, ref string) (graph.Match, error)

// Builder builds packs.
type Builder struct {
	passages PassageFunc
	find     FindFunc          // nil: paths are taken as they are
	links    search.LinkedFunc // nil: no hop along links
}

// New returns a builder over a passage search, note lookup and the links
// of a note; find and links may be nil.
func New(passages PassageFunc, find FindFunc, links search.LinkedFunc) *Builder {
	return &Builder{passages: passages, find: find, links: links}
}

// Errors of a request the caller can fix, worded for the model.
var (
	ErrBadBudget    = fmt.Errorf("budget_tokens must be %d to %d", MinBudget, MaxBudget)
	ErrTooManyPaths = fmt.Errorf("paths may name at most %d notes", MaxPaths)
)

// Build assembles the pack for r. Errors are search's (an empty or long
// query, the context's), a path that names no note (*graph.NotFoundError),
// ErrBadBudget or ErrTooManyPaths.
func (b *Builder) Build(ctx context.Context, r Request) (Pack, error) {
	budget := r.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget || budget > MaxBudget {
		return Pack{}, fmt.Errorf("%w; got %d", ErrBadBudget, budget)
	}
	if len(r.Paths) > MaxPaths {
		return Pack{}, fmt.Errorf("%w; got %d: start from the most relevant", ErrTooManyPaths, len(r.Paths))
	}
	if err := search.CheckQuery(r.Query); err != nil {
		return Pack{}, err
	}
	var also []search.NoteRef
	for _, p := range r.Paths {
		ref, err := b.resolve(ctx, r, p)
		if err != nil {
			return Pack{}, err
		}
		also = append(also, ref)
	}
	ans, err := b.passages(ctx, search.PassageQuery{
		Text:   r.Query,
		Filter: notes.Filter{Vault: r.Vault, Vaults: r.Vaults},
		Also:   also,
		Links:  b.links,
		Hop:    Hop,
		Index:  r.Index,
	})
	if err != nil {
		return Pack{}, err
	}
	pack := choose(ans.Notes, budget)
	pack.Degraded, pack.Reason, pack.Embedder, pack.Remarks, pack.Unready = ans.Degraded, ans.Reason, ans.Embedder, ans.Remarks, ans.Unready
	return pack, nil
}

// resolve finds the note a path names: in the index by path, title or
// alias, or, when the index cannot be asked, as the vault-relative path
// it is.
func (b *Builder) resolve(ctx context.Context, r Request, p string) (search.NoteRef, error) {
	p = strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(p), `\`, "/"), "/")
	if b.find != nil {
		m, err := b.find(ctx, r.Vault, p)
		if err == nil {
			return search.NoteRef{Vault: m.Vault, Path: m.Path}, nil
		}
		if errors.Is(err, graph.ErrNoteNotFound) || ctx.Err() != nil {
			return search.NoteRef{}, err
		}
	}
	v := r.Vault
	if v == "" && len(r.Vaults) > 0 {
		v = r.Vaults[0]
	}
	return search.NoteRef{Vault: v, Path: p}, nil
}

// candidate is a passage of a note, as the packing weighs it.
type candidate struct {
	note *search.NotePassages
	p    *search.Passage
}

// choose packs the best passages into budget tokens. Candidates are taken
// best first: a weak match is left out, as is a near-duplicate of a
// passage already taken; a passage that fits is taken whole; one too
// large for what is left gives its paragraphs instead, those holding more
// of the query first, each taken when it fits, and what is left out of it
// is only the lines not taken. A note the caller asked for is never a
// weak match.
func choose(notes []search.NotePassages, budget int) Pack {
	pack := Pack{Budget: budget}
	var cands []candidate
	citers := map[*search.NotePassages]*vault.HeadingCiter{}
	for i := range notes {
		note := &notes[i]
		citers[note] = vault.NewHeadingCiter(note.Headings)
		var own []candidate
		for j := range note.Passages {
			own = append(own, candidate{note, &note.Passages[j]})
		}
		byScore(own)
		if len(own) > maxNotePassages {
			// A note of thousands of sections offers its best; the rest
			// count as left out.
			pack.MoreLeftOut += len(own) - maxNotePassages
			own = own[:maxNotePassages]
		}
		cands = append(cands, own...)
	}
	byScore(cands)
	// cite names lines start..end of a note: the section for read-note,
	// and the label its citation writes.
	cite := func(note *search.NotePassages, start, end int) (heading, label string) {
		heading = citers[note].Cite(start, end)
		return heading, SectionLabel(note.Headings, heading, start, end)
	}
	var kept []shingles
	var out []Passage
	// What is left out is cited once the list is cut: a large vault
	// leaves out hundreds of passages, and only the first are shown.
	type leftOut struct {
		c candidate
		span
	}
	var left []leftOut
	leave := func(c candidate, s span) { left = append(left, leftOut{c, s}) }
	// take adds lines start..end of a candidate when they fit and repeat
	// nothing taken; it says why not otherwise.
	take := func(c candidate, start, end int, text string, part bool) string {
		sh := shinglesOf(text)
		if slices.ContainsFunc(kept, sh.nearDuplicate) {
			return Duplicate
		}
		if pack.Used+Cost("", text) > budget {
			return OverBudget // whatever its citation, it cannot fit
		}
		heading, label := cite(c.note, start, end)
		cite := Citation(c.note.Vault, c.note.Path, label, start, end)
		cost := Cost(cite, text)
		if pack.Used+cost > budget {
			return OverBudget
		}
		pack.Used += cost
		kept = append(kept, sh)
		out = append(out, Passage{Vault: c.note.Vault, Path: c.note.Path, Title: c.note.Title, Heading: heading, Label: label,
			StartLine: start, EndLine: end, Text: text, Citation: cite, Tokens: cost, Score: c.p.Score, Via: c.note.Via, Part: part})
		return ""
	}
	for _, c := range cands {
		p := c.p
		if p.Weak && !c.note.Asked {
			leave(c, span{p.StartLine, p.EndLine, p.Text, WeakMatch, false})
			continue
		}
		why := take(c, p.StartLine, p.EndLine, p.Text, false)
		if why != OverBudget || len(p.Parts) == 0 {
			if why != "" {
				leave(c, span{p.StartLine, p.EndLine, p.Text, why, false})
			}
			continue
		}
		// The paragraphs holding more of the query are tried first; why
		// each was not taken is kept, by its place in the section.
		order := make([]int, len(p.Parts))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch ka, kb := p.Parts[a].Keyword, p.Parts[b].Keyword; {
			case ka > kb:
				return -1
			case ka < kb:
				return 1
			}
			return 0
		})
		whyNot := make([]string, len(p.Parts))
		for i := range whyNot {
			whyNot[i] = OverBudget
		}
		for _, i := range order {
			part := p.Parts[i]
			if part.Keyword == 0 && p.Keyword > 0 {
				break // the paragraphs that answer the query are taken
			}
			whyNot[i] = take(c, part.StartLine, part.EndLine, part.Text, true)
		}
		for _, s := range untaken(p, whyNot) {
			leave(c, s)
		}
	}
	pack.Passages = readingOrder(out)
	if len(left) > MaxLeftOut {
		pack.MoreLeftOut += len(left) - MaxLeftOut
		left = left[:MaxLeftOut]
	}
	pack.LeftOut = []LeftOut{}
	for _, l := range left {
		note := l.c.note
		heading, label := cite(note, l.start, l.end)
		cite := Citation(note.Vault, note.Path, label, l.start, l.end)
		pack.LeftOut = append(pack.LeftOut, LeftOut{Vault: note.Vault, Path: note.Path, Heading: heading, Label: label, StartLine: l.start, EndLine: l.end,
			Tokens: Cost(cite, l.text), Reason: l.reason, Part: l.part})
	}
	return pack
}

// span is lines start..end of a passage, left out for reason.
type span struct {
	start, end int
	text       string
	reason     string
	part       bool
}

// untaken is what a section too large for the budget leaves out, given
// why each of its paragraphs was not taken ("" for one taken): the whole
// section when none was, else each run of neighbouring paragraphs not
// taken for the same reason, cut from the section's text.
func untaken(p *search.Passage, whyNot []string) []span {
	if !slices.Contains(whyNot, "") {
		return []span{{p.StartLine, p.EndLine, p.Text, OverBudget, false}}
	}
	lines := strings.Split(p.Text, "\n")
	text := func(start, end int) string {
		from, to := start-p.StartLine, end-p.StartLine+1
		if from < 0 || to > len(lines) || from >= to {
			return "" // not lines of the section; never so for its paragraphs
		}
		return strings.Join(lines[from:to], "\n")
	}
	var out []span
	for i, part := range p.Parts {
		why := whyNot[i]
		if why == "" {
			continue
		}
		if n := len(out); n > 0 && whyNot[i-1] == why {
			out[n-1].end = part.EndLine
			continue
		}
		out = append(out, span{start: part.StartLine, end: part.EndLine, reason: why, part: true})
	}
	for i := range out {
		out[i].text = text(out[i].start, out[i].end)
	}
	return out
}

// maxNotePassages is how many of one note's passages, its best, are
// candidates.
const maxNotePassages = 200

// byScore sorts candidates best first, keeping the order of ties.
func byScore(cands []candidate) {
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.p.Score > b.p.Score:
			return -1
		case a.p.Score < b.p.Score:
			return 1
		}
		return 0
	})
}

// readingOrder groups passages by note, the notes in the order of their
// best passage, and puts each note's passages in document order.
func readingOrder(ps []Passage) []Passage {
	type key struct{ vault, path string }
	rank := map[key]int{}
	for _, p := range ps { // best first, as taken
		k := key{p.Vault, p.Path}
		if _, ok := rank[k]; !ok {
			rank[k] = len(rank)
		}
	}
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b Passage) int {
		if ra, rb := rank[key{a.Vault, a.Path}], rank[key{b.Vault, b.Path}]; ra != rb {
			return ra - rb
		}
		return a.StartLine - b.StartLine
	})
	if out == nil {
		out = []Passage{}
	}
	return out
}

// shingles are the runs of three words of a text, lower-cased; a text of
// fewer words is its words.
type shingles map[string]bool

func shinglesOf(text string) shingles {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	s := shingles{}
	if len(words) < 3 {
		for _, w := range words {
			s[w] = true
		}
		return s
	}
	for i := 0; i+3 <= len(words); i++ {
		s[words[i]+" "+words[i+1]+" "+words[i+2]] = true
	}
	return s
}

// Near-duplicates: texts whose shingles overlap by a Jaccard index of at
// least duplicateJaccard, or one of which has nearly all its shingles in
// the other (a paragraph quoted in another note, a section copied with a
// few words changed).
const (
	duplicateJaccard   = 0.8
	duplicateContained = 0.9
)

// nearDuplicate reports whether a and b say the same thing.
func (a shingles) nearDuplicate(b shingles) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	common := 0
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	for s := range small {
		if large[s] {
			common++
		}
	}
	union := len(a) + len(b) - common
	return float64(common)/float64(union) >= duplicateJaccard || float64(common)/float64(len(small)) >= duplicateContained
}
