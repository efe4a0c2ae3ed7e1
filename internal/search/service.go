package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Mode is a kind of search.
type Mode string

// The modes of search.
const (
	// ModeKeyword ranks notes by their words with BM25 (package fulltext).
	ModeKeyword Mode = "keyword"
	// ModeSemantic ranks notes by the similarity of their best passage to
	// the query, as the embedder measures it (semantic.go).
	ModeSemantic Mode = "semantic"
	// ModeCombined fuses both (combined.go).
	ModeCombined Mode = "combined"
)

// ParseMode reads a mode's name; "" is combined.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeCombined, nil
	case ModeKeyword, ModeSemantic, ModeCombined:
		return m, nil
	}
	return "", fmt.Errorf("there is no search mode %q: use keyword, semantic or combined", s)
}

// MaxQueryChars bounds a query in every mode, tool and command: room for a
// question a model pastes with its context, not for a whole document.
const MaxQueryChars = 10000

// SemanticQueryChars is how much of a query is embedded: about 500 tokens,
// the window of the small sentence encoders. The rest is searched by
// keyword only, and the answer says so.
const SemanticQueryChars = 2000

// ErrQueryTooLong means a query is longer than MaxQueryChars; CheckQuery's
// error wraps it with the query's length.
var ErrQueryTooLong = errors.New("the query is too long")

// CheckQuery refuses a query that every mode would refuse: notes.ErrEmptyQuery
// for blank text, ErrQueryTooLong (saying how long, and the limit) past
// MaxQueryChars. A command can check before it does any other work.
func CheckQuery(text string) error {
	if strings.TrimSpace(text) == "" {
		return notes.ErrEmptyQuery
	}
	if n := utf8.RuneCountInString(text); n > MaxQueryChars {
		return fmt.Errorf("%w: it is %d characters long; keep it under %d", ErrQueryTooLong, n, MaxQueryChars)
	}
	return nil
}

// Query is one search.
type Query struct {
	Mode Mode // combined when empty
	Text string
	// Limit is the most notes returned: the mode's default when 0, at
	// most the mode's most (Limits).
	Limit  int
	Filter notes.Filter
	// Threshold, in semantic mode, leaves out notes whose best passage is
	// less similar than this (0 to 1), before Limit applies.
	Threshold float64
	// NamesOnly, in keyword mode, matches note titles, aliases and paths,
	// not their text.
	NamesOnly bool
	// Index is the state of the index that runs in the background, as the
	// caller reports it with the answer; the zero State when nothing
	// indexes in the background (a command that indexed first). It says
	// whether vectors may still be loading, and an empty answer while a
	// vault's first index is under way says so (index.Explain).
	Index index.State
	// Reader is who reads the answer's sentences, so that they name what
	// that reader can change (tool arguments or command flags).
	Reader notes.Reader

	// IndexExplained is set by a caller that tells the reader itself why
	// the index cannot be read and how to fix it (jarvis search's note on
	// the database): an answer from the note files then says only what it
	// searched, not again why.
	IndexExplained bool

	// Alternatives are other phrasings of Text, or keywords, searched
	// as Text is and fused with it (alternatives.go); at most
	// MaxAlternatives, each at most MaxAlternativeChars.
	Alternatives []string

	// noSnippets leaves combined results' snippets as ranked, for a
	// caller that reads the notes' passages itself (Passages).
	noSnippets bool
}

// Answer is what a search found, and how.
type Answer struct {
	Results []notes.Result
	// Truncated is set when more notes matched than were returned.
	Truncated bool
	// Degraded is set when part of the search was unavailable and the
	// answer came from a fallback; Reason says what and what was used.
	Degraded bool
	Reason   string
	// Embedder is the fingerprint of the embedder that measured similarity;
	// empty when none did.
	Embedder string
	// Vectors is how many passages semantic ranking compared the query
	// with, of the Chunks the index holds: while vectors are still being
	// made, semantic ranking covers only part of the vaults.
	Vectors, Chunks int
	// Empty, when there are no results, says why in a sentence.
	Empty string
	// Unready is set when Empty says why for a reason other than the
	// query: no vault searched could be searched whole (index.Explain).
	Unready bool
	// Notes say what else the reader should know, such as a query cut to
	// what a search could take.
	Notes []string
	// Alternatives says what each alternative searched added to the
	// results, in the order given; nil without alternatives.
	Alternatives []AlternativeHits
}

