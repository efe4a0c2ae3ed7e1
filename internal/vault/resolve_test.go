package vault

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	files := []string{
		"Home.md",
		"Index.md",
		"Projects/Index.md",
		"Projects/Plan.md",
		"Projects/Deep/Plan.md",
		"Areas/Plan.md",
		"Areas/Bravo/Same.md",
		"Areas/Alpha/Same.md",
		"Meetings/2024-01-01.md",
		"Three laws of motion.md",
		"Release notes/v1.2.md",
		"Attachments/Figure 1.png",
		"Attachments/diagram.canvas",
		"image.png.md",
		"Attachments/image.png",
		"日本語/ノート.md",
		"Cafe\u0301.md",                  // decomposed (NFD), as some macOS setups write names
		"Cr\u00e8me br\u00fbl\u00e9e.md", // composed (NFC)
	}
	aliases := map[string][]string{
		"Home.md":          {"Start", "Dashboard"},
		"Projects/Plan.md": {"Roadmap"},
	}
	r := NewResolver(files, aliases)

	tests := []struct {
		name     string
		source   string
		target   string
		markdown bool
		want     string // "" for unresolved
	}{
		{"bare name", "Home.md", "Three laws of motion", false, "Three laws of motion.md"},
		{"bare name with .md", "Home.md", "Three laws of motion.md", false, "Three laws of motion.md"},
		{"case-insensitive", "Home.md", "three LAWS of motion", false, "Three laws of motion.md"},
		{"empty target is the source", "Projects/Plan.md", "", false, "Projects/Plan.md"},
		{"root path", "Areas/Plan.md", "Projects/Plan", false, "Projects/Plan.md"},
		{"root path with .md", "Home.md", "Projects/Deep/Plan.md", false, "Projects/Deep/Plan.md"},
		{"leading slash is the root", "Areas/Plan.md", "/Projects/Index", false, "Projects/Index.md"},
		{"partial path matches a suffix", "Home.md", "Deep/Plan", false, "Projects/Deep/Plan.md"},
		{"duplicate name: shortest when none is in the source folder", "Projects/Deep/Plan.md", "Index", false, "Index.md"},
		{"duplicate name: same folder first", "Projects/Plan.md", "Index", false, "Projects/Index.md"},
		{"duplicate name: shortest path", "Meetings/2024-01-01.md", "Plan", false, "Areas/Plan.md"},
		{"duplicate name: alphabetical", "Home.md", "Same", false, "Areas/Alpha/Same.md"},
		{"duplicate name: own folder beats alphabet", "Areas/Bravo/Other.md", "Same", false, "Areas/Bravo/Same.md"},
		{"relative path", "Projects/Deep/Plan.md", "../Index", false, "Projects/Index.md"},
		{"relative path that leaves nothing", "Projects/Plan.md", "./Missing", false, ""},
		{"markdown relative to source", "Projects/Deep/Plan.md", "../Plan.md", true, "Projects/Plan.md"},
		{"markdown from the root", "Projects/Deep/Plan.md", "Areas/Plan.md", true, "Areas/Plan.md"},
		{"markdown by name", "Projects/Plan.md", "Three laws of motion.md", true, "Three laws of motion.md"},
		{"dotted note name", "Home.md", "v1.2", false, "Release notes/v1.2.md"},
		{"attachment by name", "Home.md", "Figure 1.png", false, "Attachments/Figure 1.png"},
		{"attachment by path", "Home.md", "Attachments/diagram.canvas", false, "Attachments/diagram.canvas"},
		{"attachment over note of the same name", "Home.md", "image.png", false, "Attachments/image.png"},
		{"note named like an attachment", "Home.md", "image.png.md", false, "image.png.md"},
		{"alias", "Areas/Plan.md", "Roadmap", false, "Projects/Plan.md"},
		{"alias case-insensitive", "Areas/Plan.md", "dashboard", false, "Home.md"},
		{"file name beats alias", "Home.md", "Plan", false, "Areas/Plan.md"},
		{"unicode path", "Home.md", "ノート", false, "日本語/ノート.md"},
		{"composed link, decomposed name", "Home.md", "Caf\u00e9", false, "Cafe\u0301.md"},
		{"decomposed link, composed name", "Home.md", "Cre\u0300me bru\u0302le\u0301e", false, "Cr\u00e8me br\u00fbl\u00e9e.md"},
		{"decomposed path from the root", "Projects/Plan.md", "/cafe\u0301.md", false, "Cafe\u0301.md"},
		{"upper-case extension", "Home.md", "Three laws of motion.MD", false, "Three laws of motion.md"},
		{"alias with .md", "Areas/Plan.md", "roadmap.md", false, "Projects/Plan.md"},
		{"dots inside a path", "Home.md", "Nowhere/../Projects/Plan", false, "Projects/Plan.md"},
		{"only dots", "Home.md", "/..", false, ""},
		{"missing", "Home.md", "Nowhere", false, ""},
		{"missing folder", "Home.md", "Nowhere/Plan", false, ""},
		{"attachment needs its extension", "Home.md", "Figure 1", false, ""},
		{"backslashes", "Home.md", `Projects\Plan`, false, "Projects/Plan.md"},
		{"escaping the vault", "Home.md", "../../etc/passwd", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := r.Resolve(tt.source, tt.target, tt.markdown)
			if tt.want == "" {
				if ok {
					t.Fatalf("Resolve(%q, %q) = %q; want unresolved", tt.source, tt.target, got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want %q", tt.source, tt.target, got, ok, tt.want)
			}
		})
		// The exported rules, which callers with files of their own use,
		// give the answer the Resolver's maps give.
		if strings.HasPrefix(tt.target, ".") || tt.markdown || tt.target == "" {
			continue
		}
		t.Run(tt.name+"/by the exported rules", func(t *testing.T) {
			got := byRules(files, aliases, tt.source, tt.target)
			if got != tt.want {
				t.Fatalf("rules give %q for %q from %q; want %q", got, tt.target, tt.source, tt.want)
			}
		})
	}
}

