package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// The expectations below come from reading the notes of the Obsidian Help
// vault (github.com/obsidianmd/obsidian-help at fa179e91), not from running
// jarvis on them.
func TestObsidianHelpEnglish(t *testing.T) {
	root := sharedtest.Path(t, "vaults/obsidian-help/en")
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	res := mustIndex(t, ix, "en", root)

	if res.Notes != 173 || res.Attachments != 134 || res.Added != 173 || res.Warnings != 0 {
		t.Fatalf("result = %+v; want 173 notes, 134 attachments, all added, no warnings", res)
	}
	db := ix.db.(*store.DB).DB

	const (
		internal = "Linking notes and files/Internal links.md"
		embed    = "Linking notes and files/Embed files.md"
		aliases  = "Linking notes and files/Aliases.md"
	)
	tests := []struct {
		name                  string
		source                string
		line                  int
		kind, target, subpath string
		want                  string
	}{
		{"plain wikilink", internal, 17, "link", "Settings", "", "User interface/Settings.md"},
		{"heading link with display text", internal, 17, "link", "Settings", "Files and links", "User interface/Settings.md"},
		{"file name differs in case", internal, 61, "link", "Embed Files", "", embed},
		{"block embed", internal, 57, "embed", "Quick switcher", "^search-autocomplete-large", "Plugins/Quick switcher.md"},
		{"same-note heading", internal, 74, "link", "", "Preview a linked file", internal},
		{"nested heading", internal, 86, "link", "Help and support", "Questions and advice#Report bugs and request features", "Help and support.md"},
		{"image embed with a fragment", internal, 96, "embed", "internal-links-header.png", "interface", "Attachments/internal-links-header.png"},
		{"link inside a callout", internal, 178, "link", "Aliases", "", aliases},
		{"block embed from another note", embed, 34, "embed", "Internal links", "^b15695", internal},
		{"heading link with alias text", embed, 26, "link", "Internal links", "Link to a heading in a note", internal},
		{"audio embed with parentheses", embed, 72, "embed", "Excerpt from Mother of All Demos (1968).ogg", "", "Attachments/audio/Excerpt from Mother of All Demos (1968).ogg"},
		{"heading embed", embed, 125, "embed", "Search", "Embed search results in a note", "Plugins/Search.md"},
		{"callout block embed", aliases, 17, "embed", "Internal links", "^callout-internal-links-link-text", internal},
		{"display alias", "Help and support.md", 80, "link", "Commercial license", "", "Teams/Commercial license.md"},
		{"unresolved note", internal, 154, "link", "Example", "", ""},
		{"unresolved markdown link", internal, 169, "markdown", "Example.md", "Details", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := linkTarget(t, db, tt.source, tt.line, tt.kind, tt.target, tt.subpath); got != tt.want {
				t.Fatalf("resolves to %q; want %q", got, tt.want)
			}
		})
	}

	// What is shown in code is not a link: line 24 of Internal links shows
	// both syntaxes between backticks, and Embed files line 29 is inside a
	// fenced block.
	for _, c := range []struct {
		source string
		line   int
	}{{internal, 24}, {internal, 28}, {embed, 22}, {embed, 29}, {embed, 79}, {embed, 99}} {
		var n int
		db.QueryRow(`SELECT count(*) FROM links l JOIN files s ON s.id = l.source_id WHERE s.path = ? AND l.line = ?`, c.source, c.line).Scan(&n)
		if n != 0 {
			t.Errorf("%s line %d: %d links found in code; want 0", c.source, c.line, n)
		}
	}

	// The block ids of Internal links: the paragraph id on line 13 and the
	// callout id on line 179; the ids on lines 107, 115, 125 and 143 are
	// examples inside code blocks.
	var blocks []string
	rows, _ := db.Query(`SELECT b.block_id || ':' || b.line FROM blocks b JOIN files f ON f.id = b.file_id WHERE f.path = ? ORDER BY b.line`, internal)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		blocks = append(blocks, s)
	}
	rows.Close()
	if want := []string{"b15695:13", "callout-internal-links-link-text:179"}; !reflect.DeepEqual(blocks, want) {
		t.Errorf("blocks = %v; want %v", blocks, want)
	}

	// Every unresolved link: the Example note that the help text invents,
	// and two embeds of files left out of the vault copy.
	g := graph.New(db)
	un, err := g.UnresolvedTargets(context.Background(), "en", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range un {
		got = append(got, u.Target+"×"+strconv.Itoa(u.Count))
	}
	want := []string{"Example×4", "Example.md×2", "bases-map-places.png×1", "obsidian-cli.mp4×1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unresolved = %v; want %v", got, want)
	}
	if res.UnresolvedLinks != 8 {
		t.Errorf("unresolved_links = %d; want 8", res.UnresolvedLinks)
	}

	// Aliases from a frontmatter list.
	var al []string
	rows, _ = db.Query(`SELECT a.alias FROM aliases a JOIN files f ON f.id = a.file_id WHERE f.path = ? ORDER BY a.rowid`, internal)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		al = append(al, s)
	}
	rows.Close()
	if want := []string{"How to/Internal link", "How to/Link to blocks"}; !reflect.DeepEqual(al, want) {
		t.Errorf("aliases = %v; want %v", al, want)
	}
}

