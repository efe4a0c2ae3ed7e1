package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, want string
	}{
		{"a folder with files", dir, ""},
		{"an empty folder", empty, ""},
		{"a file", file, "is a file, not a folder"},
		{"nothing there", filepath.Join(dir, "gone"), "does not exist"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			why, fix := Vault{Name: "v", Path: tt.path}.Unreadable()
			if tt.want == "" && why != "" || !strings.Contains(why, tt.want) || (why == "") != (fix == "") {
				t.Fatalf("Unreadable = %q, %q; want %q", why, fix, tt.want)
			}
		})
	}
}
