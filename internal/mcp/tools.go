package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search"
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
)

// SemanticInput is the input of search-semantic.
type SemanticInput struct {
	Query               string  `json:"query" jsonschema:"what to look for, in words: a description or a question works best"`
	Limit               int     `json:"limit,omitempty" jsonschema:"how many notes to return, 1 to 50"`
	SimilarityThreshold float64 `json:"similarity_threshold,omitempty" jsonschema:"leave out notes whose best passage is less similar than this, 0 to 1; 0 keeps all"`
	Vault               string  `json:"vault,omitempty" jsonschema:"search only this vault (a name from list-vaults); every vault when empty"`
}

// KeywordInput is the input of search-vault.
type KeywordInput struct {
	Query         string `json:"query" jsonschema:"words to find; \"quoted phrases\" match exactly and a word ending in * matches as a prefix"`
	SearchContent bool   `json:"search_content,omitempty" jsonschema:"true to search note text as well as names; false to match only titles, aliases and paths"`
	Limit         int    `json:"limit,omitempty" jsonschema:"how many notes to return, 1 to 100"`
	Vault         string `json:"vault,omitempty" jsonschema:"search only this vault (a name from list-vaults); every vault when empty"`
	PathPrefix    string `json:"path_prefix,omitempty" jsonschema:"only notes whose vault-relative path starts with this, such as a folder: Projects/"`
	Tag           string `json:"tag,omitempty" jsonschema:"only notes with this tag or one nested under it (project also matches project/alpha); # is optional"`
}

// CombinedInput is the input of search-combined.
type CombinedInput struct {
	Query string `json:"query" jsonschema:"what to look for: words, a description or a question"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many notes to return, 1 to 50"`
	Vault string `json:"vault,omitempty" jsonschema:"search only this vault (a name from list-vaults); every vault when empty"`
}

// SearchOutput is what every search tool returns.
type SearchOutput struct {
	Results []search.Result `json:"results" jsonschema:"notes found, best first; pass vault and path to read-note"`
	// Embedder is the embedder semantic ranking used, if any.
	Embedder string `json:"embedder,omitempty" jsonschema:"the embedder that measured similarity; lexical measures shared words and word pieces, not meaning"`
	// Degraded is true when the answer is less than the tool promises.
	Degraded       bool       `json:"degraded" jsonschema:"true when part of jarvis was unavailable and the answer came from a fallback"`
	DegradedReason string     `json:"degraded_reason,omitempty" jsonschema:"what was unavailable and what was used instead"`
	Truncated      bool       `json:"truncated" jsonschema:"true when more notes matched than were returned"`
	Index          IndexState `json:"index" jsonschema:"how fresh the index searched was"`
}

func (t *tools) register(s *mcpsdk.Server) {
	mcpsdk.AddTool(s, &mcpsdk.Tool{
		Name: ToolSearchVault,
		Description: `Keyword search over the user's Obsidian notes: titles, aliases, headings and text, ranked by BM25 with titles weighing most. Words are matched by their stem (sync ~ syncing), a "quoted phrase" keeps its words together and in order, and a short query first returns notes with every word, then notes with some.
Use it when the user names something (a note, a person, a term, a phrase) or for prefix* matches. Set search_content=false to look up notes by name only.
Returns one result per note with the best matching passage (matches marked **like this**), its heading path and line; pass vault and path to read-note for the whole note.`,
		Annotations: readOnly("Search notes by keyword"),
		InputSchema: inputSchema[KeywordInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, maxQueryChars)
			intRange(p["limit"], 1, 100, 20)
			p["search_content"].Default = mustJSON(true)
			textLength(p["vault"], 0, maxNameChars)
			textLength(p["path_prefix"], 0, maxPathChars)
			textLength(p["tag"], 0, maxNameChars)
		}),
	}, t.searchVault)
	mcpsdk.AddTool(s, &mcpsdk.Tool{
		Name: ToolSearchSemantic,
		Description: `Semantic search: notes whose passages are closest to a description or question, as the configured embedder measures closeness.
With a neural embedder (ollama, openai) that is meaning, even in other words. With the default lexical embedder it is shared words and word pieces (grinder ~ grind), not meaning: when nothing fits, search again with words the notes would use; the embedder field says which is in use.
Use it for "notes about ..." questions. Results are ranked by cosine similarity (0 to 1) of each note's best passage; similarity_threshold drops weak matches before the limit is applied (lexical scores run about 0.1 to 0.6).
If no embeddings exist yet, it answers with keyword search and says so in degraded_reason.`,
		Annotations: readOnly("Search notes by meaning"),
		InputSchema: inputSchema[SemanticInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, maxQueryChars)
			intRange(p["limit"], 1, 50, 10)
			floatRange(p["similarity_threshold"], 0, 1)
			textLength(p["vault"], 0, maxNameChars)
		}),
	}, t.searchSemantic)
	mcpsdk.AddTool(s, &mcpsdk.Tool{
		Name: ToolSearchCombined,
		Description: `Keyword and semantic search together: each one's scores are scaled to its best hit and summed, so a note both find ranks high. A good default for questions.
Each result lists the retrievers that found it (keyword, semantic).`,
		Annotations: readOnly("Search notes (keyword and semantic)"),
		InputSchema: inputSchema[CombinedInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, maxQueryChars)
			intRange(p["limit"], 1, 50, 10)
			textLength(p["vault"], 0, maxNameChars)
		}),
	}, t.searchCombined)
	t.registerGraph(s)
	t.registerNotes(s)
	t.registerVaults(s)
}