// Service is the one entry point of search: it runs each mode, applies
// the filter, and owns the fallback policy. When semantic search cannot
// run (no vectors yet, the embedder down or changed) it answers with
// keywords; when the index cannot be read it scans the note files; and it
// says so, in one wording, in Answer.Reason.
type Service struct {
	keyword  *fulltext.Keyword
	semantic *Semantic
	db       notes.Querier // the index, as both searches read it
	combined *Combined
	files    []config.Vault // scanned when the index cannot be read
	// exclude are the exclude patterns of the vaults served, by name:
	// every answer leaves out what they keep out (notes.Filter.Exclude).
	exclude map[string][]string
	log     *slog.Logger
	// inv are the flags of the run, for the command an answer names
	// when nothing is indexed yet.
	inv health.Invocation
	// keywordFailed counts the failures of keyword search, by why.
	keywordFailed failures
}

// failures counts failures by kind, so that each kind is logged the first
// time and then at the 2nd, 4th, 8th... rather than at every call.
type failures struct {
	mu sync.Mutex
	n  map[string]int
	// last is the kind of the latest failure, "" since a success.
	last string
}

// ok notes a success: the failures before it are no longer the state.
func (f *failures) ok() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = ""
}

// now is the kind of the latest failure, "" when the latest try worked.
func (f *failures) now() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// add counts one failure of kind and returns how many there have been.
func (f *failures) add(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]int{}
	}
	f.n[kind]++
	f.last = kind
	return f.n[kind]
}

// NewService returns the search service. files are the vaults served,
// scanned when the index cannot be read; inv are the user's flags, which
// a command an answer suggests repeats.
func NewService(kw *fulltext.Keyword, sem *Semantic, cmb *Combined, files []config.Vault, inv health.Invocation, log *slog.Logger) *Service {
	exclude := map[string][]string{}
	for _, v := range files {
		exclude[v.Name] = v.Exclude
	}
	return &Service{keyword: kw, semantic: sem, db: sem.db, combined: cmb, files: files, exclude: exclude, log: log, inv: inv}
}

// leftOut reports whether the note at path in the named vault is kept out
// by the rules of the vaults served, as every answer's filter keeps it out.
func (s *Service) leftOut(ref NoteRef) bool {
	return vault.LeftOut(ref.Path, s.exclude[ref.Vault])
}

// Why semantic search could not run, and the reasons an answer gives that
// name nothing the reader can run (see TellsWhy for those that do).
const (
	reasonLoading = "the server is indexing the notes and making their vectors now (list-vaults shows how far); semantic search joins in as soon as the first are stored: ask again shortly"
	reasonReading = "the notes' stored vectors are being read into memory (list-vaults shows the index's state); semantic search joins in as soon as they are: ask again in a few seconds"
	reasonChanged = "the embedder changed since the notes' vectors were made, and they are made again at the next index run"

	fellBackToKeywords = "answered with keyword search instead"
	fellBackToFiles    = "searched the note files on disk for the words instead (slower, ranked by word counts)"
)

