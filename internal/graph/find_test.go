package graph_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestFindNote(t *testing.T) {
	g := indexed(t, map[string]string{
		// A frontmatter title unlike the file name, and a note titled like
		// another note's file name: a title wins over a file name.
		"Projects/Plan.md": "---\ntitle: Master plan\n---\n# Plan\n",
		"Plan B.md":        "---\ntitle: Plan\n---\n# Plan B\n",
		// A path wins over a title.
		"Drinks/Espresso.md": "---\ntitle: Water\n---\n",
		// A file name wins over an alias (Guji is Ethiopia Guji's).
		"Origins/Guji.md": "---\ntitle: Farm visit\n---\n",
		// Case beyond ASCII, which SQLite does not fold.
		"Über.md":    "# Über\n",
		"Докер.md":   "# Докер\n",
		"Draft 1.md": "", "Draft 2.md": "", "Draft 3.md": "", "Draft 4.md": "", "Draft 5.md": "", "Draft 6.md": "",
	})
	ctx := context.Background()
	tests := []struct {
		ref    string
		path   string
		by     graph.MatchedBy
		others []string
	}{
		{"Methods/Pour over.md", "Methods/Pour over.md", graph.ByPath, nil},
		{"Methods/Pour over", "Methods/Pour over.md", graph.ByPath, nil},
		{"methods/POUR OVER", "Methods/Pour over.md", graph.ByPath, nil},
		{"/Methods/Pour over.md", "Methods/Pour over.md", graph.ByPath, nil},
		{`Methods\Pour over`, "Methods/Pour over.md", graph.ByPath, nil},
		// Its title is its file name: found by the name, as [[Pour over]] is.
		{"Pour over", "Methods/Pour over.md", graph.ByName, nil},
		{"  pour OVER ", "Methods/Pour over.md", graph.ByName, nil},
		{"Pour over.md", "Methods/Pour over.md", graph.ByName, nil},
		{"[[Pour over#Steps|the recipe]]", "Methods/Pour over.md", graph.ByName, nil},
		{"v60", "Methods/Pour over.md", graph.ByAlias, nil},
		{"Hand Drip", "Methods/Pour over.md", graph.ByAlias, nil},
		{"Coffee to water ratio", "Brewing ratios.md", graph.ByAlias, nil},
		{"kissaten visits", "喫茶店めぐり.md", graph.ByAlias, nil},
		{"喫茶店めぐり", "喫茶店めぐり.md", graph.ByPath, nil},
		{"brew-station.png", "brew-station.png", graph.ByPath, nil},
		{"Master plan", "Projects/Plan.md", graph.ByTitle, nil},
		{"Plan", "Plan B.md", graph.ByTitle, nil},
		{"Projects/plan", "Projects/Plan.md", graph.ByPath, nil},
		{"water", "Water.md", graph.ByPath, nil},
		{"Guji", "Origins/Guji.md", graph.ByName, nil},
		// Read as a link's target is: "Deep/.." leaves nothing.
		{"Deep/../Guji", "Origins/Guji.md", graph.ByName, nil},
		{"..", "", "", nil},
		{"Pour_over", "", "", nil}, // "_" is no wildcard
		{"Pour%", "", "", nil},
		{"über", "Über.md", graph.ByPath, nil},
		{"ДОКЕР", "Докер.md", graph.ByPath, nil},
		// Two notes named Index: the shorter path, and the other named.
		{"Index", "Beans/Index.md", graph.ByName, []string{"Methods/Index.md"}},
		{"index.md", "Beans/Index.md", graph.ByName, []string{"Methods/Index.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			m, err := g.FindNote(ctx, "coffee", tt.ref)
			if tt.path == "" {
				if !errors.Is(err, graph.ErrNoteNotFound) {
					t.Fatalf("err = %v; want not found", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var others []string
			for _, o := range m.Others {
				others = append(others, o.Path)
			}
			if m.Path != tt.path || m.By != tt.by || !reflect.DeepEqual(others, tt.others) || m.Vault != "coffee" {
				t.Fatalf("got %s by %s, others %q (vault %q); want %s by %s, others %q", m.Path, m.By, others, m.Vault, tt.path, tt.by, tt.others)
			}
		})
	}
}

// TestSuggestionsForATypoPreferWholeWords: a short typo is suggested the
// note one letter off, not every file whose path holds its letters inside
// a word ("hme" in "attachments"), and a note before an attachment as
// close.
func TestSuggestionsForATypoPreferWholeWords(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"en/Home.md", "en/Attachments/Intro.md", "de/Attachments/Anhänge.md",
		"ja/Attachments/添付.md", "en/Attachments/Sketchme.md", "en/Attachments/home.png", "ja/ホーム.md"} {
		sharedtest.WriteFile(t, root, rel, "text\n")
	}
	g := graph.New(indexVault(t, "help", root))
	for _, tc := range []struct{ ref, first string }{
		{"Hme", "en/Home.md"},
		{"Hoem", "en/Home.md"},
		{"ホーメ", "ja/ホーム.md"},
	} {
		_, err := g.FindNote(context.Background(), "help", tc.ref)
		var nf *graph.NotFoundError
		if !errors.As(err, &nf) || len(nf.Suggestions) == 0 || nf.Suggestions[0].Path != tc.first {
			t.Errorf("%q: suggestions %+v (err %v); want %s first", tc.ref, nf, err, tc.first)
		}
	}
	_, err := g.FindNote(context.Background(), "help", "hme")
	var nf *graph.NotFoundError
	if errors.As(err, &nf) {
		for _, s := range nf.Suggestions {
			if strings.Contains(s.Path, "Attachments/") {
				t.Errorf("\"hme\" suggests %s, which holds the letters only inside a word", s.Path)
			}
		}
	}
	if errors.As(err, &nf) && len(nf.Suggestions) > 1 && nf.Suggestions[1].Path == "en/Attachments/home.png" {
		// Notes first: home.png is as close as Home.md only by name.
		if nf.Suggestions[0].Path != "en/Home.md" {
			t.Errorf("an attachment ranks before a note as close: %+v", nf.Suggestions)
		}
	}
}

func TestFindNoteNotFound(t *testing.T) {
	g := indexed(t, map[string]string{
		"Draft 1.md": "", "Draft 2.md": "", "Draft 3.md": "", "Draft 4.md": "", "Draft 5.md": "", "Draft 6.md": "",
	})
	ctx := context.Background()
	tests := []struct {
		ref  string
		want []string // suggested paths
	}{
		{"Pour ovr", []string{"Methods/Pour over.md"}},
		{"grnder", []string{"Gear/Grinder.md"}},
		{"Brewing", []string{"Brewing ratios.md"}},
		{"Brewing ratios and more", []string{"Brewing ratios.md"}},
		{"Draft", []string{"Draft 1.md", "Draft 2.md", "Draft 3.md", "Draft 4.md", "Draft 5.md"}},
		{"Kissaten", []string{"喫茶店めぐり.md"}},
		{"tea", nil},
		{"xyzzy", nil},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := g.FindNote(ctx, "coffee", tt.ref)
			var nf *graph.NotFoundError
			if !errors.Is(err, graph.ErrNoteNotFound) || !errors.As(err, &nf) {
				t.Fatalf("err = %v; want a *NotFoundError", err)
			}
			var got []string
			for _, s := range nf.Suggestions {
				got = append(got, s.Path)
			}
			if !reflect.DeepEqual(got, tt.want) || nf.Ref != tt.ref || nf.Vault != "coffee" {
				t.Fatalf("suggestions %q for %q in %q; want %q", got, nf.Ref, nf.Vault, tt.want)
			}
			if len(tt.want) > 0 && !strings.Contains(err.Error(), `"`+tt.want[0]+`"`) {
				t.Errorf("message does not name the first suggestion: %v", err)
			}
		})
	}

	// Outlinks and Backlinks give the same help for a path that is off.
	_, err := g.Backlinks(ctx, "coffee", "Methods/Pour-over.md")
	var nf *graph.NotFoundError
	if !errors.As(err, &nf) || len(nf.Suggestions) == 0 || nf.Suggestions[0].Path != "Methods/Pour over.md" {
		t.Fatalf("backlinks of a misspelt path: %v", err)
	}
}

