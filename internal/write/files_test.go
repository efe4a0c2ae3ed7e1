package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestMain gives the tests a temporary folder of their own, where the
// vaults' lock files go, and removes it afterwards. A crash test writer
// keeps the folder of the test that runs it.
func TestMain(m *testing.M) {
	if os.Getenv(crashEnv) != "" {
		os.Exit(m.Run())
	}
	tmp, err := os.MkdirTemp("", "jarvis-write-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// writeTree makes the files of tree (vault-relative path to content)
// beneath dir.
func writeTree(t testing.TB, dir string, tree map[string]string) {
	t.Helper()
	for rel, content := range tree {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openTest(t testing.TB, dir string, exclude ...string) *Vault {
	t.Helper()
	v, err := OpenVault(dir, exclude)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// refusalVault is a vault beside a folder outside it, with links to both,
// hidden, excluded and attachment files.
func refusalVault(t *testing.T) (dir, outside string) {
	base := t.TempDir()
	dir, outside = filepath.Join(base, "vault"), filepath.Join(base, "outside")
	writeTree(t, dir, map[string]string{
		"a.md":           "# A\n",
		"sub/b.md":       "# B\n",
		".obsidian/x.md": "settings\n",
		".trash/old.md":  "trashed\n",
		"private/p.md":   "private\n",
		"x.png":          "PNG",
	})
	writeTree(t, outside, map[string]string{"o.md": "outside\n"})
	for link, target := range map[string]string{
		"out":        outside,
		"in":         "sub",
		"link.md":    "a.md",
		"dang.md":    "nothere.md",
		"outlink.md": filepath.Join(outside, "o.md"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symbolic links cannot be made here: %v", err)
		}
	}
	return dir, outside
}

func TestApplyRefusalsLeaveTheVaultAsItWas(t *testing.T) {
	dir, outside := refusalVault(t)
	etagA := ETag([]byte("# A\n"))
	etagB := ETag([]byte("# B\n"))
	etagO := ETag([]byte("outside\n"))
	body := []byte("new\n")
	edit := func(p, before string) FileChange { return FileChange{Path: p, Before: before, After: body} }
	create := func(p string) FileChange { return FileChange{Path: p, After: body} }
	long := strings.Repeat("n", 256) + ".md"
	deep := strings.Repeat("folder/", 150) + "x.md"
	cases := []struct {
		name  string
		files []FileChange
		want  error
	}{
		{"stale etag", []FileChange{edit("a.md", ETag([]byte("# A, as it was\n")))}, ErrStale},
		{"stale etag of a missing note", []FileChange{edit("gone.md", etagA)}, ErrStale},
		{"existing note on create", []FileChange{create("a.md")}, ErrExists},
		{"parent path", []FileChange{create("../x.md")}, ErrNotWritable},
		{"absolute path", []FileChange{create(filepath.Join(outside, "x.md"))}, ErrNotWritable},
		{"climbing path", []FileChange{create("a/../../x.md")}, ErrNotWritable},
		{"dot part", []FileChange{create("./x.md")}, ErrNotWritable},
		{"empty part", []FileChange{create("sub//x.md")}, ErrNotWritable},
		{"windows drive", []FileChange{create("C:/x.md")}, ErrNotWritable},
		{"link to a folder outside, edit", []FileChange{edit("out/o.md", etagO)}, ErrNotWritable},
		{"link to a folder outside, create", []FileChange{create("out/new.md")}, ErrNotWritable},
		{"link to a folder inside", []FileChange{edit("in/b.md", etagB)}, ErrNotWritable},
		{"link to a note inside", []FileChange{edit("link.md", etagA)}, ErrNotWritable},
		{"link to a note outside", []FileChange{edit("outlink.md", etagO)}, ErrNotWritable},
		{"dangling link, create", []FileChange{create("dang.md")}, ErrNotWritable},
		{"link as a move target", []FileChange{{Path: "a.md", Before: etagA, MoveTo: "dang.md"}}, ErrExists},
		{"hidden folder", []FileChange{create(".obsidian/new.md")}, ErrNotWritable},
		{"hidden note", []FileChange{create("sub/.hidden.md")}, ErrNotWritable},
		{"trash", []FileChange{edit(".trash/old.md", ETag([]byte("trashed\n")))}, ErrNotWritable},
		{"git", []FileChange{create(".git/x.md")}, ErrNotWritable},
		{"excluded", []FileChange{create("private/new.md")}, ErrNotWritable},
		{"node_modules", []FileChange{create("node_modules/x.md")}, ErrNotWritable},
		{"attachment", []FileChange{edit("x.png", ETag([]byte("PNG")))}, ErrNotWritable},
		{"attachment, create", []FileChange{create("new.png")}, ErrNotWritable},
		{"no extension", []FileChange{create("note")}, ErrNotWritable},
		{"reserved name", []FileChange{create("CON.md")}, ErrNotWritable},
		{"reserved name, lower case, two extensions", []FileChange{create("sub/aux.txt.md")}, ErrNotWritable},
		{"reserved folder name", []FileChange{create("lpt9/x.md")}, ErrNotWritable},
		{"reserved with trailing space", []FileChange{create("com1 .md")}, ErrNotWritable},
		{"less than", []FileChange{create("a<b.md")}, ErrNotWritable},
		{"greater than", []FileChange{create("a>b.md")}, ErrNotWritable},
		{"colon", []FileChange{create("a:b.md")}, ErrNotWritable},
		{"quote", []FileChange{create(`a"b.md`)}, ErrNotWritable},
		{"backslash", []FileChange{create(`sub\b.md`)}, ErrNotWritable},
		{"pipe", []FileChange{create("a|b.md")}, ErrNotWritable},
		{"question mark", []FileChange{create("why?.md")}, ErrNotWritable},
		{"star", []FileChange{create("a*.md")}, ErrNotWritable},
		{"control character", []FileChange{create("a\tb.md")}, ErrNotWritable},
		{"NUL", []FileChange{create("a\x00b.md")}, ErrNotWritable},
		{"trailing dot", []FileChange{create("folder./x.md")}, ErrNotWritable},
		{"trailing space", []FileChange{create("folder /x.md")}, ErrNotWritable},
		{"not UTF-8", []FileChange{create("caf\xe9.md")}, ErrNotWritable},
		{"name too long", []FileChange{create(long)}, ErrNotWritable},
		{"path too long", []FileChange{create(deep)}, ErrNotWritable},
		{"too large", []FileChange{create("big.md")}, ErrTooLarge},
		{"move to an existing note", []FileChange{{Path: "a.md", Before: etagA, MoveTo: "sub/b.md"}}, ErrExists},
		{"move, stale", []FileChange{{Path: "a.md", Before: etagB, MoveTo: "c.md"}}, ErrStale},
		{"move out", []FileChange{{Path: "a.md", Before: etagA, MoveTo: "../a.md"}}, ErrNotWritable},
		{"move into the trash", []FileChange{{Path: "a.md", Before: etagA, MoveTo: ".trash/a.md"}}, ErrNotWritable},
		{"delete, stale", []FileChange{{Path: "a.md", Before: etagB, Delete: true}}, ErrStale},
		{"second file stale", []FileChange{edit("a.md", etagA), create("new/c.md"), edit("sub/b.md", etagA)}, ErrStale},
		{"second file outside", []FileChange{edit("a.md", etagA), create("out/c.md")}, ErrNotWritable},
	}
	v := openTest(t, dir, "private")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := tc.files
			if tc.want == ErrTooLarge {
				files = []FileChange{{Path: "big.md", After: bytes.Repeat([]byte("x"), vault.MaxNoteSize+1)}}
			}
			before, beforeOut := sharedtest.TreeHash(t, dir), sharedtest.TreeHash(t, outside)
			_, err := v.Apply(context.Background(), Change{Tool: "test", Files: files})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Apply = %v, want %v", err, tc.want)
			}
			if sharedtest.TreeHash(t, dir) != before || sharedtest.TreeHash(t, outside) != beforeOut {
				t.Fatalf("a refused change (%v) changed the files", err)
			}
		})
	}
}

func TestCheckPathSaysWhy(t *testing.T) {
	cases := map[string]string{
		"../x.md":        `climbs out`,
		"/x.md":          "absolute path",
		".trash/x.md":    "trash",
		".obsidian/x.md": "settings",
		"a/.git/x.md":    `starts with "."`,
		"x.png":          "not a Markdown note",
		"x":              `"x.md"`,
		"nul.md":         "reserved on Windows",
		"a?.md":          `'?'`,
		"a./b.md":        "ends with a dot or a space",
		"private/x.md":   "left out of the vault",
	}
	for rel, want := range cases {
		err := CheckPath(rel, []string{"private"})
		if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPath(%q) = %v, want ErrNotWritable saying %q", rel, err, want)
		}
	}
	for _, rel := range []string{"a.md", "Projects/Plan.MD", "Été/Café notes.md", "a.b.md", "com10.md", "console.md", "x/y/z.md"} {
		if err := CheckPath(rel, []string{"private"}); err != nil {
			t.Errorf("CheckPath(%q) = %v, want nil", rel, err)
		}
	}
}

