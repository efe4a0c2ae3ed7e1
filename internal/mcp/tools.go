package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Tool names, fixed: clients and people's prompts refer to them.
const (
	ToolSearchSemantic = "search-semantic"
	ToolSearchVault    = "search-vault"
	ToolSearchCombined = "search-combined"
	ToolSearchGraph    = "search-graph"
	ToolReadNote       = "read-note"
	ToolListVaults     = "list-vaults"
	ToolHealthStatus   = "health-status"
	ToolRelatedNotes   = "related-notes"
)

// Filters every search tool takes, with the rules notes.Filter states.
type Filters struct {
	Vault      string `json:"vault,omitempty" jsonschema:"search only this vault (a name from list-vaults); every vault when empty"`
	PathPrefix string `json:"path_prefix,omitempty" jsonschema:"only notes whose vault-relative path starts with this, without regard to case: Projects/ keeps the folder Projects, Projects also keeps Projects.md"`
	Tag        string `json:"tag,omitempty" jsonschema:"only notes with this tag or one nested under it (project also matches project/alpha); # is optional"`
	Where      string `json:"where,omitempty" jsonschema:"only notes passing this Obsidian Bases filter expression, as query-notes reads it, such as 'status == \"active\" && file.hasTag(\"project\")'"`
}

// QueryAlternatives is what every search tool takes: other words for the query that
// the model knows and the notes may use (search.Query.Alternatives).
type QueryAlternatives struct {
	Alternatives []string `json:"alternatives,omitempty" jsonschema:"optional: up to 5 other phrasings of the query, or synonyms and related keywords, each searched like the query and merged into one ranking in which the query counts twice as much as each alternative. Give them when the query's words may not be the notes' words (a synonym, a translation, a broader or narrower term, an abbreviation spelled out) or after a search found too little. Leave them out otherwise: for a name, a phrase or an exact term, and as a habit, since words that are not the notes' own (such as dictionary synonyms) pull in notes off the subject and lower the ranking"`
}

// AlternativeFound is what one alternative added to a search's answer.
type AlternativeFound struct {
	Text  string `json:"text"`
	Found int    `json:"found" jsonschema:"how many of the notes returned this alternative found"`
	Added int    `json:"added" jsonschema:"how many of those the query alone did not find"`
}

// SemanticInput is the input of search-semantic.
type SemanticInput struct {
	Query               string  `json:"query" jsonschema:"what to look for, in words: a description or a question works best"`
	Limit               int     `json:"limit,omitempty" jsonschema:"how many notes to return; more matched when truncated is true"`
	SimilarityThreshold float64 `json:"similarity_threshold,omitempty" jsonschema:"leave out notes whose best passage is less similar than this, 0 to 1; 0 keeps all above the embedder's floor"`
	Filters
	QueryAlternatives
}

// KeywordInput is the input of search-vault.
type KeywordInput struct {
	Query         string `json:"query" jsonschema:"words to find; \"quoted phrases\" match exactly and a word ending in * matches as a prefix"`
	SearchContent bool   `json:"search_content,omitempty" jsonschema:"true to search note text as well as names; false to match only titles, aliases and paths"`
	Limit         int    `json:"limit,omitempty" jsonschema:"how many notes to return; more matched when truncated is true"`
	Filters
	QueryAlternatives
}

// CombinedInput is the input of search-combined.
type CombinedInput struct {
	Query string `json:"query" jsonschema:"what to look for: words, a description or a question"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many notes to return; more matched when truncated is true"`
	Filters
	QueryAlternatives
}

// SearchOutput is what every search tool returns.
type SearchOutput struct {
	Results []notes.Result `json:"results" jsonschema:"notes found, best first; pass vault and path to read-note"`
	// Empty says why there are no results.
	Empty string `json:"empty,omitempty" jsonschema:"when nothing matched: why, and what to try"`
	// Embedder is the embedder semantic ranking used, if any.
	Embedder string `json:"embedder,omitempty" jsonschema:"the embedder that measured similarity; lexical measures shared words and word pieces, not meaning"`
	// Degraded is true when the answer is less than the tool promises.
	Degradation
	Truncated bool     `json:"truncated" jsonschema:"true when more notes matched than were returned"`
	Notes     []string `json:"notes,omitempty" jsonschema:"what else to know about this answer, such as a query cut to what a search could take"`
	// VectorsSearched is how many passages semantic ranking compared.
	VectorsSearched int `json:"vectors_searched,omitempty" jsonschema:"how many passages semantic ranking compared with the query"`
	// Passages is how many passages the index holds.
	// Alternatives says what each alternative searched found.
	Alternatives []AlternativeFound `json:"alternatives,omitempty" jsonschema:"per alternative searched (repeats of the query and blanks are skipped): how many notes returned it found, and how many of those the query alone did not"`
	Passages     int                `json:"passages,omitempty" jsonschema:"how many passages the index holds; more than vectors_searched while vectors are still being made, when semantic ranking covered only part of the vaults"`
	Index        index.State        `json:"index" jsonschema:"how fresh the index searched was, and how far making vectors has got"`
}