// Search runs q. Errors are only those a caller must act on: notes.ErrEmptyQuery,
// ErrQueryTooLong, and the context's own; everything else degrades the
// answer and says why. The notes the served vaults' exclude patterns keep
// out are left out by the filter every mode applies as it gathers
// candidates, so they take no place within the limit.
func (s *Service) Search(ctx context.Context, q Query) (Answer, error) {
	if err := CheckQuery(q.Text); err != nil {
		return Answer{}, err
	}
	if err := CheckAlternatives(q.Alternatives); err != nil {
		return Answer{}, err
	}
	text := strings.TrimSpace(q.Text)
	q.Text = text
	if q.Mode == "" {
		q.Mode = ModeCombined
	}
	limit, limitNote := limitFor(q.Mode, q.Limit)
	q.Limit = limit
	q.Filter.Exclude = s.exclude
	// The filter is read once for every retriever. When the index cannot
	// be read, the retrievers fail too, and the file scan applies it.
	if f, err := q.Filter.Resolve(ctx, s.db); err == nil {
		if f.MatchesNothing() {
			a := noNotes(f, q.Reader)
			s.unready(ctx, q, &a)
			return a, nil
		}
		q.Filter = f
	} else if ctx.Err() != nil {
		return Answer{}, ctx.Err()
	} else if strings.TrimSpace(q.Filter.Where) != "" {
		// A where filter is read from the index alone: without it, no
		// answer could honour it.
		if errors.Is(err, query.ErrWhere) {
			return Answer{}, err
		}
		return Answer{}, s.whereNeedsIndex(q.Reader, err)
	}

	var a Answer
	var err error
	if alts := distinctAlternatives(text, q.Alternatives); len(alts) > 0 {
		a, err = s.withAlternatives(ctx, q, alts)
	} else {
		a, err = s.run(ctx, q)
	}
	if err != nil {
		return Answer{}, err
	}
	if a.Results == nil {
		a.Results = []notes.Result{}
	}
	notes.BreakTies(a.Results)
	a.Results, a.Truncated = truncate(a.Results, limit)
	if limitNote != "" {
		a.Notes = append(a.Notes, limitNote)
	}
	if n := fulltext.KeywordCut(text); n > 0 && (q.Mode != ModeSemantic || a.Degraded) {
		a.Notes = append(a.Notes, fmt.Sprintf("keyword search used the first %d words of the query and left out %d more", fulltext.MaxTerms, n))
	}
	if len(a.Results) == 0 && a.Empty == "" {
		a.Empty = s.empty(ctx, q, a, text)
	}
	s.unready(ctx, q, &a)
	return a, nil
}

// run answers q in its mode, with the fallbacks of each.
func (s *Service) run(ctx context.Context, q Query) (Answer, error) {
	switch q.Mode {
	case ModeKeyword:
		return s.byKeyword(ctx, q, "")
	case ModeSemantic:
		return s.bySemantic(ctx, q)
	case ModeCombined:
		return s.byBoth(ctx, q)
	}
	return Answer{}, fmt.Errorf("there is no search mode %q: use keyword, semantic or combined", q.Mode)
}

// unready adds to a what index.Explain says of the vaults q searched:
// in place of a's empty sentence when no vault could be searched whole,
// and as notes about the vaults that could not beside what the others
// gave.
func (s *Service) unready(ctx context.Context, q Query, a *Answer) {
	var searched []config.Vault
	for _, v := range s.files {
		if (q.Filter.Vault == "" || v.Name == q.Filter.Vault) && (len(q.Filter.Vaults) == 0 || slices.Contains(q.Filter.Vaults, v.Name)) {
			searched = append(searched, v)
		}
	}
	u := index.Explain(index.Cover(ctx, s.db, searched), q.Index, s.inv)
	if u.NoNotes {
		// No vector is missing: there is no note to make one of.
		a.Degraded, a.Reason = false, ""
	}
	if len(a.Results) == 0 && u.Empty != "" {
		a.Empty, a.Unready = u.Empty, true
		return
	}
	a.Notes = append(a.Notes, u.For(len(a.Results))...)
}