// byRules resolves a link that is neither relative nor a Markdown link by
// Target's methods, Named and TieBreak alone, as graph.FindNote does over
// the files it reads from the database.
func byRules(files []string, aliases map[string][]string, source, target string) string {
	tg := ParseTarget(target)
	best := func(cands []string) string {
		if len(cands) == 0 {
			return ""
		}
		return slices.MinFunc(cands, func(a, b string) int { return TieBreak(source, a, b) })
	}
	if strings.Contains(tg.Path(), "/") {
		if p := best(slices.DeleteFunc(slices.Clone(files), func(p string) bool { return !tg.IsPath(p) })); p != "" {
			return p
		}
	}
	if p := best(Named(tg, files, func(p string) string { return p })); p != "" {
		return p
	}
	var aliased []string
	for _, p := range files {
		if slices.ContainsFunc(aliases[p], tg.IsAlias) {
			aliased = append(aliased, p)
		}
	}
	return best(aliased)
}

func TestTieBreak(t *testing.T) {
	tests := []struct {
		source string
		files  []string
		want   string
	}{
		{"Projects/Home.md", []string{"Index.md", "Projects/Index.md"}, "Projects/Index.md"},
		{"Home.md", []string{"Projects/Index.md", "Index.md"}, "Index.md"},
		{"Areas/Home.md", []string{"Projects/Index.md", "Index.md"}, "Index.md"},
		{"Areas/Home.md", []string{"B/Same.md", "A/Same.md"}, "A/Same.md"},
		// No source note ranks like a note at the root: a root file first,
		// even when a path in a folder is shorter.
		{"", []string{"A/Roadmap.md", "The long road map.md"}, "The long road map.md"},
		{"Areas/Home.md", []string{"A/Roadmap.md", "The long road map.md"}, "A/Roadmap.md"},
	}
	for _, tt := range tests {
		got := slices.MinFunc(tt.files, func(a, b string) int { return TieBreak(tt.source, a, b) })
		if got != tt.want {
			t.Errorf("from %q among %q: %q; want %q", tt.source, tt.files, got, tt.want)
		}
	}
}