// checkVault refuses a vault name that is not configured, naming those
// that are.
func (t *tools) checkVault(name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, v := range t.b.Vaults {
		if v.Name == name {
			return nil
		}
		names = append(names, fmt.Sprintf("%q", v.Name))
	}
	return fmt.Errorf("there is no vault named %s; use one of %s, or leave vault empty for all of them", quoteArg(name), strings.Join(names, ", "))
}

// filter searches the vault named, or when none is, every vault served:
// the database may also hold vaults that another configuration indexed.
func (t *tools) filter(vaultName string) search.Filter {
	return search.Filter{Vault: vaultName, Vaults: config.Names(t.b.Vaults)}
}

func (t *tools) state() IndexState {
	if t.b.State == nil {
		return IndexState{State: StateReady}
	}
	return t.b.State()
}

// freshness is the line every answer carries while the index is not ready.
func freshness(st IndexState) string {
	switch st.State {
	case StateIndexing:
		if st.Total > 0 {
			return fmt.Sprintf("The index is being built (%d of %d files of %s done): results cover what is indexed so far.", st.Done, st.Total, st.Vault)
		}
		return "The index is being built: results cover what is indexed so far."
	case StateFailed:
		return "The last index run failed (" + st.Error + "): results may be out of date. health-status says more."
	case StateUnavailable:
		return "The index is unavailable (" + st.Error + ")."
	}
	return ""
}

func (t *tools) searchVault(ctx context.Context, _ *mcpsdk.CallToolRequest, in KeywordInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	out := SearchOutput{Results: []search.Result{}, Index: t.state()}
	if err := checkQuery(in.Query); err != nil {
		return nil, out, err
	}
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	limit := clamp(in.Limit, 1, 100, 20)
	f := t.filter(in.Vault)
	f.PathPrefix, f.Tag = in.PathPrefix, in.Tag
	res, err := t.keyword(ctx, search.KeywordQuery{Text: in.Query, Filter: f, Limit: limit + 1, NamesOnly: !in.SearchContent})
	if err != nil {
		if !errors.Is(err, errUnavailable) {
			return nil, out, err
		}
		out.Degraded, out.DegradedReason = true, "the index is unavailable; searched the note files on disk for the words instead (slower, unranked beyond word counts)"
		res, err = scanFiles(ctx, t.b.Vaults, in.Query, f, limit+1, in.SearchContent)
		if err != nil {
			return nil, out, err
		}
	}
	out.Results, out.Truncated = cut(res, limit)
	return renderSearch("Keyword search", in.Query, out), out, nil
}