// limitSchema gives a search tool's limit the default and the most of
// its mode, as the search service applies them (search.Limits): the
// handler passes the limit on as given.
func limitSchema(s *jsonschema.Schema, m search.Mode) {
	def, most := search.Limits(m)
	intRange(s, 1, most, def)
}

// alternativesSchema bounds the alternatives as the search service does
// (search.CheckAlternatives).
func alternativesSchema(p *jsonschema.Schema) {
	most := search.MaxAlternatives
	p.MaxItems = &most
	textLength(p.Items, 0, search.MaxAlternativeChars)
}

// filterSchema bounds the filters' strings.
func filterSchema(p map[string]*jsonschema.Schema) {
	textLength(p["vault"], 0, maxNameChars)
	textLength(p["path_prefix"], 0, maxPathChars)
	textLength(p["tag"], 0, maxNameChars)
	textLength(p["where"], 0, maxWhereChars)
}

// maxWhereChars bounds a where expression: room for a long filter, not a
// document.
const maxWhereChars = 4000

func (t *tools) addSearchVault(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolSearchVault,
		Description: `Keyword search over the user's Obsidian notes: titles, aliases, headings and text, ranked by BM25 with titles weighing most. Words are matched by their stem (sync ~ syncing), a "quoted phrase" keeps its words together and in order, and a short query first returns notes with every word, then notes with some.
Use it when the user names something (a note, a person, a term, a phrase) or for prefix* matches. Set search_content=false to look up notes by name only.
Returns one result per note with the best matching passage (matches marked **like this**), its heading path and line; pass vault and path to read-note for the whole note.`,
		Annotations: readOnly("Search notes by keyword"),
		InputSchema: inputSchema[KeywordInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, search.MaxQueryChars)
			limitSchema(p["limit"], search.ModeKeyword)
			p["search_content"].Default = mustJSON(true)
			filterSchema(p)
			alternativesSchema(p["alternatives"])
		}),
	}, t.searchVault)
}

func (t *tools) addSearchSemantic(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolSearchSemantic,
		Description: `Semantic search: notes whose passages are closest to a description or question, as the configured embedder measures closeness.
With a neural embedder (ollama, openai) that is meaning, even in other words. With the default lexical embedder it is shared words and word pieces (grinder ~ grind), not meaning: when nothing fits, search again with words the notes would use; the embedder field says which is in use.
Use it for "notes about ..." questions. Results are ranked by cosine similarity (0 to 1) of each note's best passage; a passage below the embedder's floor (by default 0.18 for lexical) is no match, so a subject the notes lack finds nothing and says so. similarity_threshold drops weaker matches before the limit is applied (lexical matches run about 0.18 to 0.6).
If no embeddings exist yet, it answers with keyword search and says so in degraded_reason.`,
		Annotations: readOnly("Search notes by meaning"),
		InputSchema: inputSchema[SemanticInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, search.MaxQueryChars)
			limitSchema(p["limit"], search.ModeSemantic)
			floatRange(p["similarity_threshold"], 0, 1)
			filterSchema(p)
			alternativesSchema(p["alternatives"])
		}),
	}, t.searchSemantic)
}

func (t *tools) addSearchCombined(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolSearchCombined,
		Description: `Keyword and semantic search together: each gives its best 100 candidates, each note's score in each list is divided by that list's best and the two are summed (semantic weighted by the kind of embedder), so a note both find ranks high and a note one finds far ahead of the rest is not buried. A good default for questions.
Each result lists the retrievers that found it (keyword, semantic); its score, 0 to 1, is its share of the best possible: 1 for a note at the top of both lists.`,
		Annotations: readOnly("Search notes (keyword and semantic)"),
		InputSchema: inputSchema[CombinedInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, search.MaxQueryChars)
			limitSchema(p["limit"], search.ModeCombined)
			filterSchema(p)
			alternativesSchema(p["alternatives"])
		}),
	}, t.searchCombined)
}

