package vaultgen_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// readTree returns every file under dir by slash-separated relative path,
// and every directory below dir.
func readTree(t testing.TB, dir string) (files map[string][]byte, dirs []string) {
	t.Helper()
	files = make(map[string][]byte)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." {
				dirs = append(dirs, rel)
			}
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return files, dirs
}

func generate(t testing.TB, opts vaultgen.Options) (string, vaultgen.Summary) {
	t.Helper()
	dir := t.TempDir()
	sum, err := vaultgen.Generate(dir, opts)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", opts, err)
	}
	return dir, sum
}

func TestDeterministic(t *testing.T) {
	opts := vaultgen.Options{Notes: 400, Seed: 42}
	dirA, sumA := generate(t, opts)
	dirB, sumB := generate(t, opts)
	if sumA != sumB {
		t.Errorf("summaries differ: %+v vs %+v", sumA, sumB)
	}
	a, dirsA := readTree(t, dirA)
	b, dirsB := readTree(t, dirB)
	if strings.Join(dirsA, "\n") != strings.Join(dirsB, "\n") {
		t.Errorf("folder trees differ")
	}
	if len(a) != len(b) {
		t.Fatalf("file counts differ: %d vs %d", len(a), len(b))
	}
	for p, data := range a {
		if other, ok := b[p]; !ok {
			t.Errorf("%s exists only in the first vault", p)
		} else if !bytes.Equal(data, other) {
			t.Errorf("%s differs between runs", p)
		}
	}

	dirC, _ := generate(t, vaultgen.Options{Notes: 400, Seed: 43})
	c, _ := readTree(t, dirC)
	same := 0
	for p, data := range a {
		if bytes.Equal(c[p], data) {
			same++
		}
	}
	if same > len(a)/10 {
		t.Errorf("seeds 42 and 43 share %d of %d identical files", same, len(a))
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		opts vaultgen.Options
	}{
		{"negative notes", vaultgen.Options{Notes: -1}},
		{"broken ratio above one", vaultgen.Options{Notes: 10, BrokenLinkRatio: 1.5}},
		{"unicode ratio above one", vaultgen.Options{Notes: 10, UnicodeRatio: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := vaultgen.Generate(t.TempDir(), tt.opts); err == nil {
				t.Errorf("Generate(%+v) succeeded, want an error", tt.opts)
			}
		})
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "existing.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10}); !errors.Is(err, vaultgen.ErrDirNotEmpty) {
		t.Errorf("Generate into a non-empty dir: got %v, want ErrDirNotEmpty", err)
	}
}

// TestSummaryMatchesDisk checks the counts against the files and, with an
// independent link parser, that every link the generator counts as
// resolved does resolve, heading and block included, and every broken one
// does not.
func TestSummaryMatchesDisk(t *testing.T) {
	tests := []struct {
		name string
		opts vaultgen.Options
	}{
		{"default mix", vaultgen.Options{Notes: 1500, Seed: 7}},
		{"flat, no broken links", vaultgen.Options{Notes: 200, Seed: 3, Folders: -1, BrokenLinkRatio: -1}},
		{"many folders and attachments", vaultgen.Options{Notes: 300, Seed: 9, Folders: 60, AttachmentRatio: 0.3}},
		{"single note", vaultgen.Options{Notes: 1, Seed: 1}},
		{"no notes", vaultgen.Options{Notes: 0, Seed: 1}},
		{"all unicode", vaultgen.Options{Notes: 150, Seed: 5, UnicodeRatio: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, sum := generate(t, tt.opts)
			files, dirs := readTree(t, dir)
			v := parseVault(t, files)
			got := vaultgen.Summary{Folders: len(dirs)}
			for p, data := range files {
				got.Bytes += int64(len(data))
				if strings.HasSuffix(p, ".md") {
					got.Notes++
				} else {
					got.Attachments++
				}
			}
			got.Links, got.BrokenLinks = v.countLinks(t)
			if got != sum {
				t.Errorf("on disk %+v, Summary %+v", got, sum)
			}
			if got.Notes != tt.opts.Notes {
				t.Errorf("%d notes on disk, asked for %d", got.Notes, tt.opts.Notes)
			}
			if tt.opts.BrokenLinkRatio < 0 && got.BrokenLinks > 0 {
				t.Errorf("%d broken links with BrokenLinkRatio < 0", got.BrokenLinks)
			}
		})
	}
}