// byKeyword answers by keywords, or from the files when the index cannot
// be read; why says what led here ("" when keywords were asked for).
func (s *Service) byKeyword(ctx context.Context, q Query, why string) (Answer, error) {
	res, err := s.keyword.Search(ctx, fulltext.KeywordQuery{Text: q.Text, Filter: q.Filter, Limit: probe(q.Limit), NamesOnly: q.NamesOnly})
	if err == nil {
		s.keywordFailed.ok()
		a := Answer{Results: res}
		if why != "" {
			a.Degraded, a.Reason = true, why+"; "+fellBackToKeywords
		}
		return a, nil
	}
	if stop(ctx, err) {
		return Answer{}, err
	}
	// The answer says so (index.Reported: a terminal leaves it to the
	// answer); the log says it once in words, then counts (every call
	// fails alike while the database is damaged), and keeps SQLite's own
	// words below the level a terminal shows.
	said, kwErr := store.Said(err), err
	switch n := s.keywordFailed.add(trouble(err)); {
	case n == 1:
		s.log.Warn("keyword search failed; scanning the note files", "why", said, index.Reported)
	case n&(n-1) == 0:
		s.log.Warn("keyword search failed again; scanning the note files", "why", said, "times", n, index.Reported)
	}
	s.log.Debug("keyword search failed", "err", err)
	res, err = scanFiles(ctx, s.files, q.Text, q.Filter, probe(q.Limit), !q.NamesOnly)
	if err != nil {
		return Answer{}, err
	}
	reason := fellBackToFiles
	if !q.IndexExplained {
		reason = s.noIndex(q.Reader, kwErr) + "; " + reason
	}
	if why != "" {
		reason = why + ", and " + reason
	}
	return Answer{Results: res, Degraded: true, Reason: reason}, nil
}

// Unreadable says why the latest keyword search could not read the index
// (and scanned the note files instead), in a few words; "" when it could.
// What describes the index (list-vaults) says so too, rather than that
// it is ready.
func (s *Service) Unreadable() string {
	return s.keywordFailed.now()
}

// bySemantic answers by similarity, or by keywords when semantic search
// cannot run.
func (s *Service) bySemantic(ctx context.Context, q Query) (Answer, error) {
	text, cut := semanticText(q.Text)
	res, err := s.semantic.Search(ctx, SemanticQuery{Text: text, Filter: q.Filter, Limit: probe(q.Limit), Threshold: q.Threshold})
	if err != nil {
		if stop(ctx, err) {
			return Answer{}, err
		}
		return s.byKeyword(ctx, q, s.semanticFailed(err, q.Index, q.Reader))
	}
	a := Answer{Results: res}
	if len(res) == 0 && q.Threshold > 0 {
		// Was it the threshold? The best passage without it says.
		best, err := s.semantic.Search(ctx, SemanticQuery{Text: text, Filter: q.Filter, Limit: 1})
		if stop(ctx, err) {
			return Answer{}, err
		}
		if err == nil && len(best) > 0 {
			a.Empty = belowThreshold(q.Threshold, best[0], q.Reader)
		}
	}
	s.covered(&a, "results come from those alone")
	if cut > 0 {
		a.Notes = append(a.Notes, semanticCutNote(cut))
	}
	return a, nil
}

// byBoth fuses keyword and semantic results; without semantic search it
// answers by keywords and says why.
func (s *Service) byBoth(ctx context.Context, q Query) (Answer, error) {
	text, cut := semanticText(q.Text)
	var semErr error
	res, err := s.combined.search(ctx, CombinedQuery{Text: q.Text, Filter: q.Filter, Limit: probe(q.Limit)}, text, &semErr)
	if err != nil {
		if stop(ctx, err) {
			return Answer{}, err
		}
		return s.byKeyword(ctx, q, "")
	}
	if !q.noSnippets {
		if err := s.keywordPassages(ctx, q, res); err != nil {
			if stop(ctx, err) {
				return Answer{}, err
			}
			s.log.Warn("read keyword passages", "err", err)
		}
	}
	a := Answer{Results: res}
	if semErr != nil {
		a.Degraded, a.Reason = true, s.semanticFailed(semErr, q.Index, q.Reader)+"; ranked by keywords only"
		return a, nil
	}
	s.covered(&a, "the others are found by keywords only")
	if cut > 0 {
		a.Notes = append(a.Notes, semanticCutNote(cut))
	}
	return a, nil
}