func TestIncremental(t *testing.T) {
	src := sharedtest.Path(t, "vaults/obsidian-help/en")
	root := t.TempDir()
	copyTree(t, src, root)
	ix, parsed := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	db := ix.db.(*store.DB).DB

	first := mustIndex(t, ix, "en", root)
	if first.Added != 173 || first.AttachmentChanges.Added != 134 || parsed.Load() != 173 {
		t.Fatalf("first run: %+v, %d parsed", first, parsed.Load())
	}

	t.Run("no change", func(t *testing.T) {
		parsed.Store(0)
		res := mustIndex(t, ix, "en", root)
		if res.Unchanged != 173 || res.AttachmentChanges.Unchanged != 134 || res.Added+res.Updated+res.Deleted != 0 || parsed.Load() != 0 {
			t.Fatalf("%+v, %d parsed; want 173 unchanged and nothing parsed", res, parsed.Load())
		}
	})

	t.Run("edit one note", func(t *testing.T) {
		p := filepath.Join(root, "Home.md")
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(data, "\nA new line linking [[Aliases]].\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		parsed.Store(0)
		res := mustIndex(t, ix, "en", root)
		if res.Updated != 1 || res.Unchanged != 172 || res.Added+res.Deleted != 0 || parsed.Load() != 1 {
			t.Fatalf("%+v, %d parsed; want exactly one updated", res, parsed.Load())
		}
		lines := strings.Count(string(data), "\n") + 2
		if got := linkTarget(t, db, "Home.md", lines, "link", "Aliases", ""); got != "Linking notes and files/Aliases.md" {
			t.Fatalf("new link resolves to %q", got)
		}
	})

	t.Run("touch without change", func(t *testing.T) {
		p := filepath.Join(root, "Help and support.md")
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
		parsed.Store(0)
		res := mustIndex(t, ix, "en", root)
		if res.Unchanged != 173 || res.Updated != 0 || parsed.Load() != 0 {
			t.Fatalf("%+v, %d parsed; want nothing re-parsed", res, parsed.Load())
		}
		// The new mtime is stored: the next run does not even read it.
		before := dump(t, db)
		res = mustIndex(t, ix, "en", root)
		if res.Unchanged != 173 || dump(t, db) != before {
			t.Fatalf("second run after touch changed something: %+v", res)
		}
	})

	t.Run("delete a note", func(t *testing.T) {
		g := graph.New(db)
		back, err := g.Backlinks(context.Background(), "en", "User interface/Settings.md")
		if err != nil {
			t.Fatal(err)
		}
		if len(back) < 10 {
			t.Fatalf("Settings has %d backlinks; the vault links it from many notes", len(back))
		}
		before := mustIndex(t, ix, "en", root).UnresolvedLinks
		if err := os.Remove(filepath.Join(root, "User interface", "Settings.md")); err != nil {
			t.Fatal(err)
		}
		res := mustIndex(t, ix, "en", root)
		if res.Deleted != 1 || res.Notes != 172 {
			t.Fatalf("%+v; want one deleted", res)
		}
		// Links from Settings itself are gone with it; links to it now lead
		// nowhere but keep their text.
		self := 0
		for _, e := range back {
			if e.Source == "User interface/Settings.md" {
				self++
			}
		}
		if want := before + len(back) - self; res.UnresolvedLinks != want {
			t.Fatalf("unresolved = %d; want %d (%d before + %d backlinks - %d from itself)", res.UnresolvedLinks, want, before, len(back), self)
		}
		if got := linkTarget(t, db, "Linking notes and files/Internal links.md", 17, "link", "Settings", "Files and links"); got != "" {
			t.Fatalf("link to the deleted note resolves to %q", got)
		}
	})

	t.Run("a new note takes over links", func(t *testing.T) {
		// A note named Settings appears again, in another folder: the links
		// that lost their target find it without their notes changing.
		if err := os.WriteFile(filepath.Join(root, "Settings.md"), []byte("# Settings\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		parsed.Store(0)
		res := mustIndex(t, ix, "en", root)
		if res.Added != 1 || parsed.Load() != 1 {
			t.Fatalf("%+v, %d parsed", res, parsed.Load())
		}
		if got := linkTarget(t, db, "Linking notes and files/Internal links.md", 17, "link", "Settings", "Files and links"); got != "Settings.md" {
			t.Fatalf("resolves to %q; want Settings.md", got)
		}
	})

	t.Run("rename keeps links resolved", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(root, "Archive"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(root, "Plugins", "Command palette.md"), filepath.Join(root, "Archive", "Command palette.md")); err != nil {
			t.Fatal(err)
		}
		res := mustIndex(t, ix, "en", root)
		if res.Added != 1 || res.Deleted != 1 {
			t.Fatalf("%+v; want one added and one deleted", res)
		}
		if got := linkTarget(t, db, "Linking notes and files/Internal links.md", 55, "link", "Command palette", ""); got != "Archive/Command palette.md" {
			t.Fatalf("resolves to %q after the rename", got)
		}
	})

	t.Run("same result as a fresh index", func(t *testing.T) {
		fresh, _ := testIndexer(t, filepath.Join(t.TempDir(), "fresh.db"))
		mustIndex(t, fresh, "en", root)
		if a, b := dump(t, db), dump(t, fresh.db.(*store.DB).DB); a != b {
			t.Fatalf("incremental index differs from a fresh one:\n%s", firstDiff(a, b))
		}
	})
}

// firstDiff shows the first differing line of two dumps.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  " + al[i] + "\n  " + bl[i]
		}
	}
	return "lengths differ: " + strconv.Itoa(len(al)) + " vs " + strconv.Itoa(len(bl))
}

