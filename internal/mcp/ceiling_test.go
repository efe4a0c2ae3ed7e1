package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{{"", 0}, {"abc", 1}, {"abcd", 1}, {"abcde", 2}, {"日本語の", 1}, {strings.Repeat("x", 80000), 20000}} {
		if got := Tokens(tc.s); got != tc.want {
			t.Errorf("Tokens(%d runes) = %d; want %d", len([]rune(tc.s)), got, tc.want)
		}
	}
}

// bigAnswer is a result like a search tool's: a text listing items and
// structured content holding them, n items of about size characters.
func bigAnswer(t *testing.T, n, size int) *mcpsdk.CallToolResult {
	t.Helper()
	type item struct {
		Path    string `json:"path"`
		Snippet string `json:"snippet"`
	}
	out := struct {
		Results []item `json:"results"`
		Total   int    `json:"total"`
	}{Total: n}
	var text strings.Builder
	for i := range n {
		it := item{Path: fmt.Sprintf("note %04d.md", i), Snippet: strings.Repeat("word ", size/5)}
		out.Results = append(out.Results, it)
		fmt.Fprintf(&text, "%d. %s\n   %s\n", i+1, it.Path, it.Snippet)
	}
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: text.String()}}, StructuredContent: json.RawMessage(raw)}
}

func TestFitAnswerLeavesSmallAnswersAlone(t *testing.T) {
	r := bigAnswer(t, 10, 200)
	before, _ := json.Marshal(r)
	fitAnswer(r, DefaultAnswerTokens)
	after, _ := json.Marshal(r)
	if string(before) != string(after) {
		t.Fatal("an answer under the ceiling was changed")
	}
}

func TestFitAnswerCutsToTheCeiling(t *testing.T) {
	for _, ceiling := range []int{minAnswerTokens, 5000, DefaultAnswerTokens} {
		r := bigAnswer(t, 2000, 300) // about 300,000 tokens in all
		fitAnswer(r, ceiling)
		if got := answerTokens(r); got > ceiling {
			t.Errorf("ceiling %d: the answer takes %d tokens", ceiling, got)
		}
		last := r.Content[len(r.Content)-1].(*mcpsdk.TextContent).Text
		if !strings.Contains(last, "over the") || !strings.Contains(last, "list items were left out") || !strings.Contains(last, "the text ends early") {
			t.Errorf("ceiling %d: the answer does not say what was cut: %q", ceiling, last)
		}
		var out struct {
			Results []map[string]any `json:"results"`
			Total   int              `json:"total"`
		}
		if err := json.Unmarshal(r.StructuredContent.(json.RawMessage), &out); err != nil {
			t.Fatalf("ceiling %d: structured content is no longer JSON: %v", ceiling, err)
		}
		if out.Total != 2000 || len(out.Results) == 0 || len(out.Results) >= 2000 {
			t.Errorf("ceiling %d: total %d, %d results kept; want the total kept and some whole results", ceiling, out.Total, len(out.Results))
		}
		for _, res := range out.Results {
			if len(res) != 2 {
				t.Fatalf("ceiling %d: a kept result lost fields: %v", ceiling, res)
			}
		}
		// The structured part gets at least half of what is left.
		if s := Tokens(string(r.StructuredContent.(json.RawMessage))); s < (ceiling-cutNoteTokens)/2-600 {
			t.Errorf("ceiling %d: structured content cut to %d tokens", ceiling, s)
		}
	}
}

func TestFitAnswerCutsALongString(t *testing.T) {
	// read-note's shape: one long text in both parts and short lists.
	long := strings.Repeat("A sentence of a very long note.\n", 10000)
	raw, _ := json.Marshal(map[string]any{"content": long, "links": []string{"a", "b"}, "next_offset": 0})
	r := &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: long}}, StructuredContent: json.RawMessage(raw)}
	fitAnswer(r, 5000)
	if got := answerTokens(r); got > 5000 {
		t.Fatalf("the answer takes %d tokens; want at most 5000", got)
	}
	var out map[string]any
	if err := json.Unmarshal(r.StructuredContent.(json.RawMessage), &out); err != nil {
		t.Fatal(err)
	}
	content, _ := out["content"].(string)
	if !strings.HasSuffix(content, "…") || len(out["links"].([]any)) != 2 || len(out) != 3 {
		t.Fatalf("structured content %.200v; want content cut with … and the other fields whole", out)
	}
	if last := r.Content[len(r.Content)-1].(*mcpsdk.TextContent).Text; !strings.Contains(last, "end in …") {
		t.Fatalf("the note does not say a text was cut: %q", last)
	}
}
