package watch

import "testing"

func TestFilterIgnores(t *testing.T) {
	f := filter{exclude: []string{"Archive/**", "*.excalidraw.md", "Templates", "/Inbox/"}}
	tests := []struct {
		name string
		rel  string
		dir  bool
		want bool
	}{
		{"note", "Projects/Plan.md", false, false},
		{"attachment", "Attachments/diagram.png", false, false},
		{"canvas", "Board.canvas", false, false},
		{"upper-case note", "Upper.MD", false, false},
		{"note named like a temp file", "Draft.tmp.md", false, false},
		{"folder", "Projects", true, false},
		{"obsidian settings", ".obsidian/workspace.json", false, true},
		{"obsidian folder", ".obsidian", true, true},
		{"trash", ".trash/Old.md", false, true},
		{"git", ".git/index", false, true},
		{"node_modules folder", "node_modules", true, true},
		{"inside node_modules", "Plugins/node_modules/x/README.md", false, true},
		{"hidden note", ".hidden.md", false, true},
		{"emacs lock", "Notes/.#Plan.md", false, true},
		{"vim swap", "Notes/.Plan.md.swp", false, true},
		{"vim swap without dot", "Plan.md.swp", false, true},
		{"office lock", "~$Report.docx", false, true},
		{"temp file", "upload.TMP", false, true},
		{"backup file", "Plan.md~", false, true},
		{"excluded subtree", "Archive/2020/Old.md", false, true},
		{"excluded folder", "Archive", true, true},
		{"excluded name at any depth", "Sketches/Drawing.excalidraw.md", false, true},
		{"excluded folder name at any depth", "Work/Templates/Daily.md", false, true},
		{"excluded folder name, file outside", "Templates.md", false, false},
		{"excluded with slashes around", "Inbox/New.md", false, true},
		{"similar name not excluded", "Archived/Note.md", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.ignores(tt.rel, tt.dir); got != tt.want {
				t.Errorf("ignores(%q, dir=%v) = %v, want %v", tt.rel, tt.dir, got, tt.want)
			}
		})
	}
}
