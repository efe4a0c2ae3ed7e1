package vault

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestScan(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{
		"Home.md",
		"Projects/Plan.md",
		"Archive/Old.md",
		"Projects/Archive/Kept.md",
		"Attachments/diagram.png",
		"Board.canvas",
		"Tables.base",
		"Drawing.excalidraw.md",
		"Templates/Daily.md",
		".obsidian/workspace.json",
		".trash/Deleted.md",
		".git/HEAD",
		"node_modules/pkg/README.md",
		".hidden.md",
		"Upper.MD",
	} {
		sharedtest.WriteFile(t, root, rel, "x")
	}
	files, warnings, err := Scan(context.Background(), root, []string{"Archive/**", "*.excalidraw.md", "Templates"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		kind := "attachment"
		if f.Note {
			kind = "note"
		}
		got = append(got, f.Path+" "+kind)
		if f.Size != 1 || f.ModTime == 0 {
			t.Errorf("%s: size %d, mtime %d", f.Path, f.Size, f.ModTime)
		}
	}
	want := []string{
		"Attachments/diagram.png attachment",
		"Board.canvas attachment",
		"Home.md note",
		"Projects/Archive/Kept.md note",
		"Projects/Plan.md note",
		"Tables.base attachment",
		"Upper.MD note",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("files:\n got %q\nwant %q", got, want)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings = %v", warnings)
	}
}

func TestScanSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "Secret.md", "not part of the vault")
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Real/Note.md", "x")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "Secret.md"), filepath.Join(root, "Leak.md")))
	must(os.Symlink(outside, filepath.Join(root, "LeakDir")))
	must(os.Symlink(filepath.Join(root, "Real", "Note.md"), filepath.Join(root, "Alias.md")))
	must(os.Symlink(filepath.Join(root, "Real"), filepath.Join(root, "Loop")))
	must(os.Symlink(filepath.Join(root, "gone.md"), filepath.Join(root, "Dangling.md")))

	files, warnings, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if want := []string{"Alias.md", "Real/Note.md"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths = %q; want %q", paths, want)
	}
	msgs := map[string]string{}
	for _, w := range warnings {
		msgs[w.Path] = w.Message
	}
	if !strings.Contains(msgs["Leak.md"], "outside the vault") || !strings.Contains(msgs["LeakDir"], "outside the vault") {
		t.Errorf("warnings = %v; want the links out of the vault named", warnings)
	}
	if !strings.Contains(msgs["Dangling.md"], "broken symbolic link") {
		t.Errorf("warnings = %v; want the dangling link named", warnings)
	}
}

func TestScanBadInput(t *testing.T) {
	if _, _, err := Scan(context.Background(), filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Fatal("missing root: want an error")
	}
	if _, _, err := Scan(context.Background(), t.TempDir(), []string{"[unclosed"}); err == nil || !strings.Contains(err.Error(), "[unclosed") {
		t.Fatalf("bad glob: err = %v", err)
	}
}

func TestReadNoteTooLarge(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Big.md", strings.Repeat("a", MaxNoteSize+1))
	r, err := OpenRoot(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, info, warn, err := r.ReadNote("Big.md")
	if err != nil || data != nil || !strings.Contains(warn, "limit") || info.Size() != MaxNoteSize+1 {
		t.Fatalf("ReadNote = %d bytes, %q, %v", len(data), warn, err)
	}
}

func TestScanVaultBehindSymlink(t *testing.T) {
	real := t.TempDir()
	if err := os.WriteFile(filepath.Join(real, "Note.md"), []byte("# Note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "vault")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	files, _, err := Scan(context.Background(), link, nil)
	if err != nil || len(files) != 1 || files[0].Path != "Note.md" {
		t.Fatalf("scan through a link = %+v, %v; want Note.md", files, err)
	}
}

func TestLeftOut(t *testing.T) {
	patterns := []string{"Plugins", "Bases/**", "big.md", "Archive/*/old", "Priv\u00e9"}
	for rel, want := range map[string]bool{
		"Note.md":                    false,
		"Plugins/Canvas.md":          true, // a bare folder name at the top
		"Deep/Plugins/Canvas.md":     true, // and at any depth
		"Bases/Formulas.md":          true,
		"Bases":                      true,
		"Sub/big.md":                 true,
		"Archive/2020/old/x.md":      true,
		"Archive/2020/new/x.md":      false,
		".obsidian/workspace.md":     true,
		"Folder/.hidden.md":          true,
		"node_modules/pkg/README.md": true,
		"Pluginsx/Canvas.md":         false,
		"plugins/Canvas.md":          true, // as a case-insensitive disk opens it
		"BASES/Formulas.md":          true,
		"Sub/BIG.md":                 true,
		"Prive\u0301/diary.md":       true, // the name typed decomposed
	} {
		if got := LeftOut(rel, patterns); got != want {
			t.Errorf("LeftOut(%q) = %v; want %v", rel, got, want)
		}
	}
}

// TestScanWarnsOfPathsTooLong: a note at a path longer than MaxPathChars
// is left out of the scan, as every tool's path argument would refuse it,
// and the scan says so rather than losing it without a word.
func TestScanWarnsOfPathsTooLong(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("d", 240)
	dir := filepath.Join(root, long, long, long, long) // 963 characters: the folder is taken
	far := strings.Repeat("f", 60) + "Far.md"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, far), filepath.Join(root, "Near.md")} {
		if err := os.WriteFile(p, []byte("# Note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, warnings, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "Near.md" {
		t.Fatalf("scanned %+v; want Near.md alone", files)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "longer than 1000 characters") || !strings.HasSuffix(warnings[0].Path, "Far.md") {
		t.Fatalf("warnings %+v; want one naming Far.md's path as too long", warnings)
	}
}

// BenchmarkScan lists a generated vault of 10,000 notes in 100 folders:
// the scan alone, one description of each name, as every index run and
// doctor's freshness check begin.
func BenchmarkScan(b *testing.B) {
	root := b.TempDir()
	const notes, folders = 10000, 100
	for i := range notes {
		dir := filepath.Join(root, "folder"+strconv.Itoa(i%folders))
		if i < folders {
			if err := os.Mkdir(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "note"+strconv.Itoa(i)+".md"), []byte("# Note\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	for b.Loop() {
		files, _, err := Scan(ctx, root, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(files) != notes {
			b.Fatalf("scanned %d files; want %d", len(files), notes)
		}
	}
}
