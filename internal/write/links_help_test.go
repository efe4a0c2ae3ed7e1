package write

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// parsedVault is a vault as the indexer reads it: its files, each note's
// links, and the resolver over them.
type parsedVault struct {
	files []string
	notes map[string]vault.Note
	data  map[string][]byte
	res   *vault.Resolver
}

// readVault scans and parses the vault at dir the way the indexer does.
func readVault(t *testing.T, p *vault.Parser, dir string) parsedVault {
	t.Helper()
	ctx := context.Background()
	files, _, err := vault.Scan(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := parsedVault{notes: map[string]vault.Note{}, data: map[string][]byte{}}
	aliases := map[string][]string{}
	for _, f := range files {
		v.files = append(v.files, f.Path)
		if !f.Note {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		n, err := p.Parse(ctx, f.Path, data)
		if err != nil {
			t.Fatal(err)
		}
		v.notes[f.Path], v.data[f.Path] = n, data
		if len(n.Aliases) > 0 {
			aliases[f.Path] = n.Aliases
		}
	}
	v.res = vault.NewResolver(v.files, aliases)
	return v
}

// resolve is where link l of the note at source leads, or "".
func (v parsedVault) resolve(source string, l vault.Link) string {
	p, _ := v.res.Resolve(source, l.Target, l.Kind.FromFolder())
	return p
}

// applyMove carries out a move in dir as Apply will: each change's After
// written over its file, then the note renamed (with its new text when
// it changed).
func applyMove(t *testing.T, dir string, changes []FileChange, from, to string) {
	t.Helper()
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	for _, c := range changes {
		if err := os.WriteFile(abs(c.Path), c.After, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs(to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(abs(from), abs(to)); err != nil {
		t.Fatal(err)
	}
}

// TestRelinkHelpVault moves the most linked note of Obsidian's Help vault,
// and the most linked of its English notes, to another folder under a new
// name, applies what Relink returns, reads the vault again and checks that
// every link leads where it led, that only links to the note changed, and
// that each kept its form.
func TestRelinkHelpVault(t *testing.T) {
	src := sharedtest.Path(t, "vaults/obsidian-help")
	for _, tt := range []struct {
		name, folder, to string
	}{
		{"most linked", "", "en/Moved notes/Linked from everywhere.md"},
		{"most linked in English", "en/", "Elsewhere/Now (renamed).md"},
	} {
		t.Run(tt.name, func(t *testing.T) { checkHelpMove(t, src, tt.folder, tt.to) })
	}
}

// checkHelpMove moves the note of the Help vault at src most linked to
// among those in folder to the path to, in a copy of the vault.
func checkHelpMove(t *testing.T, src, folder, to string) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	p := vault.NewParser()
	before := readVault(t, p, dir)

	// The note most linked to, by links that resolve to it.
	count := map[string]int{}
	for source, n := range before.notes {
		for _, l := range n.Links {
			if to := before.resolve(source, l); vault.IsNote(to) && to != source && strings.HasPrefix(to, folder) {
				count[to]++
			}
		}
	}
	from := ""
	for note, c := range count {
		if from == "" || c > count[from] || c == count[from] && note < from {
			from = note
		}
	}
	t.Logf("moving %s (%d links) to %s", from, count[from], to)
	if count[from] < 50 {
		t.Fatalf("the most linked note, %s, has only %d links", from, count[from])
	}

	m := Move{From: from, To: to, Files: before.files, Aliases: map[string][]string{}}
	for _, f := range before.files {
		if n, ok := before.notes[f]; ok {
			m.Notes = append(m.Notes, NoteSource{Path: f, Data: before.data[f], ETag: f})
			if len(n.Aliases) > 0 {
				m.Aliases[f] = n.Aliases
			}
		}
	}
	r, err := Relink(context.Background(), p, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stuck) > 0 {
		t.Errorf("links that could not be rewritten: %v", r.Stuck)
	}
	applyMove(t, dir, r.Files, from, to)
	after := readVault(t, p, dir)

	moved := func(p string) string {
		if p == from {
			return to
		}
		return p
	}
	rewritten := 0
	for source, n := range before.notes {
		now := moved(source)
		m, ok := after.notes[now]
		if !ok {
			t.Fatalf("%s is gone", now)
		}
		if len(m.Links) != len(n.Links) {
			t.Errorf("%s: %d links, had %d", now, len(m.Links), len(n.Links))
			continue
		}
		for i, l := range n.Links {
			k := m.Links[i]
			was := before.resolve(source, l)
			is := after.resolve(now, k)
			if was != "" && is != moved(was) {
				t.Errorf("%s line %d: %q led to %s, now to %q", now, l.Line, l.Target, was, is)
			}
			if l.Kind != k.Kind || l.Subpath != k.Subpath || l.Display != k.Display && l.Kind != vault.KindMarkdown {
				t.Errorf("%s line %d: %+v became %+v", now, l.Line, l, k)
			}
			if was != from {
				if l.Target != k.Target && source != from {
					t.Errorf("%s line %d: the link to %q, not to the moved note, became %q", now, l.Line, l.Target, k.Target)
				}
				continue
			}
			if l.Target == k.Target {
				continue
			}
			rewritten++
			checkForm(t, now, l, k, source, from, to)
		}
	}
	t.Logf("%d links rewritten in %d notes", rewritten, len(r.Files))
	if rewritten < count[from] {
		t.Errorf("%d links rewritten, want at least the %d to the note", rewritten, count[from])
	}
}

// checkForm checks that link k, the rewritten l, names the moved note
// the way l named it.
func checkForm(t *testing.T, note string, l, k vault.Link, source, from, to string) {
	t.Helper()
	hasMD := func(s string) bool { return strings.HasSuffix(strings.ToLower(s), ".md") }
	if hasMD(l.Target) != hasMD(k.Target) {
		t.Errorf("%s line %d: %q became %q: .md not kept as written", note, l.Line, l.Target, k.Target)
	}
	hasDir := func(s string) bool { return strings.Contains(s, "/") }
	relative := func(s, at, file string) bool {
		return strings.HasPrefix(s, "../") || strings.HasPrefix(s, "./") ||
			l.Kind.FromFolder() && vault.ParseTarget(path.Join(path.Dir(at), s)).IsPath(file)
	}
	switch {
	case relative(l.Target, source, from):
		if !relative(k.Target, moved(source, from, to), to) {
			t.Errorf("%s line %d: relative %q became %q", note, l.Line, l.Target, k.Target)
		}
	case vault.ParseTarget(l.Target).IsPath(from) && hasDir(l.Target):
		if !vault.ParseTarget(k.Target).IsPath(to) {
			t.Errorf("%s line %d: full path %q became %q", note, l.Line, l.Target, k.Target)
		}
	case !hasDir(l.Target):
		// The new name is unique in the vault: a name stays a name.
		if hasDir(k.Target) {
			t.Errorf("%s line %d: name %q became %q", note, l.Line, l.Target, k.Target)
		}
	}
}

func moved(p, from, to string) string {
	if p == from {
		return to
	}
	return p
}