// TestWholeHelpVault indexes every language and the release notes: nothing
// crashes, and titles, headings and tags in non-Latin scripts come out as
// they are written.
func TestWholeHelpVault(t *testing.T) {
	root := sharedtest.Path(t, "vaults/obsidian-help")
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	res := mustIndex(t, ix, "help", root)
	var mdCount int
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			mdCount++
		}
		return nil
	})
	if res.Notes != mdCount || res.Notes < 1400 {
		t.Fatalf("notes = %d; want all %d", res.Notes, mdCount)
	}
	db := ix.db.(*store.DB).DB

	// Each script: a note's title as its file name, a heading and a tag as
	// written in the file.
	cases := []struct {
		lang, dir string
	}{{"zh", "zh"}, {"ja", "ja"}, {"ru", "ru"}, {"ar", "ar"}}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			checked := 0
			filepath.WalkDir(filepath.Join(root, c.dir), func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || checked >= 20 {
					return nil
				}
				rel, _ := filepath.Rel(root, p)
				rel = filepath.ToSlash(rel)
				raw, _ := os.ReadFile(p)
				heading := firstATXHeading(string(raw))
				if heading == "" {
					return nil
				}
				var n int
				db.QueryRow(`SELECT count(*) FROM headings h JOIN files f ON f.id = h.file_id WHERE f.path = ? AND h.text = ?`, rel, heading).Scan(&n)
				if n == 0 {
					t.Errorf("%s: heading %q not found intact", rel, heading)
				}
				checked++
				return nil
			})
			if checked == 0 {
				t.Fatalf("no %s note with a heading checked", c.lang)
			}
		})
	}

	// Specific notes, read by hand.
	titles := map[string]string{
		"zh/链接笔记与文件/内部链接.md":       "内部链接",
		"ja/ノートとファイルのリンク/内部リンク.md": "内部リンク",
	}
	for p, want := range titles {
		var got string
		if err := db.QueryRow(`SELECT title FROM files WHERE path = ?`, p).Scan(&got); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got != want {
			t.Errorf("%s: title %q; want %q", p, got, want)
		}
	}
	var tags []string
	rows, _ := db.Query(`SELECT DISTINCT t.tag FROM tags t JOIN files f ON f.id = t.file_id WHERE f.path LIKE 'ru/%' OR f.path LIKE 'zh/%' OR f.path LIKE 'ja/%' OR f.path LIKE 'ar/%'`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		tags = append(tags, s)
	}
	rows.Close()
	sort.Strings(tags)
	nonLatin := 0
	for _, tg := range tags {
		for _, r := range tg {
			if r > 0x3ff {
				nonLatin++
				break
			}
		}
	}
	if nonLatin == 0 {
		t.Errorf("no non-Latin tag found among %d tags of ru/zh/ja/ar: %v", len(tags), tags)
	}
}

// firstATXHeading is the text of the first "# " to "###### " line outside
// fenced code and frontmatter.
func firstATXHeading(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	i := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i = 1; i < len(lines) && strings.TrimSpace(lines[i]) != "---"; i++ {
		}
		i++
	}
	fence := false
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		trimmed := strings.TrimLeft(l, "#")
		level := len(l) - len(trimmed)
		if level >= 1 && level <= 6 && strings.HasPrefix(trimmed, " ") {
			return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed), "#"))
		}
	}
	return ""
}