// covered records the embedder and how much of the index semantic ranking
// compared, with a note when that was not all of it; rest says what that
// means for the answer's mode.
func (s *Service) covered(a *Answer, rest string) {
	a.Embedder = s.semantic.Embedder()
	a.Vectors, a.Chunks = s.semantic.vec.Coverage()
	if a.Vectors < a.Chunks {
		doing := "vectors are still being made"
		if loading, _ := s.semantic.vec.Loading(); loading {
			doing = "the stored vectors are still being read into memory"
		}
		a.Notes = append(a.Notes, fmt.Sprintf("%s: semantic ranking compared %d of %d passages (%d%%); %s",
			doing, a.Vectors, a.Chunks, a.Vectors*100/a.Chunks, rest))
	}
}

// keywordPassages reads the passages of the combined results that
// keyword search ranked bare, within the limit: the notes shown, not every
// candidate. A note semantic search also found keeps the keyword passage,
// whose matches are marked.
func (s *Service) keywordPassages(ctx context.Context, q Query, res []notes.Result) error {
	shown := res[:min(len(res), q.Limit)]
	var kw []notes.Result
	var at []int
	for i, r := range shown {
		if slices.Contains(r.Retrievers, RetrieverKeyword) {
			kw = append(kw, r)
			at = append(at, i)
		}
	}
	if len(kw) == 0 {
		return nil
	}
	if err := s.keyword.Passages(ctx, q.Text, kw); err != nil {
		return err
	}
	for j, i := range at {
		shown[i].Snippet, shown[i].Line, shown[i].End = kw[j].Snippet, kw[j].Line, kw[j].End
		shown[i].Heading, shown[i].Then = kw[j].Heading, kw[j].Then
	}
	return nil
}

// semanticFailed is why semantic search could not run, in the words of
// reader r, st being the background index's state; the error itself goes
// to the log, not to the reader.
func (s *Service) semanticFailed(err error, st index.State, r notes.Reader) string {
	switch {
	case errors.Is(err, vectors.ErrNoEmbedder):
		// Such as a local model not pulled yet.
		s.log.Debug("no embedder; answering with keywords", "err", err)
		return s.NoEmbedder(err, r)
	case errors.Is(err, ErrNoVectors):
		switch loading, _ := s.semantic.vec.Loading(); {
		case loading:
			return reasonReading
		}
		switch why, stored := VectorsAbsent(s.semantic.vec); {
		case stored:
			// Making them again would not help.
			return why + ": " + s.TellsWhy(r) + " says how to fix it"
		case st.Busy():
			return reasonLoading
		}
		return "semantic search has no vectors yet (run " + s.inv.Command("index") + " to make them)"
	case errors.Is(err, vectors.ErrDimensionMismatch):
		return reasonChanged
	}
	s.log.Warn("semantic search failed; answering with keywords", "err", err)
	return "the embedder could not embed the query (" + s.TellsWhy(r) + " says why)"
}

// NoEmbedder says, in the words of reader r, that the embedder is not
// available, err (a vectors.ErrNoEmbedder) saying why: semantic search and
// related notes word it so. The cause is jarvis's own words (a model not
// installed, with the command that installs it): at the terminal it is the
// fix, said once; elsewhere it is a pointer to where the fix is said.
func (s *Service) NoEmbedder(err error, r notes.Reader) string {
	if cause, ok := strings.CutPrefix(err.Error(), vectors.ErrNoEmbedder.Error()+": "); ok && r == notes.ReaderTerminal {
		return "the embedder is not available: " + cause
	}
	return "the embedder is not available (" + s.TellsWhy(r) + " says why and how to fix it)"
}