func (t *tools) searchSemantic(ctx context.Context, _ *mcpsdk.CallToolRequest, in SemanticInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	out := SearchOutput{Results: []search.Result{}, Index: t.state()}
	if err := checkQuery(in.Query); err != nil {
		return nil, out, err
	}
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	if in.SimilarityThreshold < 0 || in.SimilarityThreshold > 1 {
		return nil, out, fmt.Errorf("similarity_threshold must be between 0 and 1; got %v. Try 0.3 for loose matches or 0.6 for close ones", in.SimilarityThreshold)
	}
	limit := clamp(in.Limit, 1, 50, 10)
	f := t.filter(in.Vault)
	var res []search.Result
	var err error
	if t.b.Semantic == nil {
		err = search.ErrNoVectors
	} else {
		res, err = t.b.Semantic(ctx, search.SemanticQuery{Text: in.Query, Filter: f, Limit: limit + 1, Threshold: in.SimilarityThreshold})
	}
	if err == nil && t.b.Embedder != nil {
		out.Embedder = t.b.Embedder()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, out, ctx.Err()
		}
		if errors.Is(err, search.ErrEmptyQuery) {
			return nil, out, errEmptyQuery
		}
		reason := "no embeddings exist yet"
		if out.Index.State == "indexing" {
			reason = vectorsLoading
		}
		if !errors.Is(err, search.ErrNoVectors) {
			t.log.Warn("semantic search failed; falling back to keywords", "err", err)
			reason = "the embedder is unavailable (" + err.Error() + ")"
			if errors.Is(err, search.ErrDimensionMismatch) {
				reason = "the embedder changed since the notes' vectors were made, and they are being made again"
			}
		}
		out.Degraded, out.DegradedReason = true, reason+"; answered with keyword search instead"
		res, err = t.keyword(ctx, search.KeywordQuery{Text: in.Query, Filter: f, Limit: limit + 1})
		if errors.Is(err, errUnavailable) {
			out.DegradedReason = reason + " and the index is unavailable; searched the note files on disk instead"
			res, err = scanFiles(ctx, t.b.Vaults, in.Query, f, limit+1, true)
		}
		if err != nil {
			return nil, out, err
		}
	}
	out.Results, out.Truncated = cut(res, limit)
	return renderSearch("Semantic search", in.Query, out), out, nil
}

func (t *tools) searchCombined(ctx context.Context, _ *mcpsdk.CallToolRequest, in CombinedInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	out := SearchOutput{Results: []search.Result{}, Index: t.state()}
	if err := checkQuery(in.Query); err != nil {
		return nil, out, err
	}
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	limit := clamp(in.Limit, 1, 50, 10)
	f := t.filter(in.Vault)
	var res []search.Result
	var degraded string
	var err error
	if t.b.Combined == nil {
		err = errUnavailable
	} else {
		res, degraded, err = t.b.Combined(ctx, search.CombinedQuery{Text: in.Query, Filter: f, Limit: limit + 1})
	}
	if err != nil {
		if errors.Is(err, search.ErrEmptyQuery) {
			return nil, out, errEmptyQuery
		}
		if ctx.Err() != nil {
			return nil, out, ctx.Err()
		}
		t.log.Warn("combined search failed; searching files on disk", "err", err)
		degraded = "the index is unavailable; searched the note files on disk for the words instead"
		res, err = scanFiles(ctx, t.b.Vaults, in.Query, f, limit+1, true)
		if err != nil {
			return nil, out, err
		}
	}
	if degraded == search.DegradedNoVectors && out.Index.State == "indexing" {
		degraded = vectorsLoading + "; ranked by keywords only"
	}
	if degraded != "" {
		out.Degraded, out.DegradedReason = true, degraded
	} else if t.b.Embedder != nil {
		out.Embedder = t.b.Embedder()
	}
	out.Results, out.Truncated = cut(res, limit)
	return renderSearch("Combined search", in.Query, out), out, nil
}

// vectorsLoading is why semantic search is missing during the server's
// first index pass: the vectors are there, not loaded yet.
const vectorsLoading = "the index is being brought up to date, and the vectors are loaded or made when that finishes"

// errUnavailable marks a backend function that is missing or whose
// database cannot be reached, so the tool falls back.
var errUnavailable = errors.New("unavailable")

var errEmptyQuery = errors.New("the query is empty: give the words or question to search for")

func (t *tools) keyword(ctx context.Context, q search.KeywordQuery) ([]search.Result, error) {
	if t.b.Keyword == nil {
		return nil, errUnavailable
	}
	res, err := t.b.Keyword(ctx, q)
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, search.ErrEmptyQuery):
		return nil, errEmptyQuery
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	t.log.Warn("keyword search failed", "err", err)
	return nil, fmt.Errorf("%w: %v", errUnavailable, err)
}

func checkQuery(q string) error {
	q = strings.TrimSpace(q)
	if q == "" {
		return errEmptyQuery
	}
	if n := len([]rune(q)); n > maxQueryChars {
		return fmt.Errorf("the query is %d characters long; keep it under %d: use the key words or one question", n, maxQueryChars)
	}
	return nil
}

// clamp returns v within lo..hi, or def when v is 0 (not given).
func clamp(v, lo, hi, def int) int {
	if v == 0 {
		return def
	}
	return max(lo, min(hi, v))
}

// cut keeps the first n results, their texts shortened, and says whether
// there were more.
func cut(rs []search.Result, n int) ([]search.Result, bool) {
	if rs == nil {
		rs = []search.Result{}
	}
	more := len(rs) > n
	if more {
		rs = rs[:n]
	}
	shortResults(rs)
	return rs, more
}