// checkVault refuses a vault name that is not configured, naming those
// that are.
func (t *tools) checkVault(name string) error {
	if name == "" {
		return nil
	}
	for _, v := range t.vaults {
		if v.Name == name {
			return nil
		}
	}
	return noVaultNamed(name, t.vaults, ", or leave vault empty for all of them")
}

// state is the index state an answer over vault carries, or over every
// vault when vault is "": what the index run does with vaults the answer
// does not search is left out (index.State.For).
func (t *tools) state(vault string) index.State {
	st := index.State{State: index.StateReady}
	if t.st != nil {
		st = t.st.State()
	}
	st.Served = len(t.vaults)
	if vault != "" {
		st = st.For(vault)
		st.Served = 1
	}
	return st
}

// answerState is the index state an answer over vault carries (state). It
// is the one place where that state degrades an answer d: while the
// changes of a vault it searches are not seen (its folder is gone), what
// the index holds of it may be out of date.
func (t *tools) answerState(d *Degradation, vault string) index.State {
	st := t.state(vault)
	unwatched(d, st)
	return st
}

// unwatched degrades d for each vault of st whose changes are not seen,
// unless said (the answer's notes) already says its folder is missing,
// with the fix (index.SaysFolder): the answer says it once.
func unwatched(d *Degradation, st index.State, said ...string) {
	for _, name := range slices.Sorted(maps.Keys(st.Unwatched)) {
		if !index.SaysFolder(said, name) {
			d.degrade(fmt.Sprintf("vault %q: %s", name, st.Unwatched[name]))
		}
	}
}

// freshnessOnce is freshness(st) unless the answer's own words (its
// empty sentence, its notes) already say how far the run under way has
// got: the state is said once.
func freshnessOnce(st index.State, said ...string) string {
	if st.State == index.StateIndexing {
		progress := st.Progress()
		for _, s := range said {
			if strings.Contains(s, progress) {
				return ""
			}
		}
	}
	return freshness(st)
}

// fromIndexMeanwhile is where results come from while an index run is
// under way: its progress counts what this run has written, and the notes
// and links the index held before it still answer (a run that reads 8
// changed notes again is at "0 of 8" while the rest are all there).
const fromIndexMeanwhile = "results come from what the index held before this run and what the run has indexed since"

// freshness is the line every answer carries while the index is not ready.
func freshness(st index.State) string {
	switch st.State {
	case index.StateIndexing:
		if st.Vault != "" {
			next := ""
			if len(st.Next) > 0 {
				next = ", then " + words.Agree(len(st.Next), "that of vault ", "those of vaults ") + words.Quoted(st.Next)
			}
			return fmt.Sprintf("The index of vault %q is being brought up to date (%s)%s: %s.", st.Vault, st.Progress(), next, fromIndexMeanwhile)
		}
		return "The index is being brought up to date with the vaults: " + fromIndexMeanwhile + "."
	case index.StateFailed:
		if len(st.Failed) == 0 {
			return "The last index run failed: results may be out of date. health-status says why and how to fix it."
		}
		var failed []string
		for _, name := range slices.Sorted(maps.Keys(st.Failed)) {
			failed = append(failed, fmt.Sprintf("vault %q (%s)", name, st.Failed[name]))
		}
		others := ""
		if st.Served > len(failed) {
			others = " (a vault not named here is up to date)"
		}
		return fmt.Sprintf("The last index run could not index %s: results from it may be out of date%s.", strings.Join(failed, " or "), others)
	case index.StateUnavailable:
		return "The index cannot be used: answers come from the note files. health-status says why and how to fix it."
	}
	return ""
}

