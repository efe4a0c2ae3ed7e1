package write

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// NoteSource is one note as Relink reads it: its vault-relative slash
// path, its bytes and the etag of those bytes.
type NoteSource struct {
	Path string
	Data []byte
	ETag string
}

// Move is a note's move, and the vault it happens in, as Relink reads
// them.
type Move struct {
	// From and To are the note's vault-relative paths before and after.
	From, To string
	// Files is every file of the vault before the move, notes and
	// attachments, From among them: the files links are resolved against.
	Files []string
	// Aliases are the notes' frontmatter aliases by path, as
	// vault.NewResolver takes them.
	Aliases map[string][]string
	// Notes are the notes whose links may change: every note of the
	// vault, or at least those linking to From and From itself.
	Notes []NoteSource
}

// Relinked is what a move does to the links of the vault.
type Relinked struct {
	// Files has a change for every note whose bytes change, in the order
	// of Move.Notes: After is its new text and Before the etag it was
	// read with. The moved note is among them, under its old path, when
	// its own links change (a relative Markdown link, a link to itself);
	// the caller sets MoveTo on it, or adds a change that only moves it.
	Files []FileChange
	// Stuck are the links to the note that cannot be rewritten where they
	// are written: a reference-style Markdown link ("[text][ref]"), a
	// frontmatter link spelled with YAML escapes. They no longer lead to
	// the note after the move.
	Stuck []LinkAt
}

// LinkAt names one link: the note it is written in and its line.
type LinkAt struct {
	Path string
	Line int
}

// Relink works out how the notes of a vault must change so that every
// link keeps leading where it led when the note at m.From moves to m.To,
// as Obsidian does with "Automatically update internal links" on. Links
// are found by the parser the indexer uses (so nothing in code is a link)
// and resolved by vault.Resolver before and after the move; a link is
// rewritten only when it would otherwise lead elsewhere, which is every
// link to the note moved whose text no longer names it, the moved note's
// own links that depended on its folder, and any link the note would take
// over by its new name.
//
// A rewritten link keeps its form: embed mark, subpath, alias and ".md"
// as written; a link by name stays a name when the new name is unique in
// the vault, and otherwise becomes the shortest path that is; a full
// path stays a full path; a relative Markdown link stays relative; angle
// brackets and percent-encoding as written. Only the bytes of the link
// targets change, so line ends, BOM and all else stay as they were.
//
// Relink reads and writes nothing; it fails when a note cannot be parsed
// (ctx ended, or Markdown too complex to read in time) or when To is
// already a file of the vault (ErrExists).
func Relink(ctx context.Context, p *vault.Parser, m Move) (Relinked, error) {
	if !slices.Contains(m.Files, m.From) {
		return Relinked{}, fmt.Errorf("relink %s: the note is not among the vault's files", m.From)
	}
	if slices.ContainsFunc(m.Files, func(f string) bool { return f != m.From && vault.FoldName(f) == vault.FoldName(m.To) }) {
		return Relinked{}, fmt.Errorf("relink %s to %s: %w", m.From, m.To, ErrExists)
	}
	after := make([]string, 0, len(m.Files))
	for _, f := range m.Files {
		if f == m.From {
			f = m.To
		}
		after = append(after, f)
	}
	afterAliases := make(map[string][]string, len(m.Aliases))
	for k, v := range m.Aliases {
		if k == m.From {
			k = m.To
		}
		afterAliases[k] = v
	}
	r := relinker{
		move:   m,
		before: vault.NewResolver(m.Files, m.Aliases),
		after:  vault.NewResolver(after, afterAliases),
		files:  after,
		unique: map[string]bool{},
	}
	var out Relinked
	for _, n := range m.Notes {
		note, err := p.Parse(ctx, n.Path, n.Data)
		if err != nil {
			return Relinked{}, fmt.Errorf("read the links of %s: %w", n.Path, err)
		}
		var edits []edit
		for _, l := range note.Links {
			e, ok, err := r.relink(n, l)
			switch {
			case errors.Is(err, errStuck):
				out.Stuck = append(out.Stuck, LinkAt{Path: n.Path, Line: l.Line})
			case err != nil:
				return Relinked{}, err
			case ok:
				edits = append(edits, e)
			}
		}
		if len(edits) > 0 {
			text := applyEdits(n.Data, edits)
			if err := r.check(ctx, p, n, note, text); err != nil {
				return Relinked{}, err
			}
			out.Files = append(out.Files, FileChange{Path: n.Path, Before: n.ETag, After: text})
		}
	}
	return out, nil
}

// errStuck is a link that must change but whose text cannot be found.
var errStuck = errors.New("link cannot be rewritten")

// relinker holds what Relink knows of the vault before and after.
type relinker struct {
	move          Move
	before, after *vault.Resolver
	files         []string // every file after the move
	unique        map[string]bool
}

