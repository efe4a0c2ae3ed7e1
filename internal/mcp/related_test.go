package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// reason is the reason of kind among a related note's, if any.
func reason(out mcp.RelatedOutput, path, kind string) (related.Reason, bool) {
	for _, n := range out.Related {
		if n.Path != path {
			continue
		}
		for _, r := range n.Reasons {
			if r.Kind == kind {
				return r, true
			}
		}
	}
	return related.Reason{}, false
}

func TestRelatedNotesOnTheExampleVault(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))

	var press mcp.RelatedOutput
	text, isErr := call(t, cs, mcp.ToolRelatedNotes, map[string]any{"path": "Methods/French press.md", "limit": 20}, &press)
	if isErr || press.Path != "Methods/French press.md" || press.Title != "French press" || press.Vault != "coffee" {
		t.Fatalf("error %v, answer %+v: %s", isErr, press, text)
	}
	if press.Degraded || !strings.HasPrefix(press.Embedder, "lexical/") {
		t.Fatalf("degraded %v (%s), embedder %q", press.Degraded, press.DegradedReason, press.Embedder)
	}
	for _, tc := range []struct {
		name, path, kind, detail string
	}{
		{"a direct link", "Methods/Pour over.md", related.KindLink, "this note links to it"},
		{"a backlink", "Methods/Index.md", related.KindLink, "it links to this note"},
		{"shared links", "Coffee journal.md", related.KindSharedLinks, "both link to [[Roast levels]] and [[Pour over]]"},
		{"co-citation", "Methods/Cold brew.md", related.KindCoCited, "3 notes link to both: "},
		{"meaning", "Methods/Cold brew.md", related.KindMeaning, `passage: "Cold brew · 100 g of coarse coffee`},
		{"a rare tag", "Methods/AeroPress.md", related.KindTags, "both tagged #method/immersion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := reason(press, tc.path, tc.kind)
			if !ok || !strings.HasPrefix(r.Detail, tc.detail) || r.Score <= 0 || r.Score > 1 {
				t.Fatalf("%s of %s: %+v (found %v)\n%s", tc.kind, tc.path, r, ok, text)
			}
			if label := related.Label(r.Kind); strings.HasPrefix(r.Detail, label) {
				t.Fatalf("%s of %s: the detail %q repeats the label %q beside it", tc.kind, tc.path, r.Detail, label)
			}
			if !strings.Contains(text, r.Detail) {
				t.Fatalf("the text lacks %q:\n%s", r.Detail, text)
			}
		})
	}
	t.Run("merged and ranked", func(t *testing.T) {
		paths := map[string]bool{}
		for i, n := range press.Related {
			if paths[n.Path] || n.Path == press.Path {
				t.Fatalf("%s listed twice, or the note itself", n.Path)
			}
			paths[n.Path] = true
			if i > 0 && n.Score > press.Related[i-1].Score {
				t.Fatalf("not ranked by score: %+v", press.Related)
			}
		}
		if r, _ := reason(press, "Methods/Cold brew.md", related.KindTags); r.Detail != "both tagged #method/immersion" {
			t.Fatalf("a tag every note has counts: %+v", r)
		}
	})
	t.Run("suggestions point into the text", func(t *testing.T) {
		if len(press.Suggestions) == 0 {
			t.Fatalf("no suggestions:\n%s", text)
		}
		for _, s := range press.Suggestions {
			if s.Line == 4 || s.Sentence == "French press" || s.Sentence == "Steps" {
				t.Errorf("a suggestion points at a heading: %+v", s)
			}
		}
	})
	t.Run("limit", func(t *testing.T) {
		var out mcp.RelatedOutput
		call(t, cs, mcp.ToolRelatedNotes, map[string]any{"path": "French press", "limit": 2}, &out)
		if len(out.Related) != 2 || out.Related[0].Path != press.Related[0].Path {
			t.Fatalf("limit 2: %+v", out.Related)
		}
	})

	var pour mcp.RelatedOutput
	text, isErr = call(t, cs, mcp.ToolRelatedNotes, map[string]any{"path": "Methods/Pour over.md", "vault": "coffee"}, &pour)
	if isErr {
		t.Fatal(text)
	}
	t.Run("unlinked mentions", func(t *testing.T) {
		type at struct {
			path string
			line int
			name string
		}
		var got []at
		for _, m := range pour.Mentions {
			got = append(got, at{m.Path, m.Line, m.Name})
		}
		for _, want := range []at{
			{"Beans/Colombia Huila.md", 12, "Pour over"}, // "In the pour over it wants..."
			{"Coffee journal.md", 22, "V60"},             // an alias
			{"Current setup.md", 4, "V60"},
		} {
			if !slices.Contains(got, want) {
				t.Errorf("no mention %+v among %+v", want, got)
			}
		}
		for _, m := range pour.Mentions {
			if m.Path == "Methods/Pour over.md" || m.Path == "Methods/Cold brew.md" || m.Path == "Methods/Index.md" {
				// its own text; [[V60]]; [[Pour over]]
				t.Errorf("a linked or own mention is listed: %+v", m)
			}
			if m.Path == "Brewing ratios.md" && m.Line > 30 {
				t.Errorf("a mention inside a code block is listed: %+v", m)
			}
		}
		if m := pour.Mentions[slices.IndexFunc(pour.Mentions, func(m related.Mention) bool { return m.Path == "Beans/Colombia Huila.md" })]; m.Sentence != "In the pour over it wants a coarser grind than the Ethiopia Guji, around 22 clicks." {
			t.Errorf("sentence %q", m.Sentence)
		}
		if pour.MentionsFound != len(pour.Mentions) || !strings.Contains(text, "Unlinked mentions of this note") {
			t.Errorf("found %d, listed %d:\n%s", pour.MentionsFound, len(pour.Mentions), text)
		}
	})
	t.Run("mentions in the note", func(t *testing.T) {
		i := slices.IndexFunc(pour.Mentioning, func(m related.Mention) bool { return m.Path == "Water.md" })
		if i < 0 || pour.Mentioning[i].Line != 11 {
			t.Fatalf("mentioning %+v", pour.Mentioning)
		}
		for _, m := range pour.Mentioning {
			if m.Path == "Gear/Kettle.md" || m.Path == "Gear/Grinder.md" {
				t.Errorf("a linked name is listed: %+v", m) // [[Kettle]], [[Grinder]]
			}
		}
	})
	t.Run("link suggestions", func(t *testing.T) {
		if len(pour.Suggestions) == 0 {
			t.Fatalf("no suggestions:\n%s", text)
		}
		for _, s := range pour.Suggestions {
			if _, linked := reason(pour, s.Path, related.KindLink); linked {
				t.Errorf("%s is linked already", s.Path)
			}
			// A note sharing nothing specific with this one is proposed
			// without a sentence; a sentence has its line and reason.
			if (s.Sentence == "") != (s.Line == 0) || (s.Sentence == "") != (s.Because == "") {
				t.Errorf("a sentence without its line or reason: %+v", s)
			}
		}
		s := pour.Suggestions[slices.IndexFunc(pour.Suggestions, func(s related.Suggestion) bool { return s.Path == "Water.md" })]
		if s.Because != "mentions it" || !strings.Contains(s.Sentence, "water") {
			t.Errorf("water suggestion %+v", s)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args map[string]any
			want string
		}{
			{"no note", map[string]any{"path": "Espresso machine.md"}, "no note"},
			{"empty path", map[string]any{"path": "  "}, "path is empty"},
			{"unknown vault", map[string]any{"path": "Water.md", "vault": "tea"}, "there is no vault named"},
			{"outside", map[string]any{"path": "../secret.md"}, "outside the vault"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				text, isErr := call(t, cs, mcp.ToolRelatedNotes, tc.args, nil)
				if !isErr || !strings.Contains(text, tc.want) {
					t.Fatalf("error %v: %s", isErr, text)
				}
			})
		}
	})
}