// noIndex is the reason an answer gives, in the words of reader r, when
// the index cannot be read.
func (s *Service) noIndex(r notes.Reader, err error) string {
	return "the index cannot be read (" + trouble(err) + "; " + s.TellsWhy(r) + " says how to fix it)"
}

// whereNeedsIndex is the error of a search with a where filter when the
// index cannot be read (err): the filter's properties are read from the
// index alone, so the search without it, which scans the note files, is
// the way to an answer now, in the words of reader r.
func (s *Service) whereNeedsIndex(r notes.Reader, err error) error {
	where := "the where argument"
	if r == notes.ReaderTerminal {
		where = "--where"
	}
	return fmt.Errorf("%w: a where filter reads the notes' properties from the index, which cannot be read (%s); search without %s to have the note files scanned for the words instead, and %s says how to fix the index",
		ErrIndexUnreadable, trouble(err), where, s.TellsWhy(r))
}

// ErrIndexUnreadable means a search needed the index, which could not be
// read, and had no way around it.
var ErrIndexUnreadable = errors.New("the search needs the index")

// trouble says in a few words why the index could not be read: the kind
// of trouble the database is in, where store.Classify knows it, and
// otherwise only that it could not be read (the error's own text is for
// the log and the doctor).
func trouble(err error) string {
	if store.Classify(err) == store.KindOther {
		return "it could not be read"
	}
	return store.Said(err)
}

// TellsWhy names, in the words of reader r, what says why a part of
// jarvis failed and how to fix it: the health-status tool (or doctor) for
// the model behind an MCP client, `jarvis doctor` with the flags the user
// gave for a person at a terminal.
func (s *Service) TellsWhy(r notes.Reader) string {
	if r == notes.ReaderTerminal {
		return s.inv.Command("doctor")
	}
	return "health-status or " + s.inv.Command("doctor")
}

// stop reports whether an error ends the search instead of degrading it:
// the caller's own cancellation, or a query with nothing to search for.
func stop(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, notes.ErrEmptyQuery)
}

// semanticText is the part of a query that is embedded, cut at a word
// boundary, and how many characters were left out.
func semanticText(text string) (string, int) {
	n := utf8.RuneCountInString(text)
	if n <= SemanticQueryChars {
		return text, 0
	}
	cut := Excerpt(text, SemanticQueryChars)
	cut = strings.TrimSuffix(cut, "…")
	return cut, n - utf8.RuneCountInString(cut)
}

func semanticCutNote(cut int) string {
	return fmt.Sprintf("semantic search compared the first %d characters of the query (%d more were searched by keyword only)", SemanticQueryChars, cut)
}

// emptiness says why an answer has no results.
func emptiness(q Query, a Answer) string {
	var b strings.Builder
	b.WriteString("Nothing in the notes matches this query")
	if d := q.Filter.Describe(); d != "" {
		b.WriteString(" among the notes " + d)
	}
	mode := q.Mode
	if a.Degraded {
		mode = ModeKeyword
	}
	switch mode {
	case ModeKeyword:
		b.WriteString(": no note holds its words.")
	case ModeSemantic:
		b.WriteString(": no passage is similar enough to it.")
	default:
		b.WriteString(": no note holds its words and no passage is similar enough to it.")
	}
	b.WriteString(" The notes may not cover this topic; searching again with other words, or fewer, may find related notes.")
	return b.String()
}

