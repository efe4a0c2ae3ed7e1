package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// ReadNoteInput is the input of read-note.
type ReadNoteInput struct {
	Path    string `json:"path" jsonschema:"the note's vault-relative path as search results give it (Folder/Note.md); a title or alias also works"`
	Vault   string `json:"vault,omitempty" jsonschema:"the note's vault, as search results give it; needed only when several vaults hold the path"`
	Heading string `json:"heading,omitempty" jsonschema:"return only the section under this heading (its text, without #), or the block with this id (^id)"`
	Paging
}

// Paging is how a tool that returns a note's text (read-note,
// periodic-note) takes it in pages: checkPaging, pagingSchema and
// tools.page are its rules.
type Paging struct {
	Offset   int `json:"offset,omitempty" jsonschema:"character offset to start from, to read a long note in pages: pass the next_offset of the previous answer"`
	MaxChars int `json:"max_chars,omitempty" jsonschema:"the most characters of content to return, 1000 to 100000; at most 20000 under the server's default answer ceiling; the rest comes in pages"`
}

// pagingSchema bounds the paging arguments.
func pagingSchema(p map[string]*jsonschema.Schema) {
	floatRange(p["offset"], 0, vault.MaxNoteSize)
	intRange(p["max_chars"], 1000, 100000, defaultMaxChars)
}

// check refuses paging arguments the schema lets through.
func (pg Paging) check() error {
	if pg.Offset < 0 {
		return fmt.Errorf("offset must be 0 or more; got %d", pg.Offset)
	}
	return nil
}

// Page is one page of a note's text.
type Page struct {
	Content string
	// Offset is where it starts, NextOffset where the next page does (0
	// at the end), TotalChars the length of the whole text, all in
	// characters.
	Offset, NextOffset, TotalChars int
}

// noteText is a note's bytes as text, decoded as the index read them
// (vault.NoteText): a note saved as Windows-1252 or UTF-16 shows the
// characters its words were indexed with.
func noteText(data []byte) string {
	text, _ := vault.NoteText(data)
	return text
}

// page is the page of text that pg asks for, at most max_chars long and
// within the answer ceiling, ending at a break (pageEnd). data is
// decoded by noteText.
func (t *tools) page(data []byte, pg Paging) (Page, error) {
	if err := pg.check(); err != nil {
		return Page{}, err
	}
	runes := []rune(noteText(data))
	if pg.Offset > len(runes) {
		return Page{}, fmt.Errorf("offset %d is past the end of the note (%s); start from 0", pg.Offset, words.Count(len(runes), "character"))
	}
	maxChars := min(clamp(pg.MaxChars, 1000, 100000, defaultMaxChars), t.pageChars())
	end := pageEnd(runes, pg.Offset, maxChars)
	p := Page{Content: string(runes[pg.Offset:end]), Offset: pg.Offset, TotalChars: len(runes)}
	if end < len(runes) {
		p.NextOffset = end
	}
	return p, nil
}

// HeadingItem is one heading of a note.
type HeadingItem struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
}

// LinkItem is one link written in a note.
type LinkItem struct {
	Target string `json:"target" jsonschema:"the link target as written"`
	// Resolved is the path of the file the link leads to, empty when it
	// leads nowhere or the index is unavailable.
	Resolved string `json:"resolved,omitempty" jsonschema:"vault-relative path the link resolves to; empty when unresolved"`
	Subpath  string `json:"subpath,omitempty" jsonschema:"heading or ^block the link points into"`
	Kind     string `json:"kind" jsonschema:"link, embed, markdown or frontmatter"`
	Text     string `json:"text,omitempty" jsonschema:"display text"`
	Line     int    `json:"line"`
}

// BacklinkItem is one link from another note to this one.
type BacklinkItem struct {
	Source  string `json:"source" jsonschema:"path of the linking note"`
	Line    int    `json:"line"`
	Kind    string `json:"kind"`
	Context string `json:"context,omitempty" jsonschema:"the text of the linking line"`
}

