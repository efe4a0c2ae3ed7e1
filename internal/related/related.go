// Package related finds the notes close to one note: by its links (direct,
// shared, co-cited), by the similarity of its passages to theirs, and by
// shared tags; the notes close in meaning that it does not link to yet,
// with the sentence a link would go in; and the places where a note's name
// is written as plain text, the way Obsidian's "unlinked mentions" pane
// shows them. It reads the link graph, the vectors and the full-text
// index, and the notes' own text through the vault's safe readers.
package related

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// The kinds of reason a note is related.
const (
	KindLink        = "link"         // one links to the other
	KindSharedLinks = "shared-links" // both link to the same notes
	KindCoCited     = "co-cited"     // the same notes link to both
	KindMeaning     = "meaning"      // their passages are similar
	KindTags        = "tags"         // they share tags
)

// Label is the word a reason of kind is shown with to a reader, in the
// CLI and the MCP answer alike. A meaning reason is "similar": what the
// embedder measures may be meaning or, with the lexical embedder, shared
// words and word pieces.
func Label(kind string) string {
	if kind == KindMeaning {
		return "similar"
	}
	return kind
}

// AlsoMatching words the other notes the name asked about matched as
// well, and how to ask about one of them instead: related-notes and
// jarvis related say it alike.
func AlsoMatching(paths []string) string {
	return graph.AlsoMatching(paths, "ask about it")
}

// weights of each kind of reason in a note's score. Links the user made
// and passages alike weigh most; shared links and co-citation are
// second-hand links; tags are coarse, and a common one says little.
var weights = map[string]float64{KindLink: 1, KindSharedLinks: 0.8, KindCoCited: 0.8, KindMeaning: 1, KindTags: 0.6}

// kinds lists the kinds in the order a note's reasons are given.
var kinds = []string{KindLink, KindMeaning, KindSharedLinks, KindCoCited, KindTags}

// Query asks for the notes related to the note at Path in Vault.
type Query struct {
	Vault, Path string
	// Limit is the most related notes returned: 10 when 0, at most
	// MaxLimit.
	Limit int
	// Reader is who reads the answer: what it says is missing points to
	// a fix that reader can use.
	Reader notes.Reader
}

// DefaultLimit and MaxLimit bound Query.Limit.
const (
	DefaultLimit = 10
	MaxLimit     = 50
)

// Reason is one thing that relates two notes.
type Reason struct {
	Kind   string  `json:"kind" jsonschema:"link, shared-links, co-cited, meaning or tags"`
	Detail string  `json:"detail" jsonschema:"what relates them, in words: the shared links, the notes citing both, the similar passage, the shared tags"`
	Score  float64 `json:"score" jsonschema:"how strong this reason is, 0 to 1, relative to the strongest reason of its kind in this answer"`
}

// Note is one related note.
type Note struct {
	Path    string   `json:"path" jsonschema:"vault-relative path; pass it to read-note"`
	Title   string   `json:"title"`
	Score   float64  `json:"score" jsonschema:"0 to 1: the weighted sum of its reasons' scores over the most every kind of reason could give"`
	Reasons []Reason `json:"reasons"`
}

// Suggestion is a note close in meaning that the note does not link to
// and is not linked from: a link to add.
type Suggestion struct {
	Path       string  `json:"path" jsonschema:"the note to link to"`
	Title      string  `json:"title"`
	Link       string  `json:"link" jsonschema:"the wikilink to paste: the file name, or the path when the name is not unique, with the title as display text when it differs"`
	Similarity float64 `json:"similarity" jsonschema:"similarity of their closest passages, 0 to 1"`
	Line       int     `json:"line,omitempty" jsonschema:"line of the sentence in the note asked about; 0 when no sentence was found"`
	Sentence   string  `json:"sentence,omitempty" jsonschema:"the sentence of the note asked about where a link would go"`
	// Because says how the sentence was chosen.
	Because string `json:"because,omitempty" jsonschema:"mentions it: the sentence names the note; shares words with it that no other note holds all of: the sentence of the similar passage sharing the most words with the other note, among those whose shared words no third note holds all of"`
}