var (
	reservedWindows = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$`)
	forbiddenChars  = `<>:"/\|?*`
)

func TestNamesArePortable(t *testing.T) {
	dir, _ := generate(t, vaultgen.Options{Notes: 3000, Seed: 11, UnicodeRatio: 0.3})
	files, dirs := readTree(t, dir)
	all := append([]string(nil), dirs...)
	for p := range files {
		all = append(all, p)
	}
	// On macOS and Windows names that differ only in case collide.
	seen := make(map[string]string)
	for _, p := range all {
		if key := strings.ToLower(p); seen[key] != "" {
			t.Errorf("%q and %q differ only in case", p, seen[key])
		} else {
			seen[key] = p
		}
		if len(p) > 200 {
			t.Errorf("%q: path longer than 200 bytes", p)
		}
		for _, seg := range strings.Split(p, "/") {
			switch {
			case !utf8.ValidString(seg):
				t.Errorf("%q: invalid UTF-8", p)
			case strings.ContainsAny(seg, forbiddenChars):
				t.Errorf("%q: character forbidden on Windows", p)
			case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") || strings.HasPrefix(seg, " "):
				t.Errorf("%q: leading space or trailing dot or space", p)
			case reservedWindows.MatchString(seg):
				t.Errorf("%q: reserved name on Windows", p)
			case strings.ContainsAny(seg, "#^[]|"):
				t.Errorf("%q: character that breaks Obsidian links", p)
			}
			for _, c := range seg {
				if c < 0x20 || unicode.Is(unicode.Mn, c) {
					t.Errorf("%q: control character or combining mark %U", p, c)
				}
			}
		}
	}
	if depth := maxDepth(dirs); depth > 3 {
		t.Errorf("folder tree is %d levels deep, want at most 3", depth)
	}
}

func maxDepth(dirs []string) int {
	d := 0
	for _, p := range dirs {
		d = max(d, strings.Count(p, "/")+1)
	}
	return d
}