// ReadNoteOutput is what read-note returns.
type ReadNoteOutput struct {
	Vault       string         `json:"vault"`
	Path        string         `json:"path"`
	Title       string         `json:"title"`
	Content     string         `json:"content" jsonschema:"the note's Markdown, or the asked section, from offset on, at most max_chars characters"`
	Frontmatter map[string]any `json:"frontmatter" jsonschema:"every frontmatter property"`
	Tags        []string       `json:"tags"`
	Headings    []HeadingItem  `json:"headings"`
	Links       []LinkItem     `json:"links"`
	Backlinks   []BacklinkItem `json:"backlinks" jsonschema:"links from other notes to this one, by source path and line; backlink_count says how many there are in all"`
	// BacklinkCount is how many links from other notes lead here, listed
	// or not.
	BacklinkCount int `json:"backlink_count" jsonschema:"how many links from other notes lead here; more than backlinks lists when they were cut"`
	// ETag identifies the note's bytes as read.
	ETag     string `json:"etag" jsonschema:"a hash of the note's bytes as read: the write tools (when the user has allowed them) take it to be sure the note has not changed since"`
	Size     int64  `json:"size" jsonschema:"file size in bytes"`
	Modified string `json:"modified" jsonschema:"last modification time, RFC 3339"`
	Offset   int    `json:"offset" jsonschema:"character offset of content"`
	// NextOffset is where the next page starts, 0 when content reaches the
	// end.
	NextOffset int `json:"next_offset" jsonschema:"offset to pass for the next page; 0 when this is the end"`
	TotalChars int `json:"total_chars" jsonschema:"length of the whole note or section in characters"`
	// AlsoMatches are other notes of the vault that the path, read as a
	// title or name, matches as well: the note read is the one a
	// [[wikilink]] with that text leads to.
	AlsoMatches []string `json:"also_matches,omitempty" jsonschema:"other notes whose title or name matches the path given as well; pass one's path to read it"`
	// Warnings are problems found reading the note, such as frontmatter
	// that is not valid YAML (which then shows as no frontmatter).
	Warnings []string `json:"warnings,omitempty" jsonschema:"problems found reading the note, such as invalid frontmatter YAML"`
	// Shortened says what was left out of the lists and frontmatter, which
	// are capped whatever the note holds.
	Shortened []string `json:"shortened,omitempty" jsonschema:"what this answer left out to stay small, such as the first 500 of 50000 headings"`
	Degradation
	// unresolved is set when the link graph could not say where the
	// links lead.
	unresolved bool
	// lang is the language of a file that is not a note, read as text.
	lang string
}

const defaultMaxChars = 20000

func (t *tools) addReadNote(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolReadNote,
		Description: `Read one note: its Markdown text (or one section, by heading, or one block, by ^id; a path written as a link, Note#Heading or Note#^id, works too), frontmatter, tags, headings, the links it makes (and where they resolve) and the notes linking to it (backlinks).
Pass the vault and path of a search result. Long notes come in pages: when next_offset is not 0, call again with offset=next_offset.`,
		Annotations: readOnly("Read a note"),
		InputSchema: inputSchema[ReadNoteInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["path"], 1, maxPathChars)
			textLength(p["vault"], 0, maxNameChars)
			textLength(p["heading"], 0, maxHeadingChars)
			pagingSchema(p)
		}),
		OutputSchema: outputSchema[ReadNoteOutput](func(p map[string]*jsonschema.Schema) {
			maxItems(p["backlinks"], maxBacklinks)
		}),
	}, t.readNote)
}