// Mention is a note's name written as plain text somewhere.
type Mention struct {
	Path     string `json:"path" jsonschema:"for mentions: the note the name is written in; for mentioning: the note whose name is written here"`
	Line     int    `json:"line" jsonschema:"line of the mention, in the note it is written in"`
	Name     string `json:"name" jsonschema:"the title or alias found, as the note names it"`
	Sentence string `json:"sentence" jsonschema:"the sentence holding it"`
	// MoreInNote counts the mentions of the same note past the first
	// maxMentionsPerNote, which are not listed; it is set on the last
	// one listed.
	MoreInNote int `json:"more_in_note,omitempty" jsonschema:"for mentions: how many more lines of the same note mention it, not listed; given on the last one listed of that note"`
}

// Answer is what Find returns.
type Answer struct {
	Vault string `json:"vault"`
	Path  string `json:"path"`
	Title string `json:"title"`
	// Related are the closest notes, best first.
	Related     []Note       `json:"related" jsonschema:"the closest notes, best first, each with every reason it is related"`
	Suggestions []Suggestion `json:"suggestions" jsonschema:"notes close in meaning that are not linked either way, with the sentence where a link would go"`
	// Mentions are places in other notes where this note's title or an
	// alias is written as plain text.
	Mentions []Mention `json:"mentions" jsonschema:"unlinked mentions: places in other notes where this note's title or an alias is written as plain text, not as a link"`
	// MentionsFound counts every unlinked mention found, listed or not.
	MentionsFound int `json:"mentions_found" jsonschema:"how many unlinked mentions were found; more than mentions lists when cut"`
	// MentionsCut is true when more notes may mention it than were read.
	MentionsCut bool `json:"mentions_cut" jsonschema:"true when more notes may mention it than were read: the 50 that use its names most were"`
	// Mentioning are places in this note where another note's title or
	// alias is written as plain text.
	Mentioning []Mention `json:"mentioning" jsonschema:"the reverse: places in this note where another note's title or alias is written as plain text"`
	// Embedder is the embedder that measured similarity, if any.
	Embedder string `json:"embedder,omitempty" jsonschema:"the embedder that measured similarity; lexical measures shared words and word pieces, not meaning"`
	// Missing says what could not be used, and so what the answer lacks.
	Missing []string `json:"missing,omitempty" jsonschema:"what could not be used and what the answer lacks for it, such as meaning unavailable"`
	// Skipped are links and tags too common to count.
	Skipped []string `json:"skipped,omitempty" jsonschema:"hub notes and common tags left out of shared links, co-citation and tags: each joins so many notes that it says little"`
}

// MaxSuggestions and MaxMentions bound the suggestions and each list of
// mentions of an answer.
const (
	MaxSuggestions = 5
	MaxMentions    = 20
	// maxMentionsPerNote bounds the mentions listed from one note, so
	// that a note naming it on every line leaves room for the others.
	maxMentionsPerNote = 3
)

// Bounds of one answer besides the limit and lists: each sentence or
// passage is cut short.
const (
	maxSentence   = 240
	maxPassage    = 160
	maxNamesShown = 3
	// mentionCandidates is how many notes that may mention the note are
	// read from disk, those with most mentions first.
	mentionCandidates = 50
	// mentionBytes bounds the text of the notes read for mentions, in
	// all: each is parsed, and fifty notes near the 8 MB note size limit
	// would take minutes. A note that would take the total past it is
	// not read, and the answer says mentions were cut.
	mentionBytes = 4 << 20
	// ownProseBytes bounds the text of the note itself read for link
	// suggestions and mentions: the first MB (to a line's end) of a note
	// of up to 8 MB, whose parse alone would take most of a second.
	ownProseBytes = 1 << 20
)

// ownText is the part of a note's text src read for its own sentences,
// and whether that is less than all of it.
func ownText(src []byte) ([]byte, bool) {
	if len(src) <= ownProseBytes {
		return src, false
	}
	cut := bytes.LastIndexByte(src[:ownProseBytes], '\n')
	if cut < 0 {
		cut = ownProseBytes
	}
	return src[:cut+1], true
}

