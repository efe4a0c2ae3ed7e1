package related

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// namesOf are the names a note is mentioned by, as Obsidian's unlinked
// mentions look for them: its file name, its title and its aliases,
// without repeats (compared without regard to case).
func namesOf(p, title string, aliases []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range append([]string{vault.TitleFromPath(p), title}, aliases...) {
		n = strings.TrimSpace(n)
		k := strings.ToLower(n)
		if n == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, n)
	}
	return out
}

// match is one whole-word occurrence of a name in a block's text.
type match struct {
	name       string
	start, end int // in the block's text
	line       int
}

// findNames finds the whole-word, case-insensitive occurrences of names
// in the free ranges of a block. A longer name wins over a shorter one
// starting at the same place ("French press" over "French").
func findNames(b vault.Prose, names []string) []match {
	var out []match
	for _, f := range b.Free {
		text := b.Text[f.Start:f.End]
		lower := strings.ToLower(text)
		if len(lower) != len(text) {
			continue // lower-casing moved the offsets; rare, and skipped
		}
		for _, n := range names {
			ln := strings.ToLower(n)
			for from := 0; from < len(lower); {
				i := strings.Index(lower[from:], ln)
				if i < 0 {
					break
				}
				i += from
				j := i + len(ln)
				if wordEdge(lower, i) && wordEdge(lower, j) && namedBy(n, text[i:j]) {
					out = append(out, match{name: n, start: f.Start + i, end: f.Start + j, line: f.Line})
				}
				from = i + max(len(ln), 1)
			}
		}
	}
	slices.SortFunc(out, func(a, b match) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return (b.end - b.start) - (a.end - a.start)
	})
	// Overlapping matches keep the first, longest one.
	kept := out[:0]
	for _, m := range out {
		if n := len(kept); n > 0 && m.start < kept[n-1].end {
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

// maxAcronym is the longest name, in characters, read as an acronym.
const maxAcronym = 5

// namedBy reports whether text written in a note, equal to name but for
// case, names it: the one rule both directions (mentions of a note,
// notes a note mentions) match names by. Names match whatever their case,
// as Obsidian's unlinked mentions do, except a short name in capitals (an
// acronym such as the alias AS or NASA), which matches only as written:
// else "as" in any sentence would name the note aliased AS.
func namedBy(name, written string) bool {
	if acronym(name) {
		return written == name
	}
	return true
}

// acronym reports whether name is a short name in capitals: at most
// maxAcronym letters and digits, with a letter, every letter upper case.
func acronym(name string) bool {
	if utf8.RuneCountInString(name) > maxAcronym {
		return false
	}
	letters := 0
	for _, r := range name {
		switch {
		case unicode.IsLower(r), !unicode.IsLetter(r) && !unicode.IsDigit(r):
			return false
		case unicode.IsLetter(r):
			letters++
		}
	}
	return letters > 0
}

// wordEdge reports whether offset i of s is not inside a word: at either
// end, or between a letter or digit and something that is neither.
func wordEdge(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i:])
	return !isWord(before) || !isWord(after)
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// sentenceEnd says whether the character at b.Text[i] ends a sentence,
// by its length in bytes (0 when it does not): a full stop, question or
// exclamation mark at the end of the text or before a space (so that
// "0.1 g" and "e.g.," do not end one), but for the full stop of a single
// lower-case letter ("i.e. ", "e.g. "), the same in Arabic and Devanagari
// script, and the full stops and marks of Chinese and Japanese, which end
// a sentence with no space after them. A mark inside a link's text, a
// code span or a tag ends nothing: it is part of a name or of code.
func sentenceEnd(b vault.Prose, i int) int {
	text := b.Text
	c := text[i]
	n := 0
	if c < utf8.RuneSelf {
		if strings.IndexByte(".!?", c) >= 0 && (i+1 == len(text) || text[i+1] == ' ') && !(c == '.' && abbreviation(text, i)) {
			n = 1
		}
	} else if utf8.RuneStart(c) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '。', '！', '？', '｡', '．':
			n = size
		case '؟', '۔', '।', '॥':
			if i+size == len(text) || text[i+size] == ' ' {
				n = size
			}
		}
	}
	if n > 0 && !freeAt(b, i) {
		return 0
	}
	return n
}