func (t *tools) readNote(ctx context.Context, _ *mcpsdk.CallToolRequest, in ReadNoteInput) (*mcpsdk.CallToolResult, ReadNoteOutput, error) {
	out := ReadNoteOutput{Frontmatter: map[string]any{}, Tags: []string{}, Headings: []HeadingItem{}, Links: []LinkItem{}, Backlinks: []BacklinkItem{}}
	if strings.TrimSpace(in.Path) == "" {
		return nil, out, errors.New("path is empty: give the vault-relative path of a note, as search results give it")
	}
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	if err := in.Paging.check(); err != nil {
		return nil, out, err
	}
	// The path as given: a file's name may begin with a space, and the
	// lookups trim a reference only after trying it whole.
	v, rel, others, err := t.locate(ctx, in.Vault, in.Path)
	if err != nil {
		// A link's form, "Note#Heading" or "Note#^block": the note, and
		// the part of it the link points into, when the whole is no
		// note's name.
		ref, sub, ok := strings.Cut(strings.TrimSpace(in.Path), "#")
		if !ok || in.Heading != "" || strings.TrimSpace(ref) == "" || strings.TrimSpace(sub) == "" {
			return nil, out, err
		}
		if v, rel, others, err = t.locate(ctx, in.Vault, strings.TrimSpace(ref)); err != nil {
			return nil, out, err
		}
		in.Heading = strings.TrimSpace(sub)
	}
	// The note comes from disk; its backlinks come from the index of its
	// vault.
	t.answerState(&out.Degradation, v.Name)
	out.AlsoMatches = graph.OtherPaths(others, maxAlsoMatches)
	if !vault.IsNote(rel) {
		return t.readOther(ctx, v, rel, in, out)
	}
	data, st, err := readNote(v, rel)
	if err != nil {
		return nil, out, err
	}
	note, err := t.readStored(ctx, v.Name, rel, data)
	if err != nil {
		return nil, out, err
	}
	for i, w := range note.Warnings {
		if i == maxWarnings {
			break
		}
		out.Warnings = append(out.Warnings, clip(w, maxTextChars))
	}
	out.Vault, out.Path, out.Title = v.Name, rel, clip(note.Title, maxTitleChars)
	out.Size, out.Modified, out.ETag = st.Size(), st.ModTime().UTC().Format(time.RFC3339), write.ETag(data)
	if note.Frontmatter != nil {
		var short string
		if out.Frontmatter, short = shortFrontmatter(note.Frontmatter); short != "" {
			out.Shortened = append(out.Shortened, short)
		}
	}
	for _, tg := range tagNames(note) {
		out.Tags = append(out.Tags, clip(tg, maxTextChars))
	}
	var dropped int
	if out.Tags, dropped = within(out.Tags, maxTags, maxTagBytes, func(s string) int { return len(s) + 3 }); dropped > 0 {
		out.Shortened = append(out.Shortened, leftOut(len(out.Tags), dropped, "tag"))
	}
	for _, h := range note.Headings {
		out.Headings = append(out.Headings, HeadingItem{Level: h.Level, Text: clip(h.Text, maxTitleChars), Line: h.Line})
	}
	if out.Headings, dropped = within(out.Headings, maxHeadings, maxHeadingBytes, func(h HeadingItem) int { return len(h.Text) + 32 }); dropped > 0 {
		out.Shortened = append(out.Shortened, leftOut(len(out.Headings), dropped, "heading"))
	}
	if in.Heading != "" {
		text := noteText(data)
		if id, isBlock := strings.CutPrefix(in.Heading, "^"); isBlock {
			// The index keeps no block ids: the note is parsed for them.
			parsed, perr := t.parse(ctx, rel, data)
			if perr != nil {
				return nil, out, perr
			}
			text, err = block(text, parsed.Blocks, id)
		} else {
			text, err = section(text, note.Headings, in.Heading)
		}
		if err != nil {
			return nil, out, err
		}
		data = []byte(text)
	}
	pg, err := t.page(data, in.Paging)
	if err != nil {
		return nil, out, err
	}
	out.Content, out.Offset, out.NextOffset, out.TotalChars = pg.Content, pg.Offset, pg.NextOffset, pg.TotalChars

	// The index keeps a note's links in the order the parser finds them.
	// Several links can share a line and kind, so each line and kind has
	// a queue of targets, taken in that order; an edit since the last
	// index run at worst leaves a link without its target.
	type at struct {
		line int
		kind string
	}
	targets := map[at][]string{}
	edges, err := use(t.graph, "the link graph", func(g LinkGraph) ([]graph.Edge, error) { return g.Outlinks(ctx, v.Name, rel) })
	// What the link graph could not give, and why (the first failure's
	// reason: the same graph fails the same way twice).
	var why string
	var missing []string
	if err != nil {
		var stop error
		if why, stop = t.fallback(ctx, "the link graph", err); stop != nil {
			return nil, out, stop
		}
		missing = append(missing, "links are not resolved to files")
		out.unresolved = true
	}
	for _, e := range edges {
		target := ""
		if e.Resolved {
			target = e.Target
		}
		k := at{e.Line, e.Kind}
		targets[k] = append(targets[k], target)
	}
	for _, l := range note.Links {
		item := LinkItem{Target: clip(l.Target, maxTextChars), Subpath: clip(l.Subpath, maxTextChars), Kind: string(l.Kind), Text: clip(l.Display, maxTextChars), Line: l.Line}
		k := at{l.Line, string(l.Kind)}
		if q := targets[k]; len(q) > 0 {
			item.Resolved, targets[k] = q[0], q[1:]
		}
		if l.Target == "" {
			item.Resolved = rel
		}
		out.Links = append(out.Links, item)
	}
	if out.Links, dropped = within(out.Links, maxLinks, maxLinkBytes, func(l LinkItem) int {
		return len(l.Target) + len(l.Resolved) + len(l.Subpath) + len(l.Text) + 48
	}); dropped > 0 {
		out.Shortened = append(out.Shortened, leftOut(len(out.Links), dropped, "link"))
	}
	back, err := use(t.graph, "the link graph", func(g LinkGraph) (graph.BacklinkPage, error) {
		return g.BacklinksUpTo(ctx, v.Name, rel, maxBacklinks)
	})
	if err == nil {
		for _, e := range back.Edges {
			if t.excluded(v.Name, e.Source) {
				continue // the index holds it under other rules
			}
			out.Backlinks = append(out.Backlinks, BacklinkItem{Source: e.Source, Line: e.Line, Kind: e.Kind, Context: clip(e.Context, maxTextChars)})
		}
		// The text lists each source again: its size counts twice.
		out.Backlinks, _ = within(out.Backlinks, maxBacklinks, maxBacklinkBytes, func(b BacklinkItem) int {
			return 2*len(b.Source) + len(b.Context) + 48
		})
		out.BacklinkCount = max(back.Total, len(out.Backlinks))
		if len(out.Backlinks) < out.BacklinkCount {
			out.Shortened = append(out.Shortened, fmt.Sprintf("%d of %s", len(out.Backlinks), words.Count(out.BacklinkCount, "backlink")))
		}
	} else {
		if why == "" {
			var stop error
			if why, stop = t.fallback(ctx, "the link graph", err); stop != nil {
				return nil, out, stop
			}
		}
		missing = append(missing, "backlinks are unknown")
	}
	if len(missing) > 0 {
		out.degrade(why + "; " + strings.Join(missing, ", and ") + "; the note itself was read from disk")
	}
	// A section or a later page is read for its text: the backlinks were
	// listed with the first page of the whole note.
	return renderNote(out, in.Heading != "" || in.Offset > 0, t.offered[ToolEditNote]), out, nil
}