// Service answers related-notes questions. Each field is one capability;
// a nil one leaves its part out of the answer, which then says so.
type Service struct {
	Vaults []config.Vault
	// Kin reads the note's links and tags; without it nothing is found.
	Kin func(ctx context.Context, vault, path string) (graph.Kinship, error)
	// Similar compares the note's passages with the vault's.
	Similar func(ctx context.Context, vault string, fileID int64, limit int) ([]SimilarNote, error)
	// Embedder is the fingerprint of the embedder Similar uses.
	Embedder func() string
	// VectorsAbsent says why Similar finds no vector when it is not that
	// none were made (search.VectorsAbsent); nil knows no such reason.
	VectorsAbsent func() (why string, stored bool)
	// Explain words, as search does, why the embedder cannot be used and
	// what tells how to fix a trouble; nil leaves the fix unnamed.
	Explain Explainer
	// Mentioning finds notes whose text may hold one of the names.
	Mentioning func(ctx context.Context, vault string, names []string, limit int) ([]string, bool, error)
	// Holding counts the notes holding a set of words, for the sentences
	// of link suggestions: nil leaves out those that do not name the note.
	Holding func(ctx context.Context, vault string, words, except []string, limit int) (int, error)
	// Names lists every note's names, for the mentions in the note.
	Names func(ctx context.Context, vault string) ([]graph.NoteNames, error)
	// Prose reads a note's plain words; it fails as vault.Parser.Prose
	// does, when ctx ends or the note is too complex to parse.
	Prose func(ctx context.Context, src []byte) ([]vault.Prose, error)
	// TooComplex reports that the index found the note's content src too
	// complex to parse in time, so that it is not parsed again to fail
	// again (index.Catalog.TooComplex); nil knows of none.
	TooComplex func(ctx context.Context, vault, path string, src []byte) bool
}

// prose reads the plain words of text, all or the start of the note at
// path whose content is src, unless the index already found that content
// too complex to parse.
func (s *Service) prose(ctx context.Context, vaultName, path string, src, text []byte) ([]vault.Prose, error) {
	if s.TooComplex != nil && s.TooComplex(ctx, vaultName, path, src) {
		return nil, fmt.Errorf("%s: %w", path, vault.ErrTooComplex)
	}
	return s.Prose(ctx, text)
}

// New builds the service over the link graph, the passages' similarity,
// semantic and keyword search and the parser.
func New(vaults []config.Vault, g *graph.Graph, sim *Similarity, sem *search.Semantic, kw *fulltext.Keyword, p *vault.Parser) *Service {
	return &Service{Vaults: vaults, Kin: g.Kin, Similar: sim.Similar, Embedder: sem.Embedder,
		VectorsAbsent: func() (string, bool) { return search.VectorsAbsent(sim.vec) },
		Mentioning:    kw.NotesMentioning, Holding: kw.NotesHolding, Names: g.Names, Prose: p.Prose}
}

// ErrUnavailable means the index that every part of the answer starts
// from cannot be read.
var ErrUnavailable = errors.New("the index is unavailable")

// Explainer is how search words a missing embedder and names what tells
// the fix (search.Service), for a reader.
type Explainer interface {
	NoEmbedder(err error, r notes.Reader) string
	TellsWhy(r notes.Reader) string
}