// embedding says how far making vectors has got, or "" when nothing is
// under way and nothing failed; loaded says whether any vectors are there
// for semantic search to answer from, and absent why vectors that are
// stored are not searched (search.VectorsAbsent), "" when that is not so.
func embedding(e index.Embedding, loaded bool, absent vectorsAbsent) string {
	if absent.loading {
		// Stored vectors being read are not being made, whatever the
		// run beside them says until it has counted what it lacks.
		msg := "The notes' stored vectors are being read into memory"
		if e.Making() {
			msg += ", and vectors for semantic search are being made: " + e.Passages() + " done"
		}
		return msg + ". Semantic search answers from those read so far, or by keywords until the first are in."
	}
	switch {
	case e.Making():
		msg := "Vectors for semantic search are being made"
		if e.Total > 0 {
			msg += ": " + e.Passages() + " done"
		}
		if e.PerSecond > 0 {
			msg += fmt.Sprintf(", %.0f a second", e.PerSecond)
		}
		if e.ETASeconds > 0 {
			msg += ", about " + roughDuration(time.Duration(e.ETASeconds)*time.Second) + " left"
		}
		return msg + ". Semantic search answers from those made so far."
	case e.State == index.EmbedFailed:
		if absent.why != "" && !loaded {
			// The stored vectors cannot be read: the run failed on the
			// database's trouble, not while making any, so the line
			// below says that trouble and nothing of making.
			break
		}
		msg := "Making vectors for semantic search failed"
		if strings.HasPrefix(e.Error, "the database ") {
			msg += " (" + e.Error + ")"
		}
		if !loaded {
			return msg + ": there are none to search by meaning, so semantic search answers by keywords. health-status says why and how to fix it."
		}
		return msg + ": semantic search answers from those made before, or by keywords. health-status says why and how to fix it."
	}
	if absent.why != "" && !loaded {
		return "Semantic search answers by keywords: " + absent.why + ". health-status says why and how to fix it."
	}
	return ""
}

// vectorsAbsent is why stored vectors are not searched
// (search.VectorsAbsent): loading while they are being read, why in
// words when they cannot be read; making while vectors are being made
// (index.Embedding.Making).
type vectorsAbsent struct {
	loading bool
	why     string
	making  bool
}

// absentVectors asks the search service why stored vectors are not
// searched, in the one rule search answers use too.
func (t *tools) absentVectors() vectorsAbsent {
	if t.semantic == nil {
		return vectorsAbsent{}
	}
	why, stored := t.semantic.VectorsAbsent()
	if !stored {
		return vectorsAbsent{}
	}
	if why == search.VectorsReading {
		return vectorsAbsent{loading: true}
	}
	return vectorsAbsent{why: why}
}

// roughDuration says d as a person would: "40 s", "3 min", "2 h 5 min".
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()+0.5))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()+0.5))
	}
	h := int(d.Hours())
	return fmt.Sprintf("%d h %d min", h, int((d-time.Duration(h)*time.Hour).Minutes()+0.5))
}

func (t *tools) searchVault(ctx context.Context, _ *mcpsdk.CallToolRequest, in KeywordInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	q := search.Query{Mode: search.ModeKeyword, Text: in.Query, Limit: in.Limit, NamesOnly: !in.SearchContent, Alternatives: in.Alternatives}
	return t.search(ctx, "Keyword search", q, in.Filters, func(q search.Query) (search.Answer, error) {
		return use(t.keyword, "keyword search", func(kw KeywordSearch) (search.Answer, error) { return kw.Keyword(ctx, q) })
	})
}

func (t *tools) searchSemantic(ctx context.Context, _ *mcpsdk.CallToolRequest, in SemanticInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	if in.SimilarityThreshold < 0 || in.SimilarityThreshold > 1 {
		return nil, SearchOutput{}, fmt.Errorf("similarity_threshold must be between 0 and 1; got %v. Try 0.3 for loose matches or 0.6 for close ones", in.SimilarityThreshold)
	}
	q := search.Query{Mode: search.ModeSemantic, Text: in.Query, Limit: in.Limit, Threshold: in.SimilarityThreshold, Alternatives: in.Alternatives}
	return t.search(ctx, "Semantic search", q, in.Filters, func(q search.Query) (search.Answer, error) {
		return use(t.semantic, "semantic search", func(sem SemanticSearch) (search.Answer, error) { return sem.Semantic(ctx, q) })
	})
}

func (t *tools) searchCombined(ctx context.Context, _ *mcpsdk.CallToolRequest, in CombinedInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	q := search.Query{Mode: search.ModeCombined, Text: in.Query, Limit: in.Limit, Alternatives: in.Alternatives}
	return t.search(ctx, "Combined search", q, in.Filters, func(q search.Query) (search.Answer, error) {
		return use(t.semantic, "combined search", func(sem SemanticSearch) (search.Answer, error) { return sem.Combined(ctx, q) })
	})
}

