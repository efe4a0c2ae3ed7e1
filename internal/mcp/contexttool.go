package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/contextpack"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// ToolBuildContext is the name of the build-context tool.
const ToolBuildContext = "build-context"

// BuildContextInput is the input of build-context.
type BuildContextInput struct {
	Query        string   `json:"query" jsonschema:"the question or task to gather context for, in words"`
	BudgetTokens int      `json:"budget_tokens,omitempty" jsonschema:"the most tokens the passages may cost; described in full by budgetDescription"`
	Paths        []string `json:"paths,omitempty" jsonschema:"notes to start from, by vault-relative path (a title or alias also works); their passages are candidates, and the notes they link to too"`
	Vault        string   `json:"vault,omitempty" jsonschema:"gather only from this vault (a name from list-vaults); every vault when empty"`
}

// ContextPassage is one passage of a context pack.
type ContextPassage struct {
	Vault   string `json:"vault"`
	Path    string `json:"path" jsonschema:"the note's vault-relative path; pass it to read-note"`
	Title   string `json:"title"`
	Heading string `json:"heading,omitempty" jsonschema:"the heading path of the section holding the passage; pass it as read-note's heading to read the section; empty when the whole note holds it"`
	// StartLine and EndLine are the passage's lines in the note file.
	StartLine int     `json:"start_line" jsonschema:"first line of the passage in the note, from 1"`
	EndLine   int     `json:"end_line" jsonschema:"last line of the passage in the note"`
	Citation  string  `json:"citation" jsonschema:"the line that cites the passage: [vault] path § heading, lines start-end"`
	Text      string  `json:"text" jsonschema:"the passage, whole: a section or a paragraph of the note as written"`
	Tokens    int     `json:"tokens" jsonschema:"what the passage costs: its citation line, a line break and its text, 4 characters a token, rounded up"`
	Score     float64 `json:"score" jsonschema:"how well the passage answers the query, 0 to 1"`
	Via       string  `json:"via,omitempty" jsonschema:"for a passage of a note reached along a link: the path of the note linking to it"`
	Part      bool    `json:"part,omitempty" jsonschema:"true for a paragraph of a section too large for the budget left; left_out names the section's lines not given"`
}

// ContextLeftOut is a passage a context pack left out.
type ContextLeftOut struct {
	Vault   string `json:"vault"`
	Path    string `json:"path"`
	Heading string `json:"heading,omitempty" jsonschema:"the section to pass to read-note; empty for the whole note"`
	// Label names the sections of the lines in the text, as a passage's
	// citation does (contextpack.SectionLabel).
	Label     string `json:"-"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Tokens    int    `json:"tokens" jsonschema:"what the passage would have cost"`
	Reason    string `json:"reason" jsonschema:"over budget: it did not fit; duplicate: it repeats a passage given; weak match: it hardly answers the query"`
	Part      bool   `json:"part,omitempty" jsonschema:"true for lines of a section whose other lines are given as passages: only the lines not given are named here; read-note with the heading reads the whole section"`
}

// BuildContextOutput is what build-context returns.
type BuildContextOutput struct {
	Passages     []ContextPassage `json:"passages" jsonschema:"the passages, grouped by note (the note with the best passage first), each note's passages in the order they come in it"`
	BudgetTokens int              `json:"budget_tokens" jsonschema:"the budget the passages were fitted into"`
	TokensUsed   int              `json:"tokens_used" jsonschema:"what the passages cost together; never more than budget_tokens"`
	LeftOut      []ContextLeftOut `json:"left_out" jsonschema:"passages left out, best first; read them with read-note, or ask again with a larger budget"`
	MoreLeftOut  int              `json:"more_left_out,omitempty" jsonschema:"how many more passages were left out than left_out lists"`
	// Empty says why there are no passages.
	Empty    string `json:"empty,omitempty" jsonschema:"when no passage was given: why, and what to try"`
	Embedder string `json:"embedder,omitempty" jsonschema:"the embedder that measured similarity"`
	Degradation
	Notes []string    `json:"notes,omitempty" jsonschema:"what else to know about this answer"`
	Index index.State `json:"index" jsonschema:"how fresh the index was"`
}

func (t *tools) addBuildContext(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolBuildContext,
		Description: `Gather what the user's notes say about a question, fitted to a budget of tokens: the best passages across the vaults, each a whole section or paragraph with its citation (vault, path, heading, lines), near-duplicates dropped, grouped by note in reading order.
Use it before answering a question from the notes, instead of several searches and reads. Passages come from keyword and semantic search, scored passage by passage, and from the notes the best ones link to; paths adds notes to start from.
A token is counted as 4 characters of a passage's citation line and text; tokens_used never exceeds budget_tokens. left_out names what did not fit or was dropped and why; read it with read-note (vault, path, heading).`,
		Annotations: readOnly("Build context from notes"),
		InputSchema: inputSchema[BuildContextInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query"], 1, search.MaxQueryChars)
			intRange(p["budget_tokens"], contextpack.MinBudget, contextpack.MaxBudget, contextpack.DefaultBudget)
			p["budget_tokens"].Description = budgetDescription(t.contextBudget())
			maxItems(p["paths"], contextpack.MaxPaths)
			textLength(p["paths"].Items, 1, maxPathChars)
			textLength(p["vault"], 0, maxNameChars)
		}),
		OutputSchema: outputSchema[BuildContextOutput](func(p map[string]*jsonschema.Schema) {
			maxItems(p["left_out"], contextpack.MaxLeftOut)
			p["left_out"].Items.Properties["reason"].Enum = []any{contextpack.OverBudget, contextpack.Duplicate, contextpack.WeakMatch}
		}),
	}, t.buildContext)
}