// check reads the new text of note n again and makes sure that each of
// its links (before, as parsed from n.Data) is still there and leads
// where it led, so that no rewrite can break what is around it (a quote
// in a frontmatter value, say).
func (r *relinker) check(ctx context.Context, p *vault.Parser, n NoteSource, before vault.Note, text []byte) error {
	source := n.Path
	if source == r.move.From {
		source = r.move.To
	}
	after, err := p.Parse(ctx, source, text)
	if err != nil {
		return fmt.Errorf("read the links of %s: %w", n.Path, err)
	}
	if len(after.Links) != len(before.Links) {
		return fmt.Errorf("rewriting the links of %s would change what else it says", n.Path)
	}
	for i, l := range before.Links {
		was, ok := r.before.Resolve(n.Path, l.Target, l.Kind.FromFolder())
		if !ok {
			continue
		}
		if was == r.move.From {
			was = r.move.To
		}
		if is, _ := r.after.Resolve(source, after.Links[i].Target, l.Kind.FromFolder()); is != was {
			return fmt.Errorf("the link on line %d of %s cannot be rewritten to lead to %s", l.Line, n.Path, was)
		}
	}
	return nil
}

// edit replaces the bytes start to end of a note with text.
type edit struct {
	start, end int
	text       string
}

// relink is the edit that keeps link l of note n leading where it leads,
// or ok false when it needs none.
func (r *relinker) relink(n NoteSource, l vault.Link) (e edit, ok bool, err error) {
	fromFolder := l.Kind.FromFolder()
	old, found := r.before.Resolve(n.Path, l.Target, fromFolder)
	if !found {
		return edit{}, false, nil
	}
	want, source := old, n.Path
	if old == r.move.From {
		want = r.move.To
	}
	if source == r.move.From {
		source = r.move.To
	}
	if now, ok := r.after.Resolve(source, l.Target, fromFolder); ok && now == want {
		return edit{}, false, nil
	}
	if l.End == 0 {
		return edit{}, false, errStuck
	}
	text := string(n.Data[l.Start:l.End])
	var span target
	if l.Kind == vault.KindMarkdown || l.Kind == vault.KindEmbed && !strings.HasPrefix(text, "![[") {
		span, ok = markdownTarget(text)
	} else {
		span, ok = wikilinkTarget(text)
	}
	if !ok {
		return edit{}, false, errStuck
	}
	written := l.Target
	name, err := r.linkText(linkForm(written, n.Path, old, fromFolder), source, want, fromFolder)
	if err != nil {
		return edit{}, false, fmt.Errorf("rewrite the link on line %d of %s: %w", l.Line, n.Path, err)
	}
	if span.markdown && !span.angle {
		name = escapeDestination(name)
	}
	return edit{start: l.Start + span.start, end: l.Start + span.end, text: name}, true, nil
}

// form is how a link names its file.
type form struct {
	kind   formKind
	withMD bool // ".md" written
	dot    bool // a relative link written with "./"
	root   bool // a full path written with a leading "/"
}

type formKind int

const (
	byName     formKind = iota // "Note"
	byPartPath                 // "Folder/Note" for "Top/Folder/Note.md"
	byFullPath                 // "Top/Folder/Note"
	byRelative                 // "../Folder/Note.md", from the linking note's folder
)

