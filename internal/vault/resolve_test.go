package vault

import "testing"

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
	}
}