// abbreviation reports whether the full stop at text[i] follows a word
// of one lower-case letter, as those of "i.e." and "e.g." do.
func abbreviation(text string, i int) bool {
	if i == 0 || text[i-1] < 'a' || text[i-1] > 'z' {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(text[:i-1])
	return i == 1 || !unicode.IsLetter(before)
}

// freeAt reports whether offset i of b's text is in one of its free
// ranges, written as plain words rather than a link, code span or tag.
func freeAt(b vault.Prose, i int) bool {
	k := sort.Search(len(b.Free), func(k int) bool { return b.Free[k].End > i })
	return k < len(b.Free) && b.Free[k].Start <= i
}

// sentence is the sentence of b's text holding offsets start to end, cut
// to maxSentence characters around them, as a reader sees it: Markdown
// left in the text (a callout's marker, a link written in code) is read
// as search snippets read it (notes.Plain), and a cut falls outside links
// and code, never inside one.
func sentence(b vault.Prose, start, end int) string {
	text := b.Text
	from := 0
	for i := start - 1; i >= 0; i-- {
		if n := sentenceEnd(b, i); n > 0 && i+n <= start {
			from = i + n
			break
		}
	}
	to := len(text)
	for i := end; i < len(text); i++ {
		if n := sentenceEnd(b, i); n > 0 {
			to = i + n
			break
		}
	}
	if utf8.RuneCountInString(strings.TrimSpace(text[from:to])) <= maxSentence {
		return notes.Plain(text[from:to])
	}
	// Too long: a window around the mention.
	lo, hi := max(from, start-maxSentence/2), min(to, end+maxSentence/2)
	for lo > from && !utf8.RuneStart(text[lo]) {
		lo--
	}
	for hi < to && !utf8.RuneStart(text[hi]) {
		hi++
	}
	// A cut inside a link or code moves out of it, towards the mention,
	// which is in plain words.
	if lo > from && !freeAt(b, lo) && !freeAt(b, lo-1) {
		k := sort.Search(len(b.Free), func(k int) bool { return b.Free[k].Start > lo })
		if k < len(b.Free) {
			lo = min(b.Free[k].Start, start)
		}
	}
	if hi < to && !freeAt(b, hi) && !freeAt(b, hi-1) {
		k := sort.Search(len(b.Free), func(k int) bool { return b.Free[k].Start >= hi })
		if k > 0 {
			hi = max(b.Free[k-1].End, end)
		}
	}
	out := notes.Plain(text[lo:hi])
	if lo > from {
		out = "…" + out
	}
	if hi < to {
		out += "…"
	}
	return out
}

// sentences splits a block's text into sentences, each with the line it
// starts on.
func sentences(b vault.Prose) []Mention {
	var out []Mention
	text := b.Text
	start := 0
	add := func(end int) {
		for start < end && text[start] == ' ' {
			start++
		}
		if start < end {
			out = append(out, Mention{Line: lineAt(b, start), Sentence: sentence(b, start, start)})
		}
		start = end
	}
	for i := 0; i < len(text); {
		if n := sentenceEnd(b, i); n > 0 {
			add(i + n) // past the mark, which may be several bytes
			i += n
			continue
		}
		i++
	}
	add(len(text))
	return out
}

// lineAt is the file line of offset off of a block's text: that of the
// last free range starting at or before it.
func lineAt(b vault.Prose, off int) int {
	line := 0
	for _, f := range b.Free {
		if f.Start > off && line != 0 {
			break
		}
		line = f.Line
	}
	return line
}

// ownNames are the names of the note asked about, lower-cased. Another
// note's name that is one of them (a translation that keeps the original
// title as an alias, a note of the same title in another folder) names
// this note as much as that one, so it is no mention of the other.
func ownNames(kin graph.Kinship) map[string]bool {
	own := map[string]bool{}
	for _, n := range namesOf(kin.Path, kin.Title, kin.Aliases) {
		own[strings.ToLower(n)] = true
	}
	return own
}

// othersNames are the names of the note at p, without those in own.
func othersNames(p, title string, aliases []string, own map[string]bool) []string {
	return slices.DeleteFunc(namesOf(p, title, aliases), func(n string) bool { return own[strings.ToLower(n)] })
}

// Why a sentence was chosen for a suggestion.
const (
	becauseMentions = "mentions it"
	becauseShares   = "shares words with it that no other note holds all of"
)

// holding counts the notes of a vault, other than those at the paths in
// except, that hold every one of words, counting no further than limit
// (fulltext.Keyword.NotesHolding).
type holding func(ctx context.Context, vault string, words, except []string, limit int) (int, error)

// suggest proposes links to the notes closest in meaning that are not
// linked either way, each with the sentence of the note where the link
// would go: one that names the other note, or else one of the similar
// passage that shares something specific with it (specificSentence). A
// note without such a sentence is still proposed, without a sentence.
// It fails only when ctx ends; a failure of the full-text index leaves
// out the sentences that need it, and says so in the error-free
// degraded string.
func suggest(ctx context.Context, vaultName string, kin graph.Kinship, similar []SimilarNote, prose []vault.Prose, names []graph.NoteNames, holds holding) (suggestions []Suggestion, missing string, err error) {
	linked := map[string]bool{}
	for _, k := range kin.Kin {
		if k.LinksTo || k.LinkedFrom {
			linked[k.Path] = true
		}
	}
	aliases := map[string][]string{}
	var paths []string
	for _, n := range names {
		aliases[n.Path] = n.Aliases
		paths = append(paths, n.Path)
	}
	own := ownNames(kin)
	out := []Suggestion{}
	// A sentence chosen for what it shares with one note is not offered
	// again for another: proposed for two, it is specific to neither.
	shared := map[Mention]bool{}
	for _, s := range similar {
		if linked[s.Path] || s.Path == kin.Path {
			continue
		}
		sg := Suggestion{Path: s.Path, Title: s.Title, Link: Wikilink(s.Path, s.Title, paths), Similarity: round(s.Similarity)}
		other := othersNames(s.Path, s.Title, aliases[s.Path], own)
	named:
		for _, b := range prose {
			if b.Heading > 0 {
				continue // a link goes in the text, not in a title
			}
			for _, m := range findNames(b, other) {
				sg.Line, sg.Sentence, sg.Because = m.line, sentence(b, m.start, m.end), becauseMentions
				break named
			}
		}
		if sg.Sentence == "" && holds != nil {
			sen, err := specificSentence(ctx, vaultName, kin.Path, s, prose, holds, shared)
			switch {
			case ctx.Err() != nil:
				return nil, "", ctx.Err()
			case err != nil:
				missing = "the full-text index could not be searched: some link suggestions come without the sentence where the link would go"
			case sen.Sentence != "":
				sg.Line, sg.Sentence, sg.Because = sen.Line, sen.Sentence, becauseShares
				shared[sen] = true
			}
		}
		out = append(out, sg)
		if len(out) == MaxSuggestions {
			break
		}
	}
	return out, missing, nil
}

// specificSentence is the sentence of the note at self, within the
// passage similar to the other note's, that shares the most words with
// that note's passage and title, among those sharing something specific
// with it: words that no third note of the vault holds all of. Words
// every note of a kind uses ("released", "plugin"), and sentences written
// alike in many notes (a boilerplate line, a template's text), are held
// by third notes too, and so say nothing about the two; a sentence made
// of them could be proposed for any note of the vault. The zero Mention
// means no sentence shares anything specific. Sentences in taken were
// chosen for other notes and are passed over.
func specificSentence(ctx context.Context, vaultName, self string, s SimilarNote, prose []vault.Prose, holds holding, taken map[Mention]bool) (Mention, error) {
	want := terms(s.Passage.Text + " " + s.Title)
	type candidate struct {
		at     Mention
		shared []string
	}
	var cands []candidate
	for _, b := range prose {
		if b.Heading > 0 {
			continue
		}
		for _, sen := range sentences(b) {
			if sen.Line < s.From.Line || sen.Line > s.From.End || taken[sen] {
				continue
			}
			var shared []string
			for w := range terms(sen.Sentence) {
				if want[w] {
					shared = append(shared, w)
				}
			}
			if len(shared) > 0 {
				slices.Sort(shared)
				cands = append(cands, candidate{sen, shared})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return len(b.shared) - len(a.shared) })
	var common [][]string // word sets some third note holds
	for _, c := range cands {
		// A third note holding a set of words holds each subset of it.
		if slices.ContainsFunc(common, func(set []string) bool { return subset(c.shared, set) }) {
			continue
		}
		n, err := holds(ctx, vaultName, c.shared, []string{self, s.Path}, 1)
		if err != nil {
			return Mention{}, err
		}
		if n == 0 {
			return c.at, nil
		}
		common = append(common, c.shared)
	}
	return Mention{}, nil
}

// subset reports whether every word of the sorted a is in the sorted b.
func subset(a, b []string) bool {
	for _, w := range a {
		if _, ok := slices.BinarySearch(b, w); !ok {
			return false
		}
	}
	return true
}

// terms are the distinct lower-case words of s that may say something:
// those of four letters or more (shorter ones are mostly the words every
// sentence has) and, in Chinese and Japanese, written without spaces, the
// character pairs full-text search indexes them by (vault.CJKPairs).
func terms(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(vault.CJKPairs(s)), func(r rune) bool { return !isWord(r) }) {
		if vault.HasCJK(w) || utf8.RuneCountInString(w) >= 4 {
			out[w] = true
		}
	}
	return out
}

// mentions finds the unlinked mentions of the note in the other notes of
// its vault: full-text search names the notes that may hold one of its
// names, and each is read and its plain words searched. A name written
// where a link of it would lead to another note (one of the same file
// name nearer, nameResolver) stands for that note, not this one; resolver
// may be nil when the vault's names could not be read.
func (s *Service) mentions(ctx context.Context, vaultName string, files reader, kin graph.Kinship, resolver *vault.Resolver, a *Answer) error {
	if s.Mentioning == nil || s.Prose == nil {
		return errors.New("full-text search is not set up here")
	}
	names := namesOf(kin.Path, kin.Title, kin.Aliases)
	paths, more, err := s.Mentioning(ctx, vaultName, names, mentionCandidates)
	if err != nil {
		return errors.New("the full-text index could not be searched")
	}
	read := 0
	for _, p := range paths {
		if p == kin.Path {
			continue
		}
		src, err := files.read(p)
		if err != nil {
			continue // gone or unreadable since it was indexed
		}
		if read+len(src) > mentionBytes {
			more = true
			continue
		}
		read += len(src)
		prose, err := s.prose(ctx, vaultName, p, src, src)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // too complex to parse: no mentions found in it
		}
		// A line naming the note twice is one place to link it.
		seen := map[int]bool{}
		listed := 0
		for _, b := range prose {
			for _, m := range findNames(b, names) {
				if resolver != nil {
					if to, ok := resolver.Resolve(p, b.Text[m.start:m.end], false); ok && to != kin.Path {
						continue // a link of it there leads elsewhere
					}
				}
				if seen[m.line] {
					continue
				}
				seen[m.line] = true
				a.MentionsFound++
				switch {
				case listed < maxMentionsPerNote && len(a.Mentions) < MaxMentions:
					a.Mentions = append(a.Mentions, Mention{Path: p, Line: m.line, Name: m.name, Sentence: sentence(b, m.start, m.end)})
					listed++
				case listed > 0:
					// This note's mentions are the last listed.
					a.Mentions[len(a.Mentions)-1].MoreInNote++
				}
			}
		}
	}
	a.MentionsCut = more
	return nil
}