// namesOnlyEmpty is the empty answer of a search of note names only (a
// title, an alias, a path), in the words of q's reader: inText says
// whether some note holds the query's words in its text, which a search
// of the text then finds.
func namesOnlyEmpty(q Query, inText bool) string {
	var b strings.Builder
	b.WriteString("No note's title, alias or path matches this query")
	if d := q.Filter.Describe(); d != "" {
		b.WriteString(" among the notes " + d)
	}
	b.WriteString(" (only names were searched).")
	if !inText {
		b.WriteString(" No note holds its words in its text either: the notes may not cover this topic; searching again with other words, or fewer, may find related notes.")
		return b.String()
	}
	how := "with search_content true"
	if q.Reader == notes.ReaderTerminal {
		how = "without --names-only"
	}
	b.WriteString(" Some notes hold its words in their text: search again " + how + " to find them.")
	return b.String()
}

// keywordFinds is the empty answer of a semantic search whose query's
// words some note holds, in the words of reader r.
func keywordFinds(r notes.Reader) string {
	how := "search-vault (keyword) or search-combined"
	if r == notes.ReaderTerminal {
		how = "--mode keyword, or the default combined mode"
	}
	return "No passage is similar enough to this query, but some notes hold its words: search again with " + how + " to find them."
}

// belowThreshold is the empty answer of a semantic search whose
// similarity threshold left out every passage, best being the most
// similar note without it, in the words of reader r: the threshold's name
// is --threshold at a terminal and similarity_threshold in the MCP tool.
func belowThreshold(threshold float64, best notes.Result, r notes.Reader) string {
	name := "similarity_threshold"
	if r == notes.ReaderTerminal {
		name = "--threshold"
	}
	lower := strconv.FormatFloat(math.Floor(best.Score*100)/100, 'f', -1, 64)
	return fmt.Sprintf("No passage is as similar to the query as %s %s asks: the most similar, in %s, scores %s. Give a lower %s, such as %s, to see it and others near it.",
		name, strconv.FormatFloat(threshold, 'f', -1, 64), best.Path, FormatScore(best.Score), name, lower)
}

// noNotes is the answer when the filter itself keeps no note.
func noNotes(f notes.Filter, r notes.Reader) Answer {
	return Answer{Results: []notes.Result{}, Empty: f.NoNotes(r)}
}

// empty says why a search of text found nothing, and where to look: the
// notes' text when only names were searched, or when a semantic search
// fell under its floor on words notes hold; their properties when only
// those hold the words (inProperties); else that nothing matches.
func (s *Service) empty(ctx context.Context, q Query, a Answer, text string) string {
	inText := false
	if s.keyword != nil && (q.NamesOnly || q.Mode == ModeSemantic && !a.Degraded) {
		kw, err := s.keyword.Search(ctx, fulltext.KeywordQuery{Text: text, Filter: q.Filter, Limit: 1})
		inText = err == nil && len(kw) > 0
	}
	switch {
	case q.NamesOnly && inText:
		return namesOnlyEmpty(q, true)
	case inText:
		// A query of a word or two can fall under the similarity floor
		// against whole passages that hold it: keyword search is then
		// the way to them, not other words.
		return keywordFinds(q.Reader)
	}
	// Properties are not searched as text: a word a note holds only
	// there is pointed to, not called absent.
	if said := s.inProperties(ctx, q); said != "" {
		return said
	}
	if q.NamesOnly {
		return namesOnlyEmpty(q, false)
	}
	return emptiness(q, a)
}