func TestCheckPathNamesTheRuleThatLeavesItOut(t *testing.T) {
	exclude := []string{"Drafts/**", vault.ObsidianPattern("Archive/"), vault.ObsidianPattern("Templates/")}
	for rel, want := range map[string]string{
		"Archive/Nouvelle idée.md": `"Archive/Nouvelle idée.md" is left out of the vault because of Obsidian's excluded files ("Archive/", in .obsidian/app.json)`,
		"Drafts/x.md":              `"Drafts/x.md" is left out of the vault because of the vault's exclude pattern "Drafts/**" (in the config file)`,
		"web/node_modules/x.md":    `"web/node_modules/x.md" is left out of the vault because of the node_modules folder "web/node_modules"`,
	} {
		err := CheckPath(rel, exclude)
		if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), want+": jarvis does not write what it does not index; choose a path elsewhere") {
			t.Errorf("CheckPath(%q) = %v, want ErrNotWritable saying %s", rel, err, want)
		}
	}
}

func TestApplyWritesBytesExactlyAndKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "\ufeff# A\r\nold\r\n"})
	if err := os.Chmod(filepath.Join(dir, "a.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := openTest(t, dir)
	ctx := context.Background()
	data, tag, err := v.Read(ctx, "a.md")
	if err != nil || tag != ETag(data) || string(data) != "\ufeff# A\r\nold\r\n" {
		t.Fatalf("Read = %q, %q, %v", data, tag, err)
	}
	after := []byte("\ufeff# A\r\nnew\r\nmixed\n\r\n")
	got, err := v.Apply(ctx, Change{Files: []FileChange{{Path: "a.md", Before: tag, After: after}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (AppliedFile{Path: "a.md", Final: "a.md", Previous: data, ETag: ETag(after)}); !sameApplied(got.Files[0], want) {
		t.Errorf("Applied = %+v, want %+v", got.Files[0], want)
	}
	if b := readFile(t, filepath.Join(dir, "a.md")); !bytes.Equal(b, after) {
		t.Errorf("note holds %q, want %q", b, after)
	}
	if runtime.GOOS != "windows" {
		if info, _ := os.Stat(filepath.Join(dir, "a.md")); info.Mode().Perm() != 0o600 {
			t.Errorf("note's permissions became %v, want 0600", info.Mode().Perm())
		}
	}

	// A new note gets 0644 less the umask, as any file the user makes.
	if _, err := v.Apply(ctx, Change{Files: []FileChange{{Path: "n/new.md", After: []byte{}}}}); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	refInfo, _ := os.Stat(ref)
	if info, _ := os.Stat(filepath.Join(dir, "n", "new.md")); info.Mode().Perm() != refInfo.Mode().Perm() || info.Size() != 0 {
		t.Errorf("new note has %v, %d bytes, want %v, empty", info.Mode().Perm(), info.Size(), refInfo.Mode().Perm())
	}
	assertNoTemp(t, dir)
}

func TestReadRefusesWhatCannotBeWritten(t *testing.T) {
	dir, _ := refusalVault(t)
	v := openTest(t, dir)
	ctx := context.Background()
	if data, tag, err := v.Read(ctx, "sub/b.md"); err != nil || string(data) != "# B\n" || tag != ETag([]byte("# B\n")) {
		t.Errorf("Read(sub/b.md) = %q, %q, %v", data, tag, err)
	}
	for _, rel := range []string{"link.md", "in/b.md", "out/o.md", ".trash/old.md", "x.png"} {
		if _, _, err := v.Read(ctx, rel); !errors.Is(err, ErrNotWritable) {
			t.Errorf("Read(%q) = %v, want ErrNotWritable", rel, err)
		}
	}
	if _, _, err := v.Read(ctx, "missing/note.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing note = %v, want fs.ErrNotExist", err)
	}
}

func sameApplied(a, b AppliedFile) bool {
	return a.Path == b.Path && a.Final == b.Final && a.ETag == b.ETag && bytes.Equal(a.Previous, b.Previous) && (a.Previous == nil) == (b.Previous == nil)
}

// assertNoTemp fails when a temporary file is left beneath dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestApplyDeleteMovesToTheTrash(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a1", "sub/b.md": "b", ".trash/sub/b.md": "older b"})
	v := openTest(t, dir)
	ctx := context.Background()
	del := func(p, content string) AppliedFile {
		t.Helper()
		got, err := v.Apply(ctx, Change{Files: []FileChange{{Path: p, Before: ETag([]byte(content)), Delete: true}}})
		if err != nil {
			t.Fatal(err)
		}
		return got.Files[0]
	}
	if got := del("a.md", "a1"); got.Final != ".trash/a.md" || string(got.Previous) != "a1" || got.ETag != ETag([]byte("a1")) {
		t.Errorf("delete a.md: %+v", got)
	}
	writeTree(t, dir, map[string]string{"a.md": "a2"})
	if got := del("a.md", "a2"); got.Final != ".trash/a 1.md" {
		t.Errorf("second delete of a.md went to %q, want \".trash/a 1.md\"", got.Final)
	}
	if got := del("sub/b.md", "b"); got.Final != ".trash/sub/b 1.md" {
		t.Errorf("delete of sub/b.md went to %q", got.Final)
	}
	for p, want := range map[string]string{".trash/a.md": "a1", ".trash/a 1.md": "a2", ".trash/sub/b.md": "older b", ".trash/sub/b 1.md": "b"} {
		if b := readFile(t, filepath.Join(dir, filepath.FromSlash(p))); string(b) != want {
			t.Errorf("%s holds %q, want %q", p, b, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "a.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a.md still there after its delete: %v", err)
	}
}

func TestApplyMoveMakesFolders(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a", "b.md": "b"})
	v := openTest(t, dir)
	got, err := v.Apply(context.Background(), Change{Files: []FileChange{
		{Path: "a.md", Before: ETag([]byte("a")), MoveTo: "x/y/a.md"},
		{Path: "b.md", Before: ETag([]byte("b")), MoveTo: "x/b2.md", After: []byte("b, linked anew")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Files[0].Final != "x/y/a.md" || got.Files[1].Final != "x/b2.md" || got.Files[1].ETag != ETag([]byte("b, linked anew")) {
		t.Errorf("Applied = %+v", got)
	}
	if string(readFile(t, filepath.Join(dir, "x/y/a.md"))) != "a" || string(readFile(t, filepath.Join(dir, "x/b2.md"))) != "b, linked anew" {
		t.Error("moved files do not hold what they should")
	}
	for _, gone := range []string{"a.md", "b.md"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there after its move", gone)
		}
	}
	assertNoTemp(t, dir)
}

// TestApplyFailureMidwayPutsEverythingBack fails each file of a change of
// every kind in turn, as a failed rename would, and wants the vault as
// it was, files already changed put back and folders made removed.
func TestApplyFailureMidwayPutsEverythingBack(t *testing.T) {
	tree := map[string]string{"a.md": "a\r\n", "m.md": "m", "d.md": "d", "sub/b.md": "b"}
	files := []FileChange{
		{Path: "a.md", Before: ETag([]byte("a\r\n")), After: []byte("a2")},
		{Path: "n/new.md", After: []byte("new")},
		{Path: "m.md", Before: ETag([]byte("m")), MoveTo: "moved/m.md"},
		{Path: "d.md", Before: ETag([]byte("d")), Delete: true},
		{Path: "sub/b.md", Before: ETag([]byte("b")), MoveTo: "b2.md", After: []byte("b2")},
		{Path: "sub/c.md", After: []byte("c")},
	}
	for fail := range files {
		t.Run(fmt.Sprint(fail), func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tree)
			if err := os.Chmod(filepath.Join(dir, "a.md"), 0o640); err != nil {
				t.Fatal(err)
			}
			v := openTest(t, dir)
			boom := errors.New("disk full")
			v.beforeCommit = func(i int) error {
				if i == fail {
					return boom
				}
				return nil
			}
			before := sharedtest.TreeHash(t, dir)
			_, err := v.Apply(context.Background(), Change{Files: files})
			if !errors.Is(err, boom) {
				t.Fatalf("Apply = %v, want the failure", err)
			}
			if sharedtest.TreeHash(t, dir) != before {
				t.Error("the vault is not as it was after a failed change")
			}
			v.beforeCommit = nil
			if _, err := v.Apply(context.Background(), Change{Files: files}); err != nil {
				t.Fatalf("the same change afterwards: %v", err)
			}
		})
	}
}

func TestApplySameETagExactlyOneWins(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "0"})
	// Two Vaults on one folder, as two processes would have: the lock
	// between processes holds them apart, not the Vault's own mutex.
	vaults := []*Vault{openTest(t, dir), openTest(t, dir), openTest(t, dir)}
	for round := range 30 {
		before := ETag(readFile(t, filepath.Join(dir, "a.md")))
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for w := range errs {
			wg.Go(func() {
				_, errs[w] = vaults[w%len(vaults)].Apply(context.Background(), Change{Files: []FileChange{
					{Path: "a.md", Before: before, After: fmt.Appendf(nil, "round %d writer %d", round, w)},
				}})
			})
		}
		wg.Wait()
		var won []int
		for w, err := range errs {
			switch {
			case err == nil:
				won = append(won, w)
			case !errors.Is(err, ErrStale):
				t.Fatalf("writer %d: %v", w, err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: writers %v won, want exactly one", round, won)
		}
		if got, want := string(readFile(t, filepath.Join(dir, "a.md"))), fmt.Sprintf("round %d writer %d", round, won[0]); got != want {
			t.Fatalf("note holds %q, want the winner's %q", got, want)
		}
	}
}

func TestApplyRefusesAFileChangedBeforeItsRename(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a", "b.md": "b"})
	v := openTest(t, dir)
	// Another program (Obsidian) writes b.md after the checks, before its
	// rename: its bytes are kept and a.md is put back.
	v.beforeCommit = func(i int) error {
		if i == 1 {
			return os.WriteFile(filepath.Join(dir, "b.md"), []byte("b from Obsidian"), 0o644)
		}
		return nil
	}
	_, err := v.Apply(context.Background(), Change{Files: []FileChange{
		{Path: "a.md", Before: ETag([]byte("a")), After: []byte("a2")},
		{Path: "b.md", Before: ETag([]byte("b")), After: []byte("b2")},
	}})
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), `"b.md"`) {
		t.Fatalf("Apply = %v, want ErrStale naming b.md", err)
	}
	if a, b := readFile(t, filepath.Join(dir, "a.md")), readFile(t, filepath.Join(dir, "b.md")); string(a) != "a" || string(b) != "b from Obsidian" {
		t.Errorf("a.md = %q, b.md = %q", a, b)
	}
	assertNoTemp(t, dir)
}

func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a.md", "../a.md", "a/../../x.md", "/etc/x.md", `C:\x.md`, "x/./y.md", ".trash/a.md", "CON.md", "a:b.md", "é/ü.md", "a//b.md", "..md", "...md", "a/..", "node_modules/x.md"} {
		f.Add(s)
	}
	base := filepath.Join(os.TempDir(), "vault")
	f.Fuzz(func(t *testing.T, rel string) {
		if CheckPath(rel, []string{"private/**"}) != nil {
			return
		}
		joined := filepath.Join(base, filepath.FromSlash(rel))
		inside, err := filepath.Rel(base, joined)
		if err != nil || !filepath.IsLocal(inside) || filepath.ToSlash(inside) != rel {
			t.Fatalf("CheckPath accepts %q, which joins to %q, not beneath the vault as written", rel, joined)
		}
		if !vault.IsNote(rel) || vault.LeftOut(rel, []string{"private/**"}) || path.Clean(rel) != rel {
			t.Fatalf("CheckPath accepts %q, which is not a note the vault shows", rel)
		}
	})
}

// TestDriveLikeNameSaysColon: "a:b.md" is refused for its ':', which
// Windows reads as a drive, not called an absolute path.
func TestDriveLikeNameSaysColon(t *testing.T) {
	err := CheckPath("a:b.md", nil)
	if err == nil || !strings.Contains(err.Error(), "holds ':'") || strings.Contains(err.Error(), "absolute") {
		t.Fatalf("a:b.md: %v", err)
	}
}

func TestIsETag(t *testing.T) {
	if !IsETag(ETag([]byte("x"))) || IsETag("abc") || IsETag(strings.Repeat("G", 32)) || IsETag("") {
		t.Fatal("IsETag does not tell jarvis's etags from others")
	}
}