// maxNameWords bounds the names looked for in the note: longer titles
// are rarely written out in another note's text.
const maxNameWords = 6

// nameResolver answers which note a name written as plain text in a note
// stands for: the one a link of that text written there would lead to
// (vault.Resolver, the rule the index resolves links by: the file name
// first, nearest the note, then aliases). A note's title, when it is not
// its file name, counts as one of its aliases: no link finds a note by it,
// and it names the note as much as an alias does.
func nameResolver(names []graph.NoteNames) *vault.Resolver {
	paths := make([]string, len(names))
	aliases := map[string][]string{}
	for i, n := range names {
		paths[i] = n.Path
		as := n.Aliases
		if t := strings.TrimSpace(n.Title); t != "" && vault.FoldName(t) != vault.NameKey(n.Path) {
			as = append(slices.Clip(as), t)
		}
		if len(as) > 0 {
			aliases[n.Path] = as
		}
	}
	return vault.NewResolver(paths, aliases)
}

// mentioning finds the other notes' names written as plain text in the
// note, the first place each is named: each run of up to maxNameWords
// words of its free text is looked up among every note's names, and the
// note it names is the one a link of that text would lead to
// (nameResolver). A note the note already links to is left out: it is
// linked, not merely named.
func mentioning(prose []vault.Prose, names []graph.NoteNames, kin graph.Kinship, resolver *vault.Resolver) []Mention {
	own := ownNames(kin)
	// isName holds every other note's names, by FoldName; namesAt each
	// note's, for the name shown as the note named writes it.
	isName := map[string]bool{}
	namesAt := map[string][]string{}
	for _, n := range names {
		if n.Path == kin.Path {
			continue
		}
		namesAt[n.Path] = othersNames(n.Path, n.Title, n.Aliases, own)
		for _, name := range namesAt[n.Path] {
			if k := vault.FoldName(name); len(strings.Fields(k)) <= maxNameWords {
				isName[k] = true
			}
		}
	}
	if len(isName) == 0 {
		return []Mention{}
	}
	seen := map[string]bool{kin.Path: true}
	for _, k := range kin.Kin {
		if k.LinksTo {
			seen[k.Path] = true
		}
	}
	out := []Mention{}
	for _, b := range prose {
		for _, f := range b.Free {
			text := b.Text[f.Start:f.End]
			starts, ends := wordSpans(text)
			for i := range starts {
				// The longest name starting at this word.
				for j := min(len(starts), i+maxNameWords) - 1; j >= i; j-- {
					written := text[starts[i]:ends[j]]
					k := vault.FoldName(written)
					if !isName[k] {
						continue
					}
					p, ok := resolver.Resolve(kin.Path, written, false)
					if !ok {
						break
					}
					name := written
					if at := slices.IndexFunc(namesAt[p], func(n string) bool { return vault.FoldName(n) == k }); at >= 0 {
						name = namesAt[p][at]
					}
					if !namedBy(name, written) {
						continue // an acronym written otherwise; a shorter name may start here
					}
					if !seen[p] {
						seen[p] = true
						out = append(out, Mention{Path: p, Line: f.Line, Name: name,
							Sentence: sentence(b, f.Start+starts[i], f.Start+ends[j])})
					}
					break
				}
				if len(out) == MaxMentions {
					return out
				}
			}
		}
	}
	return out
}

// wordSpans are the start and end offsets of the words of s.
func wordSpans(s string) (starts, ends []int) {
	in := false
	for i, r := range s {
		switch w := isWord(r); {
		case w && !in:
			starts, in = append(starts, i), true
		case !w && in:
			ends, in = append(ends, i), false
		}
	}
	if in {
		ends = append(ends, len(s))
	}
	return starts, ends
}