func (t *tools) buildContext(ctx context.Context, _ *mcpsdk.CallToolRequest, in BuildContextInput) (*mcpsdk.CallToolResult, BuildContextOutput, error) {
	budget := in.BudgetTokens
	if budget == 0 {
		budget = contextpack.DefaultBudget
	}
	asked := budget
	if fit := t.contextBudget(); budget > fit && budget <= contextpack.MaxBudget {
		budget = fit
	}
	// The overhead besides the passages varies with them (citations, the
	// left-out list): an answer still over the ceiling is made again
	// with the budget lowered by what it was over, so that the last
	// guard never has to cut passages.
	for attempt := 0; ; attempt++ {
		res, out, err := t.packContext(ctx, in, budget, asked)
		if err != nil || attempt == 2 {
			return res, out, err
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, out, fmt.Errorf("encode the answer: %w", err)
		}
		over := answerTokens(res) + Tokens(string(data)) - (t.answerTokens - cutNoteTokens)
		if over <= 0 || budget == contextpack.MinBudget {
			return res, out, nil
		}
		budget = max(budget-over/2-100, contextpack.MinBudget)
	}
}

// packContext gathers the passages for in within budget tokens; asked is
// the budget the caller asked for, which the answer names when budget is
// lower.
func (t *tools) packContext(ctx context.Context, in BuildContextInput, budget, asked int) (*mcpsdk.CallToolResult, BuildContextOutput, error) {
	out := BuildContextOutput{Passages: []ContextPassage{}, LeftOut: []ContextLeftOut{}}
	out.Index = t.answerState(&out.Degradation, in.Vault)
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	pack, err := use(t.pack, "build-context", func(c ContextPack) (contextpack.Pack, error) {
		return c.Build(ctx, contextpack.Request{Query: in.Query, Budget: budget, Paths: in.Paths, Vault: in.Vault, Vaults: config.Names(t.vaults), Index: out.Index})
	})
	switch {
	case err == nil:
	case errors.Is(err, ErrUnavailable):
		return nil, out, fmt.Errorf("%v; search-combined and read-note still work", err)
	case errors.Is(err, contextpack.ErrBadBudget), errors.Is(err, contextpack.ErrTooManyPaths):
		return nil, out, err
	case errors.Is(err, notes.ErrEmptyQuery):
		return nil, out, errEmptyQuery
	case errors.Is(err, search.ErrQueryTooLong):
		return nil, out, fmt.Errorf("%v: give the question without the text around it", err)
	case shortNotFound(err) != nil:
		return nil, out, fmt.Errorf("%s; paths takes the vault-relative paths that search results give", shortNotFound(err).Error())
	case ctx.Err() != nil:
		return nil, out, ctx.Err()
	default:
		t.log.Warn("build context failed", "err", err)
		return nil, out, errors.New("gathering the context failed; health-status says what is wrong, and search-combined with read-note may still work")
	}
	out.BudgetTokens, out.TokensUsed, out.MoreLeftOut = pack.Budget, pack.Used, pack.MoreLeftOut
	out.Embedder, out.Notes = pack.Embedder, pack.Remarks
	if pack.Degraded {
		out.degrade(pack.Reason)
	}
	if budget < asked {
		out.Notes = append(out.Notes, fmt.Sprintf("budget_tokens was lowered from %d to %d: the passages come both as text and as structured content, and one answer takes at most %d tokens (mcp.answer_tokens in the server's config file)", asked, budget, t.answerTokens))
	}
	for _, p := range pack.Passages {
		out.Passages = append(out.Passages, ContextPassage{Vault: p.Vault, Path: p.Path, Title: clip(p.Title, maxTitleChars), Heading: p.Heading,
			StartLine: p.StartLine, EndLine: p.EndLine, Citation: p.Citation, Text: p.Text, Tokens: p.Tokens, Score: p.Score, Via: p.Via, Part: p.Part})
	}
	for _, l := range pack.LeftOut {
		out.LeftOut = append(out.LeftOut, ContextLeftOut{Vault: l.Vault, Path: l.Path, Heading: l.Heading, Label: l.Label, StartLine: l.StartLine, EndLine: l.EndLine, Tokens: l.Tokens, Reason: l.Reason, Part: l.Part})
	}
	switch {
	case len(out.Passages) > 0:
	case pack.Unready != "":
		out.Empty = pack.Unready
	default:
		out.Empty = "No passage of the notes answers this query well enough"
		if len(out.LeftOut) > 0 {
			out.Empty += " (left_out lists the weak matches and what did not fit)"
		}
		out.Empty += ". The notes may not cover this topic; asking again with other words, or a larger budget, may find more."
	}
	res := renderContext(in.Query, out)
	found := make([]notes.Result, len(out.Passages))
	for i, p := range out.Passages {
		found[i] = notes.Result{Vault: p.Vault, Path: p.Path, Title: p.Title}
	}
	res.Content = append(res.Content, noteLinks(found)...)
	return res, out, nil
}