// Find answers q. A note the index does not hold is graph.ErrNoteNotFound;
// an index that cannot be read is ErrUnavailable. Anything else that
// fails leaves its part out, and Answer.Missing says so.
func (s *Service) Find(ctx context.Context, q Query) (Answer, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	if s.Kin == nil {
		return Answer{}, ErrUnavailable
	}
	kin, err := s.Kin(ctx, q.Vault, q.Path)
	if err != nil {
		if errors.Is(err, graph.ErrNoteNotFound) || ctx.Err() != nil {
			return Answer{}, err
		}
		return Answer{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	a := Answer{Vault: q.Vault, Path: kin.Path, Title: kin.Title, Suggestions: []Suggestion{},
		Mentions: []Mention{}, Mentioning: []Mention{}, Skipped: kin.Skipped}
	if len(a.Skipped) > 10 {
		a.Skipped = append(a.Skipped[:10:10], fmt.Sprintf("and %d more", len(kin.Skipped)-10))
	}

	var similar []SimilarNote
	switch {
	case s.Similar == nil:
		a.Missing = append(a.Missing, similarMissing("semantic search is not set up here"))
	default:
		// The pool link suggestions are drawn from does not shrink with
		// the limit of related notes asked for: a short list still
		// proposes the links a full one does.
		similar, err = s.Similar(ctx, q.Vault, kin.ID, max(limit, DefaultLimit)+MaxSuggestions)
		if err != nil {
			if ctx.Err() != nil {
				return Answer{}, ctx.Err()
			}
			a.Missing = append(a.Missing, similarMissing(meaningMissing(err, s.VectorsAbsent, s.Explain, q.Reader)))
		} else {
			if s.Embedder != nil {
				a.Embedder = s.Embedder()
			}
			if s.VectorsAbsent != nil {
				// Some vectors are in memory and others still being read
				// (a server just started): what was found is not all.
				if why, _ := s.VectorsAbsent(); why == search.VectorsReading {
					a.Missing = append(a.Missing, "links and tags are complete, but similar passages and links to consider may be missing because "+why+"; ask again in a few seconds")
				}
			}
		}
	}

	var prose []vault.Prose
	files := s.reader(q.Vault)
	src, readErr := files.read(kin.Path)
	if readErr != nil {
		a.Missing = append(a.Missing, "the note's own text could not be read ("+readErr.Error()+"): no sentences for link suggestions and no mentions in it")
	} else if s.Prose != nil {
		text, cut := ownText(src)
		if cut {
			a.Missing = append(a.Missing, fmt.Sprintf("only the first %d KB of the note's own text were read for link suggestions and mentions in it", len(text)>>10))
		}
		if prose, err = s.prose(ctx, q.Vault, kin.Path, src, text); err != nil {
			if ctx.Err() != nil {
				return Answer{}, ctx.Err()
			}
			a.Missing = append(a.Missing, "the note's own text is too complex to parse in time: no sentences for link suggestions and no mentions in it")
		}
	}
	var names []graph.NoteNames
	if s.Names != nil {
		if names, err = s.Names(ctx, q.Vault); err != nil {
			if ctx.Err() != nil {
				return Answer{}, ctx.Err()
			}
			a.Missing = append(a.Missing, "the names of the other notes could not be read: no mentions in this note")
			names = nil
		}
	}

	a.Related = merge(kin, similar, limit, newNoteNames(names))
	// Notes in the vault's templates folder are patterns for new notes:
	// never proposed as links, nor counted as mentioning this one.
	templates := files.templateFolders()
	names = slices.DeleteFunc(slices.Clone(names), func(n graph.NoteNames) bool { return vault.InFolder(n.Path, templates) })
	toSuggest := slices.DeleteFunc(slices.Clone(similar), func(n SimilarNote) bool { return vault.InFolder(n.Path, templates) })
	suggestions, missing, err := suggest(ctx, q.Vault, kin, toSuggest, prose, names, s.Holding)
	if err != nil {
		return Answer{}, err
	}
	a.Suggestions = suggestions
	if missing != "" {
		a.Missing = append(a.Missing, missing)
	}
	var resolver *vault.Resolver
	if names != nil {
		resolver = nameResolver(names)
	}
	if err := s.mentions(ctx, q.Vault, files, kin, resolver, &a); err != nil {
		if ctx.Err() != nil {
			return Answer{}, ctx.Err()
		}
		a.Missing = append(a.Missing, "unlinked mentions unavailable: "+err.Error())
	}
	a.Mentions = slices.DeleteFunc(a.Mentions, func(m Mention) bool { return vault.InFolder(m.Path, templates) })
	if readErr == nil && names != nil {
		a.Mentioning = mentioning(prose, names, kin, resolver)
	}
	return a, nil
}

// similarMissing words what an answer lacks when the passages could not
// be compared, and why: true of any embedder, whether it measures meaning
// or shared words.
func similarMissing(why string) string {
	return "links and tags are complete, but similar passages and links to consider are missing because " + why
}

// meaningMissing words why the passages could not be compared; absent,
// when set, says why no vector is there when it is not that none were
// made (search.VectorsAbsent), and explain (when set) words a missing
// embedder and names the fix for reader r.
func meaningMissing(err error, absent func() (string, bool), explain Explainer, r notes.Reader) string {
	tellsWhy := "the health check"
	if explain != nil {
		tellsWhy = explain.TellsWhy(r)
	}
	switch {
	case errors.Is(err, search.ErrNoVectors):
		if absent != nil {
			switch why, stored := absent(); {
			case why == search.VectorsReading:
				return why + "; ask again in a few seconds"
			case stored:
				return why + "; " + tellsWhy + " says how to fix it"
			}
		}
		return "there are no vectors for this note yet (they are made after the notes are indexed)"
	case errors.Is(err, vectors.ErrNoEmbedder):
		if explain != nil {
			return explain.NoEmbedder(err, r)
		}
		return "the embedder cannot be used (" + tellsWhy + " says why)"
	case errors.Is(err, vectors.ErrDimensionMismatch):
		return "the embedder changed and the vectors are being made again"
	}
	return "the vectors could not be compared"
}

// reader reads the notes of one vault through its safe reader, the vault
// folder opened once for all the notes of a call.
type reader struct {
	root *vault.Root
	err  error // why the vault cannot be read, when it cannot
}

// reader opens the named vault for reading.
func (s *Service) reader(vaultName string) reader {
	for _, v := range s.Vaults {
		if v.Name != vaultName {
			continue
		}
		root, err := vault.OpenRoot(v.Path, v.Exclude)
		if err != nil {
			return reader{err: errors.New("the vault folder cannot be opened")}
		}
		return reader{root: root}
	}
	return reader{err: errors.New("its vault is not configured")}
}

// templateFolders are the vault's templates folders (vault.Root's
// TemplateFolders); none when the vault cannot be opened.
func (r reader) templateFolders() []string {
	if r.root == nil {
		return nil
	}
	return r.root.TemplateFolders()
}

// read reads one note.
func (r reader) read(rel string) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	data, _, warn, err := r.root.ReadNote(rel)
	switch {
	case err != nil:
		return nil, errors.New(vault.ErrText(err))
	case warn != "":
		return nil, errors.New(warn)
	}
	return data, nil
}

// candidate gathers the reasons of one note.
type candidate struct {
	path, title string
	raw         map[string]float64
	detail      map[string]string
}

// merge scores every note the graph, the tags and the vectors relate to
// the note: each reason's score is its strength over the strongest of its
// kind, and a note's score their weighted sum over the sum of the weights.
func merge(kin graph.Kinship, similar []SimilarNote, limit int, known noteNames) []Note {
	by := map[string]*candidate{}
	get := func(p, title string) *candidate {
		c, ok := by[p]
		if !ok {
			c = &candidate{path: p, title: title, raw: map[string]float64{}, detail: map[string]string{}}
			by[p] = c
		}
		return c
	}
	for _, k := range kin.Kin {
		c := get(k.Path, k.Title)
		switch {
		case k.LinksTo && k.LinkedFrom:
			c.raw[KindLink], c.detail[KindLink] = 1.5, "they link to each other"
		case k.LinksTo:
			c.raw[KindLink], c.detail[KindLink] = 1, "this note links to it"
		case k.LinkedFrom:
			c.raw[KindLink], c.detail[KindLink] = 1, "it links to this note"
		}
		if k.Coupling > 0 {
			c.raw[KindSharedLinks], c.detail[KindSharedLinks] = k.Coupling, "both link to "+wikiList(k.BothLinkTo, known)
		}
		if k.CoCitation > 0 {
			n := len(k.CitedWith)
			c.raw[KindCoCited] = k.CoCitation
			c.detail[KindCoCited] = fmt.Sprintf("%s to both: %s", words.CountAs(n, "note links", "notes link"), wikiList(k.CitedWith, known))
		}
		if k.TagWeight > 0 {
			var tags []string
			for _, t := range k.Tags {
				tags = append(tags, "#"+t)
			}
			c.raw[KindTags], c.detail[KindTags] = k.TagWeight, "both tagged "+words.List(tags)
		}
	}
	for _, s := range similar {
		c := get(s.Path, s.Title)
		c.raw[KindMeaning] = s.Similarity
		// Labelled "similar" where it is shown (Label), the detail does
		// not say so again.
		detail := "passage: \"" + search.Excerpt(s.Passage.Text, maxPassage) + "\""
		if label := s.Passage.HeadingLabel(); label != "" {
			detail += " (" + label + ")"
		}
		c.detail[KindMeaning] = detail
	}
	best := map[string]float64{}
	for _, c := range by {
		for k, v := range c.raw {
			best[k] = max(best[k], v)
		}
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	out := make([]Note, 0, len(by))
	for _, c := range by {
		n := Note{Path: c.path, Title: c.title}
		sum := 0.0
		for _, k := range kinds {
			v, ok := c.raw[k]
			if !ok || best[k] <= 0 {
				continue
			}
			score := round(v / best[k])
			n.Reasons = append(n.Reasons, Reason{Kind: k, Detail: c.detail[k], Score: score})
			sum += weights[k] * v / best[k]
		}
		if len(n.Reasons) == 0 {
			continue
		}
		n.Score = round(sum / total)
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Note) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Path, b.Path)) })
	return out[:min(len(out), limit)]
}