func TestParseTarget(t *testing.T) {
	tests := []struct {
		target, path, stem string
	}{
		{"Plan", "Plan", "Plan"},
		{" Projects\\Plan.md ", "Projects/Plan.md", "Projects/Plan"},
		{"/Projects//Deep/../Plan.MD", "Projects/Plan.MD", "Projects/Plan"},
		{"image.png", "image.png", "image.png"},
		{"..", "", ""},
		{"/", "", ""},
	}
	for _, tt := range tests {
		tg := ParseTarget(tt.target)
		if tg.Path() != tt.path || tg.Stem() != tt.stem {
			t.Errorf("ParseTarget(%q) = %q, stem %q; want %q, stem %q", tt.target, tg.Path(), tg.Stem(), tt.path, tt.stem)
		}
		if tt.path == "" && (tg.IsPath("") || tg.IsPath(".md") || tg.IsAlias("x") || len(Named(tg, []string{".md", "x/.md"}, func(p string) string { return p })) > 0) {
			t.Errorf("ParseTarget(%q) names a file, with nothing left of it", tt.target)
		}
	}
}

// BenchmarkResolve resolves links in a vault of 10,000 files in 100
// folders, a quarter of them names that occur in several folders.
func BenchmarkResolve(b *testing.B) {
	const n = 10000
	files := make([]string, n)
	targets := make([]string, n)
	for i := range files {
		name := fmt.Sprintf("Note %d", i)
		if i%4 == 0 {
			name = fmt.Sprintf("Index %d", i%50)
		}
		files[i] = fmt.Sprintf("Folder %d/%s.md", i%100, name)
		switch i % 3 {
		case 0:
			targets[i] = name
		case 1:
			targets[i] = fmt.Sprintf("folder %d/%s", i%100, name)
		default:
			targets[i] = name + " missing"
		}
	}
	r := NewResolver(files, nil)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.Resolve(files[i%n], targets[(i*7)%n], false)
	}
}

// TestMayName: a link waiting for a note is found by the names someone
// may ask for it by: its file name in any case or Unicode form, with or
// without ".md", bare or with folders that agree with the link's.
func TestMayName(t *testing.T) {
	for _, tc := range []struct {
		link, asked string
		want        bool
	}{
		{"Ideas", "ideas", true},
		{"Ideas", "Projects/Ideas.md", true},
		{"Projects/Ideas", "Ideas", true},
		{"Projects/Ideas", "projects/ideas.md", true},
		{"Work/Projects/Ideas", "Projects/Ideas", true},
		{"Projects/Ideas", "Work/Projects/Ideas", true},
		{"Projects/Ideas", "Archive/Ideas", false},
		{"Projects/Ideas", "Jects/Ideas", false},
		{"Ideas", "Idea", false},
		{"Caf\u00e9", "cafe\u0301", true},
		{"", "Ideas", false},
		{"Ideas", "/", false},
	} {
		if got := ParseTarget(tc.link).MayName(ParseTarget(tc.asked)); got != tc.want {
			t.Errorf("[[%s]] asked for as %q: %v, want %v", tc.link, tc.asked, got, tc.want)
		}
	}
}

// TestNamesOne: a target is enough for a link when it names one file by
// name or path end; a name two files share is not.
func TestNamesOne(t *testing.T) {
	paths := []string{"A/Plan.md", "B/Plan.md", "B/Notes.md", "img.png"}
	for target, want := range map[string]string{
		"Notes": "B/Notes.md", "B/Plan": "B/Plan.md", "Plan": "", "img.png": "img.png", "Missing": "",
	} {
		got, ok := NamesOne(target, paths)
		if got != want || ok != (want != "") {
			t.Errorf("NamesOne(%q) = %q, %v; want %q", target, got, ok, want)
		}
	}
}