// locate finds the vault and path of a note: an exact vault-relative path
// first, then the index's lookup (graph.FindNote), then the files on disk
// by the same rules of link resolution.
func (t *tools) locate(ctx context.Context, vaultName, ref string) (config.Vault, string, []graph.Ref, error) {
	return t.locateAfter(ctx, vaultName, ref, func() (graph.Match, error) {
		return use(t.graph, "the link graph", func(g LinkGraph) (graph.Match, error) { return g.FindNote(ctx, vaultName, ref) })
	})
}

// locateAfter is locate with the index's lookup given: a tool whose own
// index query already looked the note up passes its answer rather than
// asking again.
func (t *tools) locateAfter(ctx context.Context, vaultName, ref string, lookup func() (graph.Match, error)) (config.Vault, string, []graph.Ref, error) {
	if filepath.IsAbs(strings.TrimSpace(ref)) {
		ref = strings.TrimSpace(ref)
		// A full path into a vault's folder is the note at its place
		// there; any other is refused with what to pass instead.
		for _, v := range t.vaults {
			if r, err := filepath.Rel(v.Path, ref); err == nil && r != "." && !strings.HasPrefix(r, "..") && (vaultName == "" || vaultName == v.Name) {
				ref, vaultName = filepath.ToSlash(r), v.Name
				break
			}
		}
		if filepath.IsAbs(ref) {
			return config.Vault{}, "", nil, fmt.Errorf("%s is a full path outside the vaults' folders: pass a path relative to a vault's folder, as search results give it", quoteArg(ref))
		}
	}
	rel := strings.TrimPrefix(strings.ReplaceAll(ref, `\`, "/"), "/")
	if strings.HasSuffix(rel, "/") {
		if v, ok := t.folderOf(vaultName, rel); ok {
			return config.Vault{}, "", nil, errors.New(folderNotNote(ref, v, rel))
		}
	}
	var found []config.Vault
	var foundRel string
	for _, v := range t.vaults {
		if vaultName != "" && v.Name != vaultName {
			continue
		}
		p, ok, err := notePath(v, rel)
		if err != nil {
			return v, "", nil, err
		}
		if ok {
			found = append(found, v)
			foundRel = p
		}
	}
	switch len(found) {
	case 1:
		return found[0], foundRel, nil, nil
	case 0:
	default:
		var names []string
		for _, v := range found {
			names = append(names, fmt.Sprintf("%q", v.Name))
		}
		return config.Vault{}, "", nil, fmt.Errorf("%s exists in vaults %s; pass vault to choose one", rel, strings.Join(names, " and "))
	}
	m, indexErr := lookup()
	if indexErr == nil {
		if vaultName == "" {
			if err := oneVault(ref, m); err != nil {
				return config.Vault{}, "", nil, err
			}
		}
		for _, v := range t.vaults {
			if v.Name == m.Vault {
				return v, m.Path, m.Others, nil
			}
		}
	}
	// A name the index does not know is resolved against the files on
	// disk, by the same rules, while the index cannot be trusted to hold
	// every note: it could not be read, or it is being built (listing
	// every folder costs too much to do on every miss of a complete
	// index). The index's answer, which names the closest notes, is kept
	// for a note that is nowhere.
	if !errors.Is(indexErr, graph.ErrNoteNotFound) || t.state(vaultName).State != index.StateReady {
		if v, p, ok := resolveOnDisk(ctx, t.vaults, vaultName, ref); ok {
			return v, p, nil, nil
		}
	}
	// A vault whose folder is gone, or whose first index is under way,
	// may hold the note: the answer says so rather than that it is
	// nowhere.
	missing := notFoundText(indexErr, ref)
	if v, ok := t.folderOf(vaultName, rel); ok {
		missing = folderNotNote(ref, v, rel)
	}
	if u := t.unready(ctx, vaultName, t.state(vaultName)); u.Has() {
		if u.Empty == "" {
			// Some vault was searched whole: the note is not there, and
			// the others are only a possibility.
			return config.Vault{}, "", nil, fmt.Errorf("%s (in the vaults that can be read; it may be in one that cannot: %s)", missing, strings.Join(u.For(0), "; "))
		}
		return config.Vault{}, "", nil, fmt.Errorf("no note %s was found: %s", quoteArg(ref), strings.Join(u.For(0), "; "))
	}
	return config.Vault{}, "", nil, errors.New(missing)
}

// folderOf names the vault that has a folder at the vault-relative path
// rel, when one does (only vaultName's when set); such a path names no
// note.
func (t *tools) folderOf(vaultName, rel string) (string, bool) {
	rel = strings.Trim(rel, "/")
	if rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", false
	}
	for _, v := range t.vaults {
		if vaultName != "" && v.Name != vaultName {
			continue
		}
		if isFolder(v.Path, rel) && !vault.LeftOut(rel, v.Exclude) {
			return v.Name, true
		}
	}
	return "", false
}

// folderNotNote says that ref, the folder rel of vault v, is no note.
func folderNotNote(ref, v, rel string) string {
	return fmt.Sprintf("%s is a folder of vault %q, not a note: pass the path of a note in it, as search-vault (with path_prefix %q) or list-vaults give them", quoteArg(ref), v, strings.TrimSuffix(rel, "/")+"/")
}

// isFolder reports whether rel names a folder beneath root reached
// without a symbolic link: one through a link may be anywhere, and is
// not told of.
func isFolder(root, rel string) bool {
	p := root
	for _, part := range strings.Split(rel, "/") {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// notFoundText says that no note answers to ref, with the closest the
// index knows (indexErr) and one instruction.
func notFoundText(indexErr error, ref string) string {
	nf := shortNotFound(indexErr)
	switch {
	case nf == nil:
		return fmt.Sprintf("no note %s exists; search-vault with a few of its words finds its path", quoteArg(ref))
	case len(nf.Suggestions) > 0:
		return nf.Error() // which says to pass one of them
	}
	return nf.Error() + "; pass the vault-relative path that search results give"
}

// block returns the block of text with the block id id ("gasline" for
// ^gasline), as a link [[Note#^gasline]] shows it: the list item or the
// line the id ends, or, for an id on a line of its own or ending a
// paragraph, the lines back to the blank line before them.
func block(text string, blocks []vault.Block, id string) (string, error) {
	i := slices.IndexFunc(blocks, func(b vault.Block) bool { return strings.EqualFold(b.ID, id) })
	if i < 0 {
		if len(blocks) == 0 {
			return "", fmt.Errorf("the note has no block ^%s, and no block ids at all; read it without heading", id)
		}
		ids := make([]string, 0, min(len(blocks), 20))
		for _, b := range blocks[:min(len(blocks), 20)] {
			ids = append(ids, "^"+b.ID)
		}
		return "", fmt.Errorf("the note has no block ^%s; its blocks are %s", id, strings.Join(ids, ", "))
	}
	lines := strings.SplitAfter(text, "\n")
	end := min(blocks[i].Line, len(lines)) // 1-based, the line holding the id
	if end < 1 {
		return "", fmt.Errorf("the note has no block ^%s", id)
	}
	marked := strings.TrimSpace(lines[end-1])
	if marked == "^"+blocks[i].ID && end > 1 {
		end-- // an id alone on its line marks what is above it
	}
	if isListItem(lines[end-1]) {
		return lines[end-1], nil
	}
	start := end
	for start > 1 {
		prev := strings.TrimSpace(lines[start-2])
		if prev == "" || strings.HasPrefix(prev, "#") {
			break
		}
		start--
	}
	return strings.Join(lines[start-1:end], ""), nil
}

// isListItem reports whether a line is an item of a list: "- x", "* x",
// "1. x", "- [ ] task", indented or not.
func isListItem(line string) bool {
	t := strings.TrimLeft(line, " \t")
	if len(t) > 1 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	d := 0
	for d < len(t) && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	return d > 0 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && t[d+1] == ' '
}

// section returns the part of text under the heading named want, up to the
// next heading of the same or a higher level; vault.FindHeading says which
// heading a name or heading path means.
func section(text string, headings []vault.Heading, want string) (string, error) {
	if best := vault.FindHeading(headings, want); best >= 0 {
		h := headings[best]
		lines := strings.SplitAfter(text, "\n")
		from := min(h.Line-1, len(lines))
		to := len(lines)
		if end := vault.SectionEnd(headings, best); end > 0 {
			to = min(end, len(lines))
		}
		return strings.Join(lines[from:to], ""), nil
	}
	if err := calloutNotHeading(text, headings, want); err != nil {
		return "", err
	}
	if len(headings) == 0 {
		return "", fmt.Errorf("the note has no headings; read it without heading")
	}
	// Headings sharing a word with the one asked for come first.
	parts := strings.Split(want, " > ")
	words := strings.Fields(vault.HeadingKey(parts[len(parts)-1]))
	var near, rest []string
	for _, h := range headings {
		k := vault.HeadingKey(h.Text)
		if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(k, w) }) {
			near = append(near, quoteArg(h.Text))
		} else {
			rest = append(rest, quoteArg(h.Text))
		}
	}
	names := append(near, rest...)
	if len(names) > 20 {
		return "", sentence(fmt.Sprintf("the note has no heading %s; its headings include %s and %d more.", quoteArg(want), strings.Join(names[:20], ", "), len(names)-20))
	}
	if len(names) == 1 {
		return "", sentence(fmt.Sprintf("the note has no heading %s; its one heading is %s.", quoteArg(want), names[0]))
	}
	return "", sentence(fmt.Sprintf("the note has no heading %s; its headings are %s and %s.", quoteArg(want), strings.Join(names[:len(names)-1], ", "), names[len(names)-1]))
}

// calloutTitle is the first line of a callout: "> [!quote] p. 41", its
// title after the type.
var calloutTitle = regexp.MustCompile(`^\s*(?:>\s*)+\[![^\]]+\][+-]?[ \t]*(.*)$`)

// calloutNotHeading is the error for a heading asked for that is the
// title of a callout of the note, as "p. 41" of "> [!quote] p. 41" is:
// what to read instead. Nil when no callout has that title.
func calloutNotHeading(text string, headings []vault.Heading, want string) error {
	key := vault.HeadingKey(want)
	for i, line := range strings.Split(text, "\n") {
		m := calloutTitle.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil || vault.HeadingKey(m[1]) != key {
			continue
		}
		above := ""
		for _, h := range headings {
			if h.Line <= i+1 {
				above = h.Text
			}
		}
		how := "read the note without heading"
		if above != "" {
			how = "read the heading above it, " + quoteArg(above)
		}
		return sentence(fmt.Sprintf("%s is the title of a callout on line %d, not a heading; %s, or give the callout a block id (a line \"^id\" after it) and read heading \"^id\".", quoteArg(want), i+1, how))
	}
	return nil
}

// sentence is a message the reader sees as it is, ending in a full stop
// as a sentence does; it is not wrapped further.
func sentence(msg string) error { return errors.New(msg) }

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	best, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// pageEnd is where a page of at most max characters from offset ends: at
// the end of the note, or else after the last blank line, line break or
// space in its second half, so that a page does not stop mid-word.
func pageEnd(runes []rune, offset, max int) int {
	end := min(len(runes), offset+max)
	if end == len(runes) {
		return end
	}
	floor := offset + max/2
	for _, after := range []func(i int) bool{
		func(i int) bool { return runes[i-1] == '\n' && runes[i-2] == '\n' },
		func(i int) bool { return runes[i-1] == '\n' },
		func(i int) bool { return runes[i-1] == ' ' },
	} {
		for i := end; i > floor && i >= 2; i-- {
			if after(i) {
				return i
			}
		}
	}
	return end
}

// writeFenced writes a note's text in a fence longer than any run of
// backticks in it, so that its own frontmatter dashes and code fences
// cannot be taken for the end of the note.
func writeFenced(b *strings.Builder, content string) {
	writeFencedAs(b, content, "markdown")
}

// writeFencedAs is writeFenced for a text in the language lang.
func writeFencedAs(b *strings.Builder, content, lang string) {
	fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	b.WriteString("\n" + fence + lang + "\n")
	b.WriteString(content)
	if !strings.HasSuffix(content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n")
}

// etagLine is the line of a note's text answer that gives its etag, for
// the tools (tools) that take it, when writing is on.
func etagLine(etag, tools string) string {
	return fmt.Sprintf("etag: %s (pass it with %s)\n", etag, tools)
}

// renderNote is read-note's text. brief (a section or a later page) only
// counts the links and backlinks, which are the whole note's; writes puts
// in the etag the write tools take.
func renderNote(out ReadNoteOutput, brief, writes bool) *mcpsdk.CallToolResult {
	if out.lang != "" {
		return renderOther(out)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n`%s` in vault %s, %s, modified %s", out.Title, out.Path, out.Vault, words.Count(out.Size, "byte"), out.Modified)
	if len(out.Tags) > 0 {
		fmt.Fprintf(&b, ", tags #%s", strings.Join(out.Tags, " #"))
	}
	b.WriteString("\n")
	if writes {
		b.WriteString(etagLine(out.ETag, "edit-note, move-note or delete-note"))
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "\n> Warning: %s.\n", w)
	}
	if len(out.Shortened) > 0 {
		fmt.Fprintf(&b, "\n> Shortened to keep this answer small: %s.\n", strings.Join(out.Shortened, "; "))
	}
	if len(out.AlsoMatches) > 0 {
		fmt.Fprintf(&b, "\n> %s\n", graph.AlsoMatching(out.AlsoMatches, "read it"))
	}
	b.WriteString(out.line())
	if out.Offset > 0 {
		fmt.Fprintf(&b, "\n(from character %d of %d)\n", out.Offset, out.TotalChars)
	}
	writeFenced(&b, out.Content)
	if out.NextOffset > 0 {
		fmt.Fprintf(&b, "\nThe note continues: call read-note again with offset=%d (%d characters in all).\n", out.NextOffset, out.TotalChars)
	}
	writeLinks(&b, out.Links, brief, !out.unresolved)
	if len(out.Backlinks) > 0 {
		sources := map[string]bool{}
		for _, bl := range out.Backlinks {
			sources[bl.Source] = true
		}
		if out.BacklinkCount > len(out.Backlinks) {
			fmt.Fprintf(&b, "\n%s linking here, %d of them listed (from %s)", words.Count(out.BacklinkCount, "link"), len(out.Backlinks), words.Count(len(sources), "note"))
		} else {
			fmt.Fprintf(&b, "\n%s linking here (from %s)", words.Count(len(out.Backlinks), "link"), words.Count(len(sources), "note"))
		}
		if brief {
			b.WriteString("; read the note without heading or offset to list them.\n")
			return textResult(b.String())
		}
		b.WriteString(":\n")
		// One line per note, with the lines its links are on.
		var order []string
		lines := map[string][]int{}
		for _, bl := range out.Backlinks {
			if lines[bl.Source] == nil {
				order = append(order, bl.Source)
			}
			lines[bl.Source] = append(lines[bl.Source], bl.Line)
		}
		for _, src := range order {
			fmt.Fprintf(&b, "- `%s` %s\n", src, words.Lines(lines[src], "link"))
		}
	}
	return textResult(b.String())
}

// maxTextLinks bounds the links read-note's text lists; its links list
// holds more.
const maxTextLinks = 50

// writeLinks lists the links a note makes, each with where it leads when
// resolved is set, one line per link; brief only counts them.
func writeLinks(b *strings.Builder, links []LinkItem, brief, resolved bool) {
	if len(links) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s in this note", words.Count(len(links), "link"))
	if brief {
		b.WriteString("; read the note without heading or offset to list them.\n")
		return
	}
	if len(links) > maxTextLinks {
		fmt.Fprintf(b, ", the first %d of them listed (the answer's links field has them all)", maxTextLinks)
	}
	b.WriteString(":\n")
	for _, l := range links[:min(len(links), maxTextLinks)] {
		target := l.Target
		if l.Subpath != "" {
			target += "#" + l.Subpath
		}
		where := "leads to no note yet"
		switch {
		case !resolved:
			where = "(where it leads is unknown: see above)"
		case l.Resolved != "":
			where = fmt.Sprintf("leads to `%s`", l.Resolved)
		}
		fmt.Fprintf(b, "- line %d: %s `%s` %s\n", l.Line, l.Kind, target, where)
	}
}
