package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// RelatedInput is the input of related-notes.
type RelatedInput struct {
	Path  string `json:"path" jsonschema:"the note's vault-relative path as search results give it (Folder/Note.md); a title or alias also works"`
	Vault string `json:"vault,omitempty" jsonschema:"the note's vault, as search results give it; needed only when several vaults hold the path"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many related notes to return, 1 to 50"`
}

// RelatedOutput is what related-notes returns.
type RelatedOutput struct {
	Vault       string               `json:"vault"`
	Path        string               `json:"path"`
	Title       string               `json:"title"`
	Related     []related.Note       `json:"related" jsonschema:"the closest notes, best first, each with every reason it is related: link, shared-links, co-cited, meaning, tags"`
	Suggestions []related.Suggestion `json:"suggestions" jsonschema:"notes close in meaning that are not linked either way, with the sentence of this note where a link would go"`
	Mentions    []related.Mention    `json:"mentions" jsonschema:"unlinked mentions: places in other notes where this note's title or an alias is written as plain text, not as a link"`
	// MentionsFound counts every unlinked mention found, listed or not.
	MentionsFound int               `json:"mentions_found" jsonschema:"how many unlinked mentions were found; more than mentions lists when cut"`
	MentionsCut   bool              `json:"mentions_cut" jsonschema:"true when more notes may mention it than were read: the 50 that use its names most were"`
	Mentioning    []related.Mention `json:"mentioning" jsonschema:"the reverse: places in this note where another note's title or alias is written as plain text; path is that other note"`
	Embedder      string            `json:"embedder,omitempty" jsonschema:"the embedder that measured similarity; lexical measures shared words and word pieces, not meaning"`
	Skipped       []string          `json:"skipped,omitempty" jsonschema:"hub notes and common tags left out: each joins so many notes that it says little"`
	// AlsoMatches are other notes the path, read as a title or name,
	// matches as well.
	AlsoMatches []string `json:"also_matches,omitempty" jsonschema:"other notes whose title or name matches the path given as well; pass one's path to ask about it"`
	Degradation
	Index index.State `json:"index"`
}

func (t *tools) addRelatedNotes(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolRelatedNotes,
		Description: `Notes related to one note, each with its reasons and a score: links either way, links both make to the same notes (shared-links), notes linking to both (co-cited), similar passages (meaning, as the configured embedder measures it) and shared tags (rarer tags count more).
Also suggests links to add (notes close in meaning not linked either way, with the sentence where the link would go) and lists unlinked mentions: where other notes write this note's title or an alias as plain text, and where this note writes other notes' names.
Pass the vault and path of a search result, as to read-note.`,
		Annotations: readOnly("Find related notes"),
		InputSchema: inputSchema[RelatedInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["path"], 1, maxPathChars)
			textLength(p["vault"], 0, maxNameChars)
			intRange(p["limit"], 1, related.MaxLimit, related.DefaultLimit)
		}),
		OutputSchema: outputSchema[RelatedOutput](func(p map[string]*jsonschema.Schema) {
			maxItems(p["related"], related.MaxLimit)
			maxItems(p["suggestions"], related.MaxSuggestions)
			maxItems(p["mentions"], related.MaxMentions)
			maxItems(p["mentioning"], related.MaxMentions)
		}),
	}, t.relatedNotes)
}

func (t *tools) relatedNotes(ctx context.Context, _ *mcpsdk.CallToolRequest, in RelatedInput) (*mcpsdk.CallToolResult, RelatedOutput, error) {
	out := RelatedOutput{Related: []related.Note{}, Suggestions: []related.Suggestion{}, Mentions: []related.Mention{},
		Mentioning: []related.Mention{}}
	out.Index = t.state(in.Vault)
	if strings.TrimSpace(in.Path) == "" {
		return nil, out, errors.New("path is empty: give the vault-relative path of a note, as search results give it")
	}
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	limit := clamp(in.Limit, 1, related.MaxLimit, related.DefaultLimit)
	v, rel, others, err := t.locate(ctx, in.Vault, in.Path)
	if err != nil {
		return nil, out, err
	}
	out.Index = t.answerState(&out.Degradation, v.Name)
	out.Vault, out.Path, out.Title = v.Name, rel, clip(vault.TitleFromPath(rel), maxTitleChars)
	out.AlsoMatches = graph.OtherPaths(others, maxAlsoMatches)
	a, err := use(t.related, "related notes", func(r RelatedNotes) (related.Answer, error) {
		return r.Find(ctx, related.Query{Vault: v.Name, Path: rel, Limit: limit})
	})
	if err != nil {
		why, stop := t.fallback(ctx, "the index", err)
		if stop != nil {
			return nil, out, stop
		}
		out.degrade(why + "; related notes come from the index, so there are none to give. read-note and search-graph (which fall back to the note's own links) still work")
		return renderRelated(out), out, nil
	}
	out.Title = clip(a.Title, maxTitleChars)
	out.Related, out.Suggestions, out.Mentions, out.Mentioning = a.Related, a.Suggestions, a.Mentions, a.Mentioning
	out.Related = slices.DeleteFunc(out.Related, func(n related.Note) bool { return t.excluded(v.Name, n.Path) })
	out.Suggestions = slices.DeleteFunc(out.Suggestions, func(n related.Suggestion) bool { return t.excluded(v.Name, n.Path) })
	out.Mentions = slices.DeleteFunc(out.Mentions, func(m related.Mention) bool { return t.excluded(v.Name, m.Path) })
	out.Mentioning = slices.DeleteFunc(out.Mentioning, func(m related.Mention) bool { return t.excluded(v.Name, m.Path) })
	out.MentionsFound, out.MentionsCut, out.Embedder, out.Skipped = a.MentionsFound, a.MentionsCut, a.Embedder, a.Skipped
	shortRelated(&out)
	if len(a.Missing) > 0 {
		out.degrade(strings.Join(a.Missing, "; "))
	}
	return renderRelated(out), out, nil
}