func TestRelatedNotesDegrade(t *testing.T) {
	v := exampleVault(t)
	t.Run("not indexed yet", func(t *testing.T) {
		cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
		var out mcp.RelatedOutput
		text, isErr := call(t, cs, mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}, &out)
		if isErr || !out.Degraded || !strings.Contains(out.DegradedReason, "not indexed yet") || out.Path != "Water.md" {
			t.Fatalf("error %v, %+v: %s", isErr, out, text)
		}
	})
	t.Run("no backend", func(t *testing.T) {
		cs := connect(t, &fake{Vaults: []config.Vault{v}})
		var out mcp.RelatedOutput
		text, isErr := call(t, cs, mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}, &out)
		if isErr || !out.Degraded || !strings.Contains(text, "Degraded: the index is unavailable") {
			t.Fatalf("error %v, %+v: %s", isErr, out, text)
		}
	})
	t.Run("an index that fails says nothing of it", func(t *testing.T) {
		b := &fake{Vaults: []config.Vault{v}, Related: func(context.Context, related.Query) (related.Answer, error) {
			return related.Answer{}, errors.New("SQL logic error: no such table: links")
		}}
		text, isErr := call(t, connect(t, b), mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}, nil)
		if isErr || strings.Contains(text, "SQL") || !strings.Contains(text, "health-status") {
			t.Fatalf("error %v: %s", isErr, text)
		}
	})
	t.Run("lexical similarity is not called meaning", func(t *testing.T) {
		b := &fake{Vaults: []config.Vault{v}, Related: func(_ context.Context, q related.Query) (related.Answer, error) {
			return related.Answer{Vault: q.Vault, Path: q.Path, Title: "Water", Embedder: "lexical/hashed-ngrams-v1",
				Related: []related.Note{{Path: "Gear/Kettle.md", Title: "Kettle", Score: 0.2, Reasons: []related.Reason{
					{Kind: related.KindMeaning, Detail: `passage: "boil the water"`, Score: 1}}}},
				Suggestions: []related.Suggestion{}, Mentions: []related.Mention{}, Mentioning: []related.Mention{}}, nil
		}}
		text, isErr := call(t, connect(t, b), mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}, nil)
		// The label is the CLI's too (related.Label), so both say the same.
		if isErr || strings.Contains(text, "[meaning]") || !strings.Contains(text, "["+related.Label(related.KindMeaning)+"]") {
			t.Fatalf("error %v: %s", isErr, text)
		}
	})
	t.Run("meaning unavailable", func(t *testing.T) {
		b := &fake{Vaults: []config.Vault{v}, Related: func(_ context.Context, q related.Query) (related.Answer, error) {
			return related.Answer{Vault: q.Vault, Path: q.Path, Title: "Water",
				Related:     []related.Note{{Path: "Gear/Kettle.md", Title: "Kettle", Score: 0.2, Reasons: []related.Reason{{Kind: related.KindLink, Detail: "this note links to it", Score: 1}}}},
				Suggestions: []related.Suggestion{}, Mentions: []related.Mention{}, Mentioning: []related.Mention{},
				Missing: []string{"meaning unavailable: no vectors for this note yet"}}, nil
		}}
		var out mcp.RelatedOutput
		text, isErr := call(t, connect(t, b), mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}, &out)
		if isErr || !out.Degraded || len(out.Related) != 1 || !strings.Contains(text, "Degraded: meaning unavailable") {
			t.Fatalf("error %v, %+v: %s", isErr, out, text)
		}
	})
}