// round keeps three decimals: enough to rank, short to read.
func round(f float64) float64 {
	return float64(int(f*1000+0.5)) / 1000
}

// Wikilink is the link to the note at p, titled title, that leads to it
// by Obsidian's rules in a vault of the notes at paths (vault.Named): its
// file name when no other note has it, else the shortest end of its path
// that names it alone, else its whole path; with the title as display
// text when the title is not the file name. A title is not a link
// target in Obsidian: "[[Evergreen Notes]]" for 202403091008.md leads
// nowhere. Without paths the whole path is used, which always leads to it.
func Wikilink(p, title string, paths []string) string {
	stem := vault.LinkStem(p)
	target := stem
	if paths != nil {
		parts := strings.Split(stem, "/")
		for i := len(parts) - 1; i > 0; i-- {
			t := strings.Join(parts[i:], "/")
			if named, ok := vault.NamesOne(t, paths); ok && named == p {
				target = t
				break
			}
		}
	}
	title = vault.TitleBeside(p, title)
	if title == "" || strings.ContainsAny(title, "[]|") {
		return "[[" + target + "]]"
	}
	return "[[" + target + "|" + title + "]]"
}

// wikiList names up to maxNamesShown notes as [[links]], "and N more" for
// the rest.
func wikiList(paths []string, known noteNames) string {
	var names []string
	for i, p := range paths {
		if i == maxNamesShown {
			names = append(names, fmt.Sprintf("%d more", len(paths)-i))
			break
		}
		names = append(names, known.link(p))
	}
	return words.List(names)
}

// noteNames are the titles of a vault's notes by path, and their paths,
// for links that name a note as a reader knows it: a note named by a
// timestamp id is linked with its title as display text.
type noteNames struct {
	titles map[string]string
	paths  []string
}

// newNoteNames indexes names (nil when they could not be read: links
// then give paths alone).
func newNoteNames(names []graph.NoteNames) noteNames {
	n := noteNames{titles: make(map[string]string, len(names)), paths: make([]string, 0, len(names))}
	for _, nn := range names {
		n.titles[nn.Path] = nn.Title
		n.paths = append(n.paths, nn.Path)
	}
	return n
}

// link is the wikilink to the file at p (Wikilink): by its path when the
// vault's names are not known.
func (n noteNames) link(p string) string {
	if n.paths == nil {
		return "[[" + vault.LinkStem(p) + "]]"
	}
	return Wikilink(p, n.titles[p], n.paths)
}