// shortRelated cuts the names and texts of an answer, whatever the notes
// hold, and its lists to what the schema allows.
func shortRelated(out *RelatedOutput) {
	for i := range out.Related {
		n := &out.Related[i]
		n.Title = clip(n.Title, maxTitleChars)
		for j := range n.Reasons {
			n.Reasons[j].Detail = clip(n.Reasons[j].Detail, maxTextChars)
		}
	}
	for i := range out.Suggestions {
		s := &out.Suggestions[i]
		s.Title, s.Sentence = clip(s.Title, maxTitleChars), clip(s.Sentence, maxTextChars)
	}
	for _, ms := range [][]related.Mention{out.Mentions, out.Mentioning} {
		for i := range ms {
			ms[i].Name, ms[i].Sentence = clip(ms[i].Name, maxTitleChars), clip(ms[i].Sentence, maxTextChars)
		}
	}
	out.Related = out.Related[:min(len(out.Related), related.MaxLimit)]
	out.Suggestions = out.Suggestions[:min(len(out.Suggestions), related.MaxSuggestions)]
	out.Mentions = out.Mentions[:min(len(out.Mentions), related.MaxMentions)]
	out.Mentioning = out.Mentioning[:min(len(out.Mentioning), related.MaxMentions)]
	for i := range out.Skipped {
		out.Skipped[i] = clip(out.Skipped[i], maxTitleChars)
	}
}

func renderRelated(out RelatedOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Notes related to **%s** (`%s` in vault %s): %s.\n", out.Title, out.Path, out.Vault, words.Count(len(out.Related), "note"))
	if len(out.AlsoMatches) > 0 {
		fmt.Fprintf(&b, "\n> %s\n", related.AlsoMatching(out.AlsoMatches))
	}
	b.WriteString(out.line())
	if strings.HasPrefix(out.Embedder, "lexical/") {
		b.WriteString("\n> Similarity here is lexical (shared words and word pieces), not meaning.\n")
	}
	if f := freshness(out.Index); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", f)
	}
	for i, n := range out.Related {
		fmt.Fprintf(&b, "\n%d. **%s** (`%s`) score %s\n", i+1, n.Title, n.Path, search.FormatScore(n.Score))
		for _, r := range n.Reasons {
			fmt.Fprintf(&b, "   - %s [%s]\n", r.Detail, related.Label(r.Kind))
		}
	}
	if len(out.Suggestions) > 0 {
		b.WriteString("\nLinks to consider (close, but not linked either way):\n")
		for _, s := range out.Suggestions {
			fmt.Fprintf(&b, "- %s (`%s`, similarity %s)", s.Link, s.Path, search.FormatScore(s.Similarity))
			if s.Sentence != "" {
				fmt.Fprintf(&b, ": line %d (%s): %s", s.Line, s.Because, s.Sentence)
			}
			b.WriteString("\n")
		}
	}
	if len(out.Mentions) > 0 {
		fmt.Fprintf(&b, "\nUnlinked mentions of this note in other notes (%d found", out.MentionsFound)
		if out.MentionsFound > len(out.Mentions) {
			fmt.Fprintf(&b, ", %d listed", len(out.Mentions))
		}
		if out.MentionsCut {
			b.WriteString(", in the notes that use its names most; there may be more")
		}
		b.WriteString("):\n")
		for _, m := range out.Mentions {
			fmt.Fprintf(&b, "- `%s` line %d, %s: %s\n", m.Path, m.Line, quoteArg(m.Name), m.Sentence)
			if m.MoreInNote > 0 {
				fmt.Fprintf(&b, "- `%s`: and %s, not listed\n", m.Path, words.Count(m.MoreInNote, "more line"))
			}
		}
	}
	if len(out.Mentioning) > 0 {
		b.WriteString("\nOther notes named as plain text in this note:\n")
		for _, m := range out.Mentioning {
			fmt.Fprintf(&b, "- line %d, %s (`%s`): %s\n", m.Line, quoteArg(m.Name), m.Path, m.Sentence)
		}
	}
	if len(out.Skipped) > 0 {
		fmt.Fprintf(&b, "\nLeft out as too common to count: %s.\n", strings.Join(out.Skipped, ", "))
	}
	if len(out.Related) > 0 {
		b.WriteString("\nUse read-note with a path to read a note.\n")
	}
	return textResult(b.String())
}