// TestNewParserReadsEveryNoteAgain: notes read by another version of the
// parser are read again on the next run, changed or not, and only once.
func TestNewParserReadsEveryNoteAgain(t *testing.T) {
	root := exampleVault(t)
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	mustIndex(t, ix, "coffee", root)
	if _, err := ix.db.(*store.DB).Exec(`UPDATE vaults SET parser = '1'`); err != nil {
		t.Fatal(err)
	}
	if res := mustIndex(t, ix, "coffee", root); res.Updated != 17 || res.Unchanged != 0 {
		t.Fatalf("after a parser change: %+v; want all 17 notes read again", res)
	}
	var parser string
	if err := ix.db.(*store.DB).QueryRow(`SELECT parser FROM vaults`).Scan(&parser); err != nil || parser != vault.ParserVersion {
		t.Fatalf("parser = %q, %v; want %q", parser, err, vault.ParserVersion)
	}
	if res := mustIndex(t, ix, "coffee", root); res.Unchanged != 17 {
		t.Fatalf("third run: %+v; want all unchanged", res)
	}
}

// TestTwoIndexersOnOneDatabase runs two index runs at once through two
// handles on one database, as two MCP servers started by two clients do,
// while notes are renamed under them: both finish without error and the
// database ends as one run alone would leave it.
func TestTwoIndexersOnOneDatabase(t *testing.T) {
	root := filepath.Join(t.TempDir(), "en")
	copyTree(t, sharedtest.Path(t, "vaults/obsidian-help/en"), root)
	path := filepath.Join(t.TempDir(), "j.db")
	a, _ := testIndexer(t, path)
	b, _ := testIndexer(t, path)
	mustIndex(t, a, "en", root)
	// Rename every note of one folder: each run sees new paths to insert.
	plugins := filepath.Join(root, "Plugins")
	entries, err := os.ReadDir(plugins)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			if err := os.Rename(filepath.Join(plugins, e.Name()), filepath.Join(plugins, "Renamed "+e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	errs := make(chan error, 2)
	for _, ix := range []*Indexer{a, b} {
		go func() {
			_, err := ix.Index(context.Background(), config.Vault{Name: "en", Path: root}, nil)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent run: %v", err)
		}
	}
	res := mustIndex(t, a, "en", root)
	if res.Notes != 173 || res.Unchanged != 173 {
		t.Fatalf("after both runs: %+v; want 173 notes, all unchanged", res)
	}
}

// TestForgetVault drops one of two vaults: nothing of it is left in any
// table, full-text search included, and the other is untouched.
func TestForgetVault(t *testing.T) {
	root := exampleVault(t)
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	mustIndex(t, ix, "coffee", root)
	mustIndex(t, ix, "again", root)
	n, err := ix.Forget(context.Background(), "again")
	if err != nil || n != 17 {
		t.Fatalf("Forget = %d, %v; want 17 notes", n, err)
	}
	for _, q := range []string{
		`SELECT count(*) FROM files`, `SELECT count(*) FROM search_notes`, `SELECT count(*) FROM chunks`,
		`SELECT count(*) FROM note_fts WHERE note_fts MATCH 'grind'`,
	} {
		var got, want int
		if err := ix.db.(*store.DB).QueryRow(q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fresh, _ := testIndexer(t, filepath.Join(t.TempDir(), "f.db"))
		mustIndex(t, fresh, "coffee", root)
		if err := fresh.db.(*store.DB).QueryRow(q).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %d after forgetting; one vault alone gives %d", q, got, want)
		}
	}
}

// TestForgetUnknownVault: forgetting a vault the database does not hold
// names, in words, the vaults it does hold, or says it holds none.
func TestForgetUnknownVault(t *testing.T) {
	root := exampleVault(t)
	for _, tc := range []struct {
		name   string
		vaults []string
		want   string
	}{
		{"no vaults", nil, `the database holds no vaults, so there is no vault named "nope" to forget`},
		{"one vault", []string{"en"}, `the database holds no vault named "nope"; the only vault it holds is "en"`},
		{"two vaults", []string{"en", "vault-all"}, `the database holds no vault named "nope"; the vaults it holds are "en" and "vault-all"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
			for _, v := range tc.vaults {
				mustIndex(t, ix, v, root)
			}
			_, err := ix.Forget(context.Background(), "nope")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Forget(nope) = %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestClearWaitsForOtherWriters: --rebuild's Clear must not delete rows
// another jarvis's index run is writing from.
func TestClearWaitsForOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	a, _ := testIndexer(t, path)
	b, _ := testIndexer(t, path)
	mustIndex(t, a, "coffee", exampleVault(t))
	unlock, err := a.db.LockWriters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := b.Clear(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Clear while another writer holds the lock: %v; want it to wait", err)
	}
	unlock()
	var n int
	if err := b.db.(*store.DB).QueryRow(`SELECT count(*) FROM files`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("%d files left, %v; a Clear that waited must have deleted nothing", n, err)
	}
}