// TestRealisticMix checks that a 2,000-note vault has every ingredient the
// benchmarks and parser tests rely on.
func TestRealisticMix(t *testing.T) {
	dir, sum := generate(t, vaultgen.Options{Notes: 2000, Seed: 1})
	files, dirs := readTree(t, dir)
	v := parseVault(t, files)

	if sum.BrokenLinks == 0 || sum.BrokenLinks*100 > sum.Links*8 || sum.BrokenLinks*100 < sum.Links*2 {
		t.Errorf("%d broken of %d links, want about 5%%", sum.BrokenLinks, sum.Links)
	}
	if perNote := sum.Links / sum.Notes; perNote < 5 || perNote > 15 {
		t.Errorf("%d links per note, want 5-15", perNote)
	}
	if avg := sum.Bytes / int64(sum.Notes); avg < 1500 || avg > 5000 {
		t.Errorf("%d bytes per note on average, want roughly 400 words", avg)
	}
	if len(dirs) < 15 || len(dirs) > 40 {
		t.Errorf("%d folders for 2,000 notes", len(dirs))
	}
	if maxDepth(dirs) != 3 {
		t.Errorf("folder tree is %d levels deep, want 3", maxDepth(dirs))
	}

	baseCount := make(map[string]int)
	exts := make(map[string]int)
	rootNotes := 0
	for p := range files {
		if strings.HasSuffix(p, ".md") {
			baseCount[strings.ToLower(path.Base(p))]++
			if !strings.Contains(p, "/") {
				rootNotes++
			}
		} else {
			exts[path.Ext(p)]++
		}
	}
	if baseCount["index.md"] < 2 {
		t.Errorf("%d Index.md files, want several in different folders", baseCount["index.md"])
	}
	if rootNotes == 0 {
		t.Errorf("no notes at the vault root")
	}
	for _, ext := range []string{".png", ".pdf", ".canvas"} {
		if exts[ext] == 0 {
			t.Errorf("no %s attachments", ext)
		}
	}
	if share := sum.Attachments * 100 / (sum.Notes + sum.Attachments); share < 3 || share > 5 {
		t.Errorf("attachments are %d%% of files, want 3-5%%", share)
	}

	var all strings.Builder
	for _, n := range v.notes {
		all.Write(n.raw)
	}
	text := all.String()
	for _, want := range []struct{ name, pattern string }{
		{"Chinese text", `\p{Han}`},
		{"Japanese kana", `\p{Hiragana}|\p{Katakana}`},
		{"Cyrillic text", `\p{Cyrillic}`},
		{"Arabic text", `\p{Arabic}`},
		{"accented Latin", `[éüåñçø]`},
		{"emoji", `[\x{1F300}-\x{1FAFF}]`},
		{"heading levels 1-4", `(?m)^# .+\n[\s\S]*^## .+\n[\s\S]*^### .+\n[\s\S]*^#### `},
		{"callout", `(?m)^> \[!\w+\]`},
		{"table", `(?m)^\| --- \|`},
		{"task", `(?m)^- \[[ x]\] `},
		{"fake link in code", "(?m)^```\\w*\\n.*\\[\\[not a link\\]\\]"},
		{"fake tag in code", "(?m)^```\\w*\\n(.*\\n)*?.*#not-a-tag"},
		{"inline tag", `(?m)\s#[a-z]+(\s|$)`},
		{"nested tag", `\s#[a-z]+/[a-z]+`},
		{"block id", `(?m) \^[a-z0-9-]+$`},
		{"same-note heading link", `\[\[#[^^\]]`},
		{"heading link", `\[\[[^\]#]+#[^^\]]`},
		{"block link", `\[\[[^\]#]+#\^`},
		{"alias display", `\[\[[^\]|]+\|[^\]]+\]\]`},
		{"note embed", `!\[\[[^\]]+[^g]\]\]`},
		{"image embed", `!\[\[[^\]]+\.png(\|\d+)?\]\]`},
		{"markdown link with %20", `\]\([^)]*%20[^)]*\.md(#[^)]*)?\)`},
		{"folder path link", `\[\[[^\]/#|]+/[^\]]+\]\]`},
		{"frontmatter link", `(?m)^(related|up|author): "\[\[`},
		{"aliases list", `(?m)^aliases:\n  - `},
		{"aliases string", `(?m)^aliases: [^\[\n]`},
		{"tags list", `(?m)^tags:\n  - `},
		{"tags flow list", `(?m)^tags: \[`},
	} {
		if !regexp.MustCompile(want.pattern).MatchString(text) {
			t.Errorf("no %s in the vault", want.name)
		}
	}

	var unicodeNames, aliasLinks int
	for p := range files {
		if strings.HasSuffix(p, ".md") && !isASCII(path.Base(p)) {
			unicodeNames++
		}
	}
	if unicodeNames < 20 {
		t.Errorf("%d notes with non-ASCII names, want a minority of some size", unicodeNames)
	}
	for _, l := range v.links {
		if l.viaAlias {
			aliasLinks++
		}
	}
	if aliasLinks == 0 {
		t.Errorf("no link resolves through an alias")
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestAttachmentsAreValid(t *testing.T) {
	dir, _ := generate(t, vaultgen.Options{Notes: 100, Seed: 2, AttachmentRatio: 0.5})
	files, _ := readTree(t, dir)
	for p, data := range files {
		switch path.Ext(p) {
		case ".png":
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		case ".pdf":
			if !bytes.HasPrefix(data, []byte("%PDF-1.4\n")) || !bytes.HasSuffix(data, []byte("%%EOF\n")) {
				t.Errorf("%s: not a PDF", p)
			}
		case ".canvas":
			var c struct {
				Nodes []struct{ ID, Type, File string }
			}
			if err := json.Unmarshal(data, &c); err != nil || len(c.Nodes) == 0 {
				t.Errorf("%s: not a canvas: %v", p, err)
			}
			for _, n := range c.Nodes {
				if _, ok := files[n.File]; n.Type == "file" && !ok {
					t.Errorf("%s: node points to missing %q", p, n.File)
				}
			}
		}
	}
}

func BenchmarkGenerate10k(b *testing.B) {
	var sum vaultgen.Summary
	for b.Loop() {
		var err error
		if sum, err = vaultgen.Generate(b.TempDir(), vaultgen.Options{Notes: 10_000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(sum.Bytes)
	b.ReportMetric(float64(sum.Links)/float64(sum.Notes), "links/note")
}

// The rest is a small link parser, written independently of the generator
// from Obsidian's rules, so that the tests check the vault rather than the
// generator's bookkeeping.

type parsedNote struct {
	path     string // relative, with ".md"
	raw      []byte
	headings map[string]bool
	blocks   map[string]bool
}

type parsedLink struct {
	from     *parsedNote
	target   string // decoded, without subpath or display
	subpath  string
	markdown bool
	viaAlias bool
	resolved bool
	raw      string
}

type vault struct {
	notes       []*parsedNote
	byPath      map[string]*parsedNote // lowercased path without ".md"
	byName      map[string][]*parsedNote
	byAlias     map[string]*parsedNote
	attachments map[string]bool // lowercased path and lowercased base name
	links       []parsedLink
}

var (
	wikiRE     = regexp.MustCompile(`!?\[\[([^\]]+)\]\]`)
	markdownRE = regexp.MustCompile(`!?\[([^\]]*)\]\(([^)\s]+)\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	headingRE  = regexp.MustCompile(`^(#{1,6}) (.+)$`)
	blockIDRE  = regexp.MustCompile(` \^([A-Za-z0-9-]+)$`)
)

func parseVault(t testing.TB, files map[string][]byte) *vault {
	t.Helper()
	v := &vault{
		byPath:      make(map[string]*parsedNote),
		byName:      make(map[string][]*parsedNote),
		byAlias:     make(map[string]*parsedNote),
		attachments: make(map[string]bool),
	}
	bodies := make(map[*parsedNote][]string)
	fronts := make(map[*parsedNote][]string)
	for p, data := range files {
		if !strings.HasSuffix(p, ".md") {
			v.attachments[strings.ToLower(p)] = true
			v.attachments[strings.ToLower(path.Base(p))] = true
			continue
		}
		n := &parsedNote{path: p, raw: data, headings: map[string]bool{}, blocks: map[string]bool{}}
		v.notes = append(v.notes, n)
		key := strings.ToLower(strings.TrimSuffix(p, ".md"))
		v.byPath[key] = n
		v.byName[path.Base(key)] = append(v.byName[path.Base(key)], n)

		lines := strings.Split(string(data), "\n")
		body := lines
		if len(lines) > 0 && lines[0] == "---" {
			for i := 1; i < len(lines); i++ {
				if lines[i] == "---" {
					fronts[n], body = lines[1:i], lines[i+1:]
					break
				}
			}
		}
		var inCode string
		var kept []string
		for _, l := range body {
			if inCode != "" {
				if strings.HasPrefix(l, inCode) {
					inCode = ""
				}
				continue
			}
			if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
				inCode = l[:3]
				continue
			}
			if m := headingRE.FindStringSubmatch(l); m != nil {
				n.headings[m[2]] = true
			}
			if m := blockIDRE.FindStringSubmatch(l); m != nil {
				n.blocks[m[1]] = true
			}
			kept = append(kept, codeSpanRE.ReplaceAllString(l, ""))
		}
		bodies[n] = kept
	}
	for n, front := range fronts {
		for _, a := range parseAliases(front) {
			if v.byAlias[strings.ToLower(a)] != nil {
				t.Errorf("alias %q is on two notes", a)
			}
			v.byAlias[strings.ToLower(a)] = n
		}
	}
	for _, n := range v.notes {
		for _, l := range fronts[n] {
			for _, m := range wikiRE.FindAllStringSubmatch(l, -1) {
				v.addWiki(n, m[0], m[1])
			}
		}
		for _, l := range bodies[n] {
			for _, m := range wikiRE.FindAllStringSubmatch(l, -1) {
				v.addWiki(n, m[0], m[1])
			}
			for _, m := range markdownRE.FindAllStringSubmatch(l, -1) {
				if strings.Contains(m[2], "://") {
					continue
				}
				dest, err := url.PathUnescape(m[2])
				if err != nil {
					t.Errorf("%s: bad escape in %s", n.path, m[0])
				}
				target, sub, _ := strings.Cut(dest, "#")
				v.add(parsedLink{from: n, target: target, subpath: sub, markdown: true, raw: m[0]})
			}
		}
	}
	return v
}

func (v *vault) addWiki(n *parsedNote, raw, inner string) {
	inner, _, _ = strings.Cut(inner, "|")
	target, sub, _ := strings.Cut(inner, "#")
	v.add(parsedLink{from: n, target: target, subpath: sub, raw: raw})
}

// add resolves l the way Obsidian does for the forms the generator writes.
func (v *vault) add(l parsedLink) {
	defer func() { v.links = append(v.links, l) }()
	var to *parsedNote
	lower := strings.ToLower(l.target)
	switch {
	case l.target == "":
		to = l.from
	case path.Ext(lower) != "" && path.Ext(lower) != ".md" && v.attachments[lower]:
		l.resolved = l.subpath == ""
		return
	default:
		lower = strings.TrimSuffix(lower, ".md")
		if strings.Contains(lower, "/") {
			to = v.byPath[lower]
		} else if ns := v.byName[lower]; len(ns) == 1 {
			to = ns[0]
		} else if len(ns) == 0 && v.byAlias[lower] != nil {
			to, l.viaAlias = v.byAlias[lower], true
		}
	}
	if to == nil {
		return
	}
	switch {
	case l.subpath == "":
		l.resolved = true
	case strings.HasPrefix(l.subpath, "^"):
		l.resolved = to.blocks[l.subpath[1:]]
	default:
		l.resolved = to.headings[l.subpath]
	}
}

// countLinks returns the number of links and of unresolved ones, and
// reports links that resolve to a note but miss their heading or block,
// which the generator never writes on purpose.
func (v *vault) countLinks(t testing.TB) (links, broken int) {
	t.Helper()
	for _, l := range v.links {
		links++
		if l.resolved {
			continue
		}
		broken++
		// A deliberately broken link names a note or attachment that
		// exists nowhere; anything else is a generator bug.
		lower := strings.TrimSuffix(strings.ToLower(l.target), ".md")
		if v.byPath[lower] != nil || len(v.byName[lower]) > 0 || v.byAlias[lower] != nil || (lower == "" && l.target == "") {
			t.Errorf("%s: %s points to an existing note but does not resolve", l.from.path, l.raw)
		}
		if len(v.byName[lower]) > 1 {
			t.Errorf("%s: %s is ambiguous", l.from.path, l.raw)
		}
	}
	return links, broken
}

// parseAliases reads the three shapes of "aliases" the generator writes.
func parseAliases(front []string) []string {
	var out []string
	unquote := func(s string) string {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) >= 2 {
			s = strings.ReplaceAll(s[1:len(s)-1], `\"`, `"`)
		}
		return s
	}
	for i, l := range front {
		rest, ok := strings.CutPrefix(l, "aliases:")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "":
			for _, item := range front[i+1:] {
				v, ok := strings.CutPrefix(item, "  - ")
				if !ok {
					break
				}
				out = append(out, unquote(v))
			}
		case strings.HasPrefix(rest, "["):
			for _, v := range strings.Split(strings.Trim(rest, "[]"), ", ") {
				out = append(out, unquote(v))
			}
		default:
			out = append(out, unquote(rest))
		}
	}
	return out
}
