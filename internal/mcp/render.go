package mcp

import (
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Every tool answers with structured content and with this Markdown
// rendering of it, for clients that show or pass on only the text.

func textResult(s string) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: s}}}
}

func renderSearch(kind, query string, out SearchOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %s: ", kind, quoteArg(query))
	switch n := len(out.Results); {
	case n == 0:
		b.WriteString("no notes found.\n")
		if out.Empty != "" {
			fmt.Fprintf(&b, "\n%s\n", out.Empty)
		}
	case out.Truncated:
		fmt.Fprintf(&b, "the best %s (more matched).\n", words.Count(n, "note"))
	default:
		fmt.Fprintf(&b, "%s.\n", words.Count(n, "note"))
	}
	b.WriteString(out.line())
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "\n> Note: %s.\n", n)
	}
	for _, a := range out.Alternatives {
		fmt.Fprintf(&b, "\n> Alternative %s: %s.\n", quoteArg(a.Text), alternativeFound(a))
	}
	if strings.HasPrefix(out.Embedder, "lexical/") && !out.Degraded {
		b.WriteString("\n> Similarity here is lexical (shared words and word pieces), not meaning: if nothing fits, search again with words the notes would use.\n")
	}
	if f := freshnessOnce(out.Index, append([]string{out.Empty}, out.Notes...)...); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", f)
	}
	multi := vaultsIn(out)
	for i, r := range out.Results {
		where := r.Path
		if multi {
			where = r.Vault + ": " + r.Path
		}
		fmt.Fprintf(&b, "\n%d. **%s** (`%s`)", i+1, r.Title, where)
		if r.Score != 0 {
			fmt.Fprintf(&b, " score %s", search.FormatScore(r.Score))
		}
		if len(r.Retrievers) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(r.Retrievers, ", "))
		}
		b.WriteString("\n")
		loc := fmt.Sprintf("line %d", r.Line)
		if label := r.HeadingLabel(); label != "" {
			loc = label + ", " + loc
		}
		fmt.Fprintf(&b, "   %s\n", loc)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   > %s\n", r.Snippet)
		}
	}
	if len(out.Results) > 0 {
		b.WriteString("\nUse read-note with a result's vault and path to read it.\n")
	}
	return textResult(b.String())
}

func vaultsIn(out SearchOutput) bool {
	seen := map[string]bool{}
	for _, r := range out.Results {
		seen[r.Vault] = true
	}
	return len(seen) > 1
}

// alternativeFound says what an alternative added to the results shown.
func alternativeFound(a AlternativeFound) string {
	return search.AlternativeHits{Text: a.Text, Found: a.Found, Added: a.Added}.Said()
}