// search is every search tool: the arguments checked, the search service
// asked, the answer rendered.
func (t *tools) search(ctx context.Context, kind string, q search.Query, f Filters, run func(search.Query) (search.Answer, error)) (*mcpsdk.CallToolResult, SearchOutput, error) {
	out := SearchOutput{Results: []notes.Result{}}
	// The vaults not watched degrade the answer once it is known what
	// its own notes say of them.
	out.Index = t.state(f.Vault)
	if err := t.checkVault(f.Vault); err != nil {
		return nil, out, err
	}
	if p := notes.TagProblem(f.Tag); p != "" {
		return nil, out, fmt.Errorf("tag %s %s", quoteArg(f.Tag), p)
	}
	q.Filter = notes.Filter{Vault: f.Vault, Vaults: config.Names(t.vaults), PathPrefix: f.PathPrefix, Tag: f.Tag, Where: f.Where}
	// The answer explains itself by the state it reports.
	q.Index = out.Index
	a, err := run(q)
	switch {
	case errors.Is(err, notes.ErrEmptyQuery):
		return nil, out, errEmptyQuery
	case errors.Is(err, search.ErrQueryTooLong):
		return nil, out, fmt.Errorf("%v: give the key words, or the question without the text around it", err)
	case errors.Is(err, search.ErrAlternatives):
		return nil, out, fmt.Errorf("%v: give the few best, each a phrase or a few keywords", err)
	case ctx.Err() != nil:
		return nil, out, ctx.Err()
	case errors.Is(err, query.ErrWhere):
		var be *bases.Error
		if errors.As(err, &be) {
			return nil, out, fmt.Errorf("where: %v; write a Bases filter such as status == \"active\"", be)
		}
		return nil, out, err
	case errors.Is(err, ErrUnavailable):
		return nil, out, fmt.Errorf("%s is not available in this server (%v); read-note and list-vaults still work", strings.ToLower(kind), err)
	case errors.Is(err, search.ErrIndexUnreadable):
		return nil, out, err // it says what to do instead
	case err != nil:
		t.log.Warn("search failed", "mode", q.Mode, "err", err)
		return nil, out, errors.New("the search failed; health-status says what is wrong")
	}
	out.Results, out.Truncated, out.Empty, out.Notes = a.Results, a.Truncated, a.Empty, a.Notes
	unwatched(&out.Degradation, out.Index, append([]string{a.Empty}, a.Notes...)...)
	out.Embedder = a.Embedder
	if a.Degraded {
		out.degrade(a.Reason)
	}
	out.VectorsSearched, out.Passages = a.Vectors, a.Chunks
	for _, h := range a.Alternatives {
		out.Alternatives = append(out.Alternatives, AlternativeFound{Text: clip(h.Text, maxTextChars), Found: h.Found, Added: h.Added})
	}
	return t.fitSearch(kind, q.Text, out)
}

// fitSearch renders a search answer within the answer ceiling: with many
// results, their snippets get shorter until the text, the structured
// content and the resource links fit together, rather than the last
// results being cut off.
func (t *tools) fitSearch(kind, query string, out SearchOutput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	full := slices.Clone(out.Results)
	for snippet := maxSnippet; ; snippet = snippet * 2 / 3 {
		out.Results = slices.Clone(full)
		shortResults(out.Results)
		for i := range out.Results {
			out.Results[i].Snippet = clip(out.Results[i].Snippet, snippet)
		}
		res := renderSearch(kind, query, out)
		res.Content = append(res.Content, noteLinks(out.Results)...)
		data, err := json.Marshal(out)
		if err != nil {
			return nil, out, fmt.Errorf("encode the answer: %w", err)
		}
		res.StructuredContent = json.RawMessage(data)
		if answerTokens(res) <= t.answerTokens-cutNoteTokens || snippet <= minSnippet {
			res.StructuredContent = nil // the SDK encodes out itself
			return res, out, nil
		}
	}
}

// minSnippet is as short as fitSearch makes a snippet: still a phrase
// around the match.
const minSnippet = 60

// noteLinks are resource links to the notes of results, one per note, so
// that a client can fetch a whole note when it wants it rather than with
// every answer.
func noteLinks(rs []notes.Result) []mcpsdk.Content {
	var links []mcpsdk.Content
	seen := map[string]bool{}
	for _, r := range rs {
		uri := NoteURI(r.Vault, r.Path)
		if seen[uri] {
			continue
		}
		seen[uri] = true
		links = append(links, &mcpsdk.ResourceLink{URI: uri, Name: r.Path, Title: clip(r.Title, maxTitleChars), MIMEType: "text/markdown"})
	}
	return links
}

var errEmptyQuery error = argumentError{detail: "the query is empty", fix: "give the words or question to search for"}

// clamp returns v within lo..hi, or def when v is 0 (not given).
func clamp(v, lo, hi, def int) int {
	if v == 0 {
		return def
	}
	return max(lo, min(hi, v))
}