// TestInstructionsNameEveryTool keeps the server's instructions, which
// tell the model which tool to use when, in step with the tools.
func TestInstructionsNameEveryTool(t *testing.T) {
	cs := connect(t, &fake{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	instructions := cs.InitializeResult().Instructions
	for _, tool := range res.Tools {
		if !strings.Contains(instructions, "- "+tool.Name+":") {
			t.Errorf("the instructions do not say when to use %s:\n%s", tool.Name, instructions)
		}
	}
}

// TestRelatedNotesStaySmall asks about a note with a long alias that 60
// notes mention, each twice in a long paragraph: the answer lists 20
// mentions with short sentences and says how many it found, one per line
// of the 50 notes read.
func TestRelatedNotesStaySmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	long := strings.Repeat("steeped leaves and hot water ", 40)
	alias := strings.Repeat("x", 500)
	sharedtest.WriteFile(t, dir, "Tea.md", "---\naliases: ["+alias+"]\n---\n# Tea\n\n"+long+"\n")
	for i := range 60 {
		sharedtest.WriteFile(t, dir, fmt.Sprintf("N%02d.md", i), long+"tea, "+long+" and tea again. [[Tea]]\n")
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, config.Vault{Name: "tea", Path: dir}))
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolRelatedNotes, Arguments: map[string]any{"path": "Tea.md", "limit": 50}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	data, _ := json.Marshal(res)
	var out mcp.RelatedOutput
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Mentions) != related.MaxMentions || out.MentionsFound != 50 || !out.MentionsCut || out.Degraded {
		t.Fatalf("%d mentions listed, %d found, cut %v, degraded %v (%s)", len(out.Mentions), out.MentionsFound, out.MentionsCut, out.Degraded, out.DegradedReason)
	}
	for _, m := range out.Mentions {
		if len([]rune(m.Sentence)) > 301 {
			t.Fatalf("sentence of %d characters", len([]rune(m.Sentence)))
		}
	}
	if len(data) > 64<<10 {
		t.Fatalf("the answer takes %d bytes", len(data))
	}
}