// renderContext writes the pack as Markdown: each passage as its citation
// line and its text, exactly what its tokens count, then what was left out.
func renderContext(query string, out BuildContextOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	notes := map[string]bool{}
	for _, p := range out.Passages {
		notes[p.Vault+"\x00"+p.Path] = true
	}
	fmt.Fprintf(&b, "Context for %s: %s from %s, %d of %d tokens.\n", quoteArg(query), words.Count(len(out.Passages), "passage"), words.Count(len(notes), "note"), out.TokensUsed, out.BudgetTokens)
	if out.Empty != "" {
		fmt.Fprintf(&b, "\n%s\n", out.Empty)
	}
	b.WriteString(out.line())
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "\n> Note: %s.\n", n)
	}
	if f := freshnessOnce(out.Index, append([]string{out.Empty}, out.Notes...)...); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", f)
	}
	for _, p := range out.Passages {
		fmt.Fprintf(&b, "\n%s\n%s\n", p.Citation, strings.TrimRight(p.Text, "\n"))
	}
	if len(out.LeftOut) > 0 {
		fmt.Fprintf(&b, "\nLeft out (%d):\n", len(out.LeftOut)+out.MoreLeftOut)
		for _, l := range out.LeftOut {
			where := "`" + l.Path + "`"
			if l.Label != "" {
				where += " § " + l.Label
			}
			fmt.Fprintf(&b, "- %s, %s (%s): %s", where, words.LineRange(l.StartLine, l.EndLine), words.Count(l.Tokens, "token"), l.Reason)
			if l.Part {
				b.WriteString("; other lines of this section are given above")
			}
			b.WriteString("\n")
		}
		if out.MoreLeftOut > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", out.MoreLeftOut)
		}
	}
	if len(out.Passages) > 0 || len(out.LeftOut) > 0 {
		b.WriteString("\nUse read-note with a passage's vault, path and heading to read around it.\n")
	}
	return textResult(b.String())
}

// contextOverhead is what a context answer takes besides its passages
// twice: the citation fields of each passage, the left-out list (at most
// 20 entries in both parts), the notes and the heading lines.
const contextOverhead = 5000

// budgetDescription describes budget_tokens to the model, with fit, the
// largest budget this server keeps (contextBudget, which lowers it).
func budgetDescription(fit int) string {
	return fmt.Sprintf("the most tokens the passages may cost, %d to %d (%d when left out); a token is 4 characters of a passage's citation line and text. "+
		"This server gives at most %d (the passages come both as text and as structured content, within its answer ceiling): a larger budget is lowered to it, or further when the citations need the room, and the answer says so",
		contextpack.MinBudget, contextpack.MaxBudget, contextpack.DefaultBudget, fit)
}

// contextBudget is the largest budget whose answer fits the ceiling: the
// passages appear in the text and again in the structured content.
func (t *tools) contextBudget() int {
	return max((t.answerTokens-contextOverhead)/2, contextpack.MinBudget)
}