// linkForm reads how target, written in the note at source, names old,
// the file it resolves to.
func linkForm(target, source, old string, fromFolder bool) form {
	t := strings.TrimSpace(strings.ReplaceAll(target, `\`, "/"))
	f := form{withMD: vault.IsNote(old) && strings.HasSuffix(strings.ToLower(t), ".md")}
	dir := path.Dir(source)
	switch {
	case strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../"):
		f.kind, f.dot = byRelative, strings.HasPrefix(t, "./")
	case fromFolder && vault.ParseTarget(path.Join(dir, t)).IsPath(old):
		f.kind = byRelative
	case vault.ParseTarget(t).IsPath(old) && strings.Contains(strings.TrimPrefix(t, "/"), "/"):
		f.kind, f.root = byFullPath, strings.HasPrefix(t, "/")
	case !strings.Contains(strings.TrimPrefix(t, "/"), "/"):
		// A name, or the path of a note at the vault root.
		f.kind = byName
	default:
		f.kind = byPartPath
	}
	return f
}

// linkText is the target to write in the note at source for a link of
// form f to the file want, after the move.
func (r *relinker) linkText(f form, source, want string, fromFolder bool) (string, error) {
	stem := want
	if !f.withMD {
		stem = vault.LinkStem(want)
	}
	leads := func(t string) bool {
		p, ok := r.after.Resolve(source, t, fromFolder)
		return ok && p == want
	}
	var tries []string
	switch f.kind {
	case byRelative:
		rel := relativePath(path.Dir(source), stem)
		if f.dot && !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		tries = append(tries, rel)
	case byFullPath:
		if f.root {
			tries = append(tries, "/"+stem)
		}
		tries = append(tries, stem)
	case byName, byPartPath:
		parts := strings.Split(stem, "/")
		first := len(parts) - 1
		if f.kind == byPartPath && first > 0 {
			first--
		}
		for i := first; i >= 0; i-- {
			t := strings.Join(parts[i:], "/")
			if i == 0 || r.isUnique(t) {
				tries = append(tries, t)
			}
		}
	}
	if fromFolder {
		// A Markdown link can always name the file from its own folder.
		tries = append(tries, relativePath(path.Dir(source), stem))
	}
	for _, t := range tries {
		if leads(t) {
			return t, nil
		}
	}
	return "", fmt.Errorf("no link text leads to %s", want)
}

// isUnique reports whether the target t names one file of the vault after
// the move by name or by the end of its path (Obsidian's test for the
// shortest link).
func (r *relinker) isUnique(t string) bool {
	u, ok := r.unique[t]
	if !ok {
		_, u = vault.NamesOne(t, r.files)
		r.unique[t] = u
	}
	return u
}

// relativePath is the path of target seen from the folder dir ("." for
// the vault root).
func relativePath(dir, target string) string {
	if dir == "." || dir == "" {
		return target
	}
	from := strings.Split(dir, "/")
	to := strings.Split(target, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(to[i:], "/")
}

// target is where, in the text of one link, the target is written.
type target struct {
	start, end int
	markdown   bool // a Markdown destination
	angle      bool // written in angle brackets, where spaces need no escape
}

// wikilinkTarget finds the target in "[[target#sub|alias]]" or
// "![[...]]", following the parser's split: the first '|' (or "\|" in a
// table) ends the reference, whose first '#' ends the target. Blanks
// around the target stay.
func wikilinkTarget(text string) (target, bool) {
	start := strings.Index(text, "[[")
	if start < 0 || !strings.HasSuffix(text, "]]") {
		return target{}, false
	}
	start += 2
	end := len(text) - 2
	if i := strings.IndexByte(text[start:end], '|'); i >= 0 {
		end = start + i
		if i > 0 && text[end-1] == '\\' {
			end--
		}
	}
	if i := strings.IndexByte(text[start:end], '#'); i >= 0 {
		end = start + i
	}
	return trimSpan(text, start, end, target{})
}

// markdownTarget finds the target in "[text](dest "title")": the
// destination before its '#', read back from the closing parenthesis
// (the text before may hold brackets of its own).
func markdownTarget(text string) (target, bool) {
	i := len(text) - 1
	if i < 0 || text[i] != ')' {
		return target{}, false
	}
	i = skipBack(text, i-1)
	// A title, set off by blanks: "title", 'title' or (title).
	if i >= 0 && (text[i] == '"' || text[i] == '\'' || text[i] == ')') {
		opener := text[i]
		if opener == ')' {
			opener = '('
		}
		j := i - 1
		for j >= 0 && (text[j] != opener || j > 0 && text[j-1] == '\\') {
			j--
		}
		if j > 0 && isBlank(text[j-1]) {
			i = skipBack(text, j-1)
		}
	}
	var start, end int
	t := target{markdown: true}
	if i >= 0 && text[i] == '>' {
		t.angle = true
		end = i
		start = strings.LastIndexByte(text[:i], '<') + 1
		if start == 0 || text[start-2] != '(' && !isBlank(text[start-2]) {
			return target{}, false
		}
	} else {
		end = i + 1
		depth := 0
		for start = end; start > 0; start-- {
			c := text[start-1]
			if c == ')' {
				depth++
			} else if c == '(' {
				if depth == 0 {
					break
				}
				depth--
			} else if isBlank(c) {
				break
			}
		}
	}
	open := skipBack(text, start-1)
	if t.angle {
		open = skipBack(text, start-2)
	}
	if open < 1 || text[open] != '(' || text[open-1] != ']' {
		return target{}, false
	}
	if h := strings.IndexByte(text[start:end], '#'); h >= 0 {
		end = start + h
	}
	return trimSpan(text, start, end, t)
}

// trimSpan narrows start to end of text to its part without blanks around
// it; ok is false when nothing is left.
func trimSpan(text string, start, end int, t target) (target, bool) {
	for start < end && isBlank(text[start]) {
		start++
	}
	for end > start && isBlank(text[end-1]) {
		end--
	}
	t.start, t.end = start, end
	return t, start < end
}

// skipBack is the offset of the last byte at or before i that is not a
// blank.
func skipBack(text string, i int) int {
	for i >= 0 && isBlank(text[i]) {
		i--
	}
	return i
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// escapeDestination percent-encodes what a Markdown destination written
// without angle brackets cannot hold as it is: blanks, and the bytes
// that would end it or be read as a fragment or an escape.
func escapeDestination(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c <= ' ' || c == 0x7f || strings.IndexByte(`%<>()#^[]|\"`, c) >= 0:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// applyEdits is data with the edits made; edits of the same bytes (one
// link found twice) count once.
func applyEdits(data []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	edits = slices.CompactFunc(edits, func(a, b edit) bool { return a.start == b.start && a.end == b.end })
	out := make([]byte, 0, len(data))
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // overlaps the one before: cannot happen for targets
		}
		out = append(append(out, data[at:e.start]...), e.text...)
		at = e.end
	}
	return append(out, data[at:]...)
}