// twoVaults indexes the example vault as "coffee" and a small vault "tea"
// into one database. Both have a Water.md.
func twoVaults(t *testing.T) *graph.Graph {
	t.Helper()
	db := indexedDB(t, nil)
	tea := t.TempDir()
	for name, body := range map[string]string{"Water.md": "# Water\n", "Sencha.md": "# Sencha\n[[Water]]\n"} {
		if err := os.WriteFile(filepath.Join(tea, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indexInto(t, db, "tea", tea)
	return graph.New(db)
}

func TestFindNoteAcrossVaults(t *testing.T) {
	g := twoVaults(t)
	ctx := context.Background()

	// Water.md in both: the vault first by name, the other named.
	m, err := g.FindNote(ctx, "", "Water")
	if err != nil {
		t.Fatal(err)
	}
	if m.Vault != "coffee" || m.Path != "Water.md" || len(m.Others) != 1 || m.Others[0] != (graph.Ref{Vault: "tea", Path: "Water.md", Title: "Water"}) {
		t.Fatalf("water in every vault = %+v", m)
	}
	if m, err := g.FindNote(ctx, "tea", "water"); err != nil || m.Vault != "tea" || len(m.Others) != 0 {
		t.Fatalf("water in tea = %+v, %v", m, err)
	}
	if m, err := g.FindNote(ctx, "", "Sencha"); err != nil || m.Vault != "tea" {
		t.Fatalf("sencha = %+v, %v", m, err)
	}

	// A note of another vault is the suggestion.
	_, err = g.FindNote(ctx, "tea", "Grinder")
	var nf *graph.NotFoundError
	if !errors.As(err, &nf) || len(nf.Suggestions) != 1 || nf.Suggestions[0] != (graph.Ref{Vault: "coffee", Path: "Gear/Grinder.md", Title: "Grinder"}) {
		t.Fatalf("grinder in tea: %v", err)
	}
	if !strings.Contains(err.Error(), `"Gear/Grinder.md" (vault "coffee")`) {
		t.Errorf("message does not name the other vault: %v", err)
	}

	_, err = g.FindNote(ctx, "coffe", "Water")
	if !errors.Is(err, graph.ErrVaultNotFound) || !errors.Is(err, graph.ErrNoteNotFound) ||
		!strings.Contains(err.Error(), `indexed vaults: "coffee", "tea"`) {
		t.Fatalf("unknown vault: %v", err)
	}
}

// TestFindNoteAsLinks: a reference finds the note that the same text
// written as a [[link]] in a note at the vault root leads to, both decided
// by vault's rules of link resolution.
func TestFindNoteAsLinks(t *testing.T) {
	const (
		cafeNFD   = "Cafe\u0301"                     // as macOS writes it
		bruleeNFC = "Cr\u00e8me br\u00fbl\u00e9e"    // as a keyboard types it
		bruleeNFD = "Cre\u0300me bru\u0302le\u0301e" // the same, decomposed
	)
	files := map[string]string{
		"Three laws of motion.md": "",
		cafeNFD + ".md":           "",
		bruleeNFC + ".md":         "",
		"Über.md":                 "",
		"Index.md":                "",
		"Projects/Index.md":       "",
		// A title of its own, so that only the others are found by title
		// in SQL: the name rule must still see all three.
		"Areas/Plan.md":              "---\ntitle: Area plan\n---\n",
		"Projects/Plan.md":           "",
		"Projects/Deep/Plan.md":      "",
		"Bravo/Same.md":              "",
		"Alpha/Same.md":              "",
		"Attachments/image.png":      "png",
		"Notes/image.png.md":         "",
		"Release notes/v1.2.md":      "",
		"日本語/ノート.md":                 "",
		"Origins/Guji.md":            "",
		"Quarters/Q3.md":             "---\naliases: [Roadmap, Plan]\n---\n",
		"A long note at the root.md": "---\naliases: [Shared alias]\n---\n",
		"B/S.md":                     "---\naliases: [Shared alias]\n---\n",
	}
	refs := []string{
		"three LAWS of motion",     // case
		"Three laws of motion.md",  // with .md
		"caf\u00e9",                // composed, the file decomposed
		"CAFE\u0301",               // decomposed and upper case
		strings.ToLower(bruleeNFD), // decomposed, the file composed
		"über",                     // case beyond ASCII
		"Index",                    // at the root and in a folder: the root
		"Projects/Index",           // a path
		"Plan",                     // in three folders: the shortest; beats an alias
		"Plan.md",                  //
		"Deep/Plan",                // a partial path
		"/Projects/Plan.md",        // a leading slash
		"projects/deep/PLAN",       // case in folders
		"Same",                     // same length: alphabetical
		"image.png",                // the attachment, not the note
		"image.png.md",             // the note named like it
		"v1.2",                     // a dot in a note's name
		"roadmap",                  // an alias
		"Shared alias",             // two notes' alias: the one at the root
		"Q3",                       // the name, not the alias
		"ノート",                      //
		"Deep/../Guji",             // dots inside a path
		"Nowhere",                  // nothing, either way
		"Projects/Nowhere",         //
	}
	var home strings.Builder
	for _, r := range refs {
		fmt.Fprintf(&home, "[[%s]]\n", r)
	}
	files["Home.md"] = home.String()
	root := t.TempDir()
	for rel, content := range files {
		sharedtest.WriteFile(t, root, rel, content)
	}
	g := graph.New(indexVault(t, "v", root))
	ctx := context.Background()
	links, err := g.Outlinks(ctx, "v", "Home.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != len(refs) {
		t.Fatalf("%d links in Home.md; want %d", len(links), len(refs))
	}
	for i, ref := range refs {
		link := links[i]
		if link.Line != i+1 {
			t.Fatalf("link %d is on line %d", i, link.Line)
		}
		t.Run(ref, func(t *testing.T) {
			m, err := g.FindNote(ctx, "v", ref)
			switch {
			case !link.Resolved:
				if !errors.Is(err, graph.ErrNoteNotFound) {
					t.Fatalf("[[%s]] is unresolved; FindNote = %s, %v", ref, m.Path, err)
				}
			case err != nil:
				t.Fatalf("[[%s]] leads to %s; FindNote: %v", ref, link.Target, err)
			case m.Path != link.Target:
				t.Fatalf("[[%s]] leads to %s; FindNote finds %s by %s", ref, link.Target, m.Path, m.By)
			}
		})
	}

	// Spot checks, so that the two cannot agree on something wrong.
	want := map[string]string{
		"caf\u00e9":                cafeNFD + ".md",
		strings.ToLower(bruleeNFD): bruleeNFC + ".md",
		"Index":                    "Index.md",
		"Plan":                     "Areas/Plan.md",
		"Same":                     "Alpha/Same.md",
		"image.png":                "Attachments/image.png",
		"Shared alias":             "A long note at the root.md",
		"Q3":                       "Quarters/Q3.md",
	}
	for i, ref := range refs {
		if w, ok := want[ref]; ok && links[i].Target != w {
			t.Errorf("[[%s]] leads to %s; want %s", ref, links[i].Target, w)
		}
	}
}

// TestFindNoteTitleBeatsName: what FindNote adds to link resolution. A
// title set in frontmatter beats another note's file name, since a caller
// may know a note by its title; a link goes by file names only.
func TestFindNoteTitleBeatsName(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Projects/Plan.md", "")
	sharedtest.WriteFile(t, root, "Plan B.md", "---\ntitle: Plan\n---\n")
	sharedtest.WriteFile(t, root, "Home.md", "[[Plan]]\n")
	g := graph.New(indexVault(t, "v", root))
	ctx := context.Background()
	links, err := g.Outlinks(ctx, "v", "Home.md")
	if err != nil || len(links) != 1 || links[0].Target != "Projects/Plan.md" {
		t.Fatalf("[[Plan]] = %+v, %v; want Projects/Plan.md", links, err)
	}
	m, err := g.FindNote(ctx, "v", "Plan")
	if err != nil || m.Path != "Plan B.md" || m.By != graph.ByTitle {
		t.Fatalf("FindNote(Plan) = %s by %s, %v; want Plan B.md by title", m.Path, m.By, err)
	}
}

// TestSuggestionPassedBackResolves: a file whose name begins with a space is
// suggested by its path, and that path, passed back, finds it; a reference
// with spaces around it that no path has is still trimmed.
func TestSuggestionPassedBackResolves(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{" Leading space.md", "Trailing .md", "Plain.md"} {
		sharedtest.WriteFile(t, root, rel, "text\n")
	}
	g := graph.New(indexVault(t, "pm", root))
	ctx := context.Background()
	_, err := g.FindNote(ctx, "pm", "Leading spac")
	var nf *graph.NotFoundError
	if !errors.As(err, &nf) || len(nf.Suggestions) == 0 {
		t.Fatalf("FindNote(Leading spac) = %v; want suggestions", err)
	}
	for _, s := range nf.Suggestions {
		m, err := g.FindNote(ctx, s.Vault, s.Path)
		if err != nil || m.Path != s.Path {
			t.Errorf("suggested %q, which passed back finds %q (%v)", s.Path, m.Path, err)
		}
	}
	for ref, want := range map[string]string{" Leading space.md": " Leading space.md", " Leading space": " Leading space.md", "  Plain.md ": "Plain.md", "Trailing .md": "Trailing .md"} {
		if m, err := g.FindNote(ctx, "pm", ref); err != nil || m.Path != want {
			t.Errorf("FindNote(%q) = %q, %v; want %q", ref, m.Path, err, want)
		}
	}
}
