package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestListVaultsFoldersAndTags indexes a vault of 48 folders and 47 tags
// and checks what list-vaults says of them: note counts (subfolders and
// case variants included, a note counted once), the top level before the
// next and the fullest first, the tags most used first, and the 40 of each
// it keeps, with how many more there are.
func TestListVaultsFoldersAndTags(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("root.md", "At the root, #common\n")
	write("A/a1.md", "---\ntags: [Common]\n---\nFirst #common again\n")
	write("A/Sub/s1.md", "Under A #common\n")
	write("A/Sub/s2.md", "Also under A #rare\n")
	write("B/b1.md", "In B\n")
	write("B/picture.png", "not a note")
	for i := range 44 {
		write(fmt.Sprintf("F%02d/n.md", i), fmt.Sprintf("A note #t%02d\n", i))
	}
	v := config.Vault{Name: "outline", Path: dir}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))

	var out mcp.ListVaultsOutput
	text, isErr := call(t, cs, mcp.ToolListVaults, nil, &out)
	if isErr || len(out.Vaults) != 1 {
		t.Fatalf("list-vaults: %s", text)
	}
	got := out.Vaults[0]
	// The text names the embedder as a reader knows it; the structured
	// answer keeps the fingerprint scripts compare.
	if got.Embedder == "" || !strings.Contains(text, "embedder "+embed.DisplayName(got.Embedder)) || strings.Contains(text, got.Embedder) {
		t.Errorf("list-vaults text names the embedder %q as:\n%s", got.Embedder, text)
	}

	// 47 folders: A/, B/, F00/ to F43/ at the top and A/Sub/ below.
	if len(got.Folders) != 40 || got.MoreFolders != 7 {
		t.Fatalf("%d folders and %d more, want 40 and 7: %+v", len(got.Folders), got.MoreFolders, got.Folders)
	}
	want := []mcp.FolderItem{{Path: "A/", Notes: 3}, {Path: "B/", Notes: 1}, {Path: "F00/", Notes: 1}, {Path: "F01/", Notes: 1}}
	for i, w := range want {
		if got.Folders[i] != w {
			t.Errorf("folder %d is %+v, want %+v", i, got.Folders[i], w)
		}
	}
	if last := got.Folders[39]; last.Path != "F37/" {
		t.Errorf("last folder kept is %+v, want F37/: the top level comes before A/Sub/", last)
	}

	// 46 tags: common (3 notes, one tagging it twice, one as Common),
	// rare, and t00 to t43.
	if len(got.Tags) != 40 || got.MoreTags != 6 {
		t.Fatalf("%d tags and %d more, want 40 and 6: %+v", len(got.Tags), got.MoreTags, got.Tags)
	}
	if tg := got.Tags[0]; !strings.EqualFold(tg.Tag, "common") || tg.Notes != 3 {
		t.Errorf("first tag %+v, want common in 3 notes", tg)
	}
	if tg := got.Tags[1]; tg.Tag != "rare" || tg.Notes != 1 {
		t.Errorf("second tag %+v, want rare in 1 note", tg)
	}
	for _, w := range []string{"folders (notes): `A/` 3, `B/` 1,", "; 7 more folders\n", "tags (notes): #", " 3, #rare 1,", "; 6 more tags\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

// TestListVaultsFoldersInOrderOfNotes: the folders shown are in order of
// how many notes they hold, then of path, a subfolder among the rest; a
// folder whose notes all lie in one subfolder is given as that subfolder.
func TestListVaultsFoldersInOrderOfNotes(t *testing.T) {
	v := config.Vault{Name: "order", Path: t.TempDir()}
	for _, rel := range []string{"Linking/a.md", "Linking/b.md", "Linking/c.md", "Bases/Layouts/a.md", "Bases/Layouts/b.md", "Bases/Layouts/c.md", "Bases/Layouts/d.md", "Bases/e.md", "Zed/Old/a.md"} {
		sharedtest.WriteFile(t, v.Path, rel, "# Note\n")
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolListVaults, nil, nil)
	if want := "folders (notes): `Bases/` 5, `Bases/Layouts/` 4, `Linking/` 3, `Zed/Old/` 1\n"; isErr || !strings.Contains(text, want) {
		t.Errorf("list-vaults: %v %q; want %q", isErr, text, want)
	}
}

// TestListVaultsLeavesOutWhatItCouldNotCount: when the index cannot be
// read, list-vaults counts notes and attachments on disk and says that
// links and passages were not counted, rather than printing them as 0.
func TestListVaultsLeavesOutWhatItCouldNotCount(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, &fake{Vaults: []config.Vault{v}, Stats: func(context.Context) ([]index.VaultStats, error) {
		return nil, errors.New("database disk image is malformed")
	}})
	var out mcp.ListVaultsOutput
	text, isErr := call(t, cs, mcp.ToolListVaults, nil, &out)
	if isErr || len(out.Vaults) != 1 {
		t.Fatalf("list-vaults: %s", text)
	}
	got := out.Vaults[0]
	if got.Notes == 0 || strings.Join(got.NotCounted, ",") != "links,passages" {
		t.Errorf("vault %+v; want notes counted on disk, links and passages not counted", got)
	}
	if strings.Contains(text, "0 links") || strings.Contains(text, "unresolved") ||
		!strings.Contains(text, "(links and passages not counted)") {
		t.Errorf("list-vaults prints counts it could not read:\n%s", text)
	}
}

// TestListVaultsSaysWhatIsLeftOut: list-vaults names a vault's exclude
// patterns and Obsidian's excluded files, as written, where doctor's
// vault check names them.
func TestListVaultsSaysWhatIsLeftOut(t *testing.T) {
	v := exampleVault(t)
	v.Exclude = []string{"Archive/**", vault.ObsidianPattern("Templates/")}
	cs := connect(t, &fake{Vaults: []config.Vault{v}})
	var out mcp.ListVaultsOutput
	text, isErr := call(t, cs, mcp.ToolListVaults, nil, &out)
	if isErr || len(out.Vaults) != 1 {
		t.Fatalf("list-vaults: %s", text)
	}
	const want = `exclude pattern "Archive/**" and Obsidian's excluded files "Templates/"`
	if out.Vaults[0].LeftOut != want || !strings.Contains(text, "; with "+want) {
		t.Errorf("list-vaults says %q:\n%s", out.Vaults[0].LeftOut, text)
	}
}