// inProperties is the empty answer of a search whose words no note's text
// or names hold when some note's properties (its frontmatter) hold them
// all, in a value or a property's name, in the words of q's reader; ""
// when none does. Search reads the text, titles, aliases, headings and
// tags of notes, not their other properties, which a filter reads.
func (s *Service) inProperties(ctx context.Context, q Query) string {
	ws := fulltext.Words(q.Text)
	if len(ws) == 0 || s.db == nil {
		return ""
	}
	var conds []string
	var args []any
	for _, w := range ws {
		conds = append(conds, `instr(lower(f.frontmatter), ?) > 0`)
		args = append(args, strings.ToLower(w))
	}
	vaults := q.Filter.Vaults
	if q.Filter.Vault != "" {
		vaults = []string{q.Filter.Vault}
	}
	if len(vaults) > 0 {
		conds = append(conds, `v.name IN (`+store.Placeholders(len(vaults))+`)`)
		for _, v := range vaults {
			args = append(args, v)
		}
	}
	if ids, idArgs := q.Filter.NoteIDs(); ids != "" {
		conds = append(conds, `f.id IN (`+ids+`)`)
		args = append(args, idArgs...)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT v.name, f.path, f.frontmatter FROM files f JOIN vaults v ON v.id = f.vault_id
		WHERE f.kind = 'note' AND f.frontmatter IS NOT NULL AND `+strings.Join(conds, " AND ")+` ORDER BY v.name, f.path LIMIT 50`, args...)
	if err != nil {
		return ""
	}
	defer rows.Close()
	var paths []string
	var vaultName, key, value string
	for rows.Next() {
		var vn, p, fm string
		if rows.Scan(&vn, &p, &fm) != nil {
			return ""
		}
		paths = append(paths, p)
		if key == "" {
			vaultName = vn
			key, value = propertyHolding(fm, ws[0])
		}
	}
	if rows.Err() != nil || len(paths) == 0 {
		return ""
	}
	notesWord := fmt.Sprintf("%s (such as %s)", words.Count(len(paths), "note"), paths[0])
	if len(paths) == 1 {
		notesWord = paths[0]
	}
	head := fmt.Sprintf("No note's text or names hold the words of this query, but the properties (frontmatter) of %s do, which search does not read as text", notesWord)
	// A filter on the property finds them: by its value when it is one
	// string, else by the property being there.
	var expr, list string
	switch {
	case key == "":
		return head + ": filter on a property with " + filterWords(q.Reader) + "."
	case value != "" && plainName(key):
		expr = key + " == " + strconv.Quote(value)
	default:
		expr = "file.hasProperty(" + strconv.Quote(key) + ")"
		list = key
	}
	if q.Reader == notes.ReaderTerminal {
		args := []string{"--in", vaultName, "--filter", expr}
		if list != "" {
			args = append(args, "--property", list)
		}
		return fmt.Sprintf("%s: list the notes by the property %s with %s.", head, key, s.inv.Command("query", args...))
	}
	return fmt.Sprintf("%s: list the notes by the property %s with query-notes, vault %s and filter %s.", head, key, strconv.Quote(vaultName), expr)
}

// filterWords names, for reader r, where a filter on properties is given.
func filterWords(r notes.Reader) string {
	if r == notes.ReaderTerminal {
		return "--where or `jarvis query`"
	}
	return "the where argument or query-notes"
}

// propertyHolding is the property of the frontmatter fm (a JSON object)
// that holds word, case aside, and its value when that is one string: the
// one whose value is the word (or holds it as a whole word) before one
// whose value holds it inside a longer word (an e-mail address), before
// one whose name holds it; "" when none does or fm cannot be read.
func propertyHolding(fm, word string) (key, value string) {
	var props map[string]any
	if json.Unmarshal([]byte(fm), &props) != nil {
		return "", ""
	}
	word = strings.ToLower(word)
	best := 0
	for _, k := range slices.Sorted(maps.Keys(props)) {
		v := props[k]
		str, isString := v.(string)
		rank, val := 0, ""
		switch low := strings.ToLower(str); {
		case isString && low == word:
			rank, val = 5, str
		case isString && slices.Contains(strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), word):
			rank, val = 4, str
		case isString && strings.Contains(low, word):
			rank, val = 3, str
		case !isString && strings.Contains(strings.ToLower(fmt.Sprint(v)), word):
			rank = 2
		case strings.Contains(strings.ToLower(k), word):
			rank = 1
		}
		if rank > best {
			best, key, value = rank, k, val
		}
	}
	return key, value
}

// plainName reports whether a property name can stand bare in a filter
// expression: letters, digits and underscores, not starting with a digit.
func plainName(k string) bool {
	for i, r := range k {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return k != ""
}
