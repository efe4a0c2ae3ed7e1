package mcp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// textLanguages are the files beside notes that read-note shows as text,
// by extension, with the language of their fence: a base is YAML, a
// canvas JSON.
var textLanguages = map[string]string{
	".base": "yaml", ".canvas": "json", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
	".csv": "csv", ".tsv": "tsv", ".txt": "text", ".css": "css", ".js": "javascript",
	".xml": "xml", ".html": "html",
}

// readOther is read-note's answer for a file of the vault that is not a
// note: a text file (textLanguages) in a fence of its language, in pages;
// any other, never its bytes, but what it is, how large, and which notes
// embed or link to it.
func (t *tools) readOther(ctx context.Context, v config.Vault, rel string, in ReadNoteInput, out ReadNoteOutput) (*mcpsdk.CallToolResult, ReadNoteOutput, error) {
	ext := strings.ToLower(path.Ext(rel))
	kind, ok := vault.AttachmentKind(rel)
	if !ok {
		kind = "an"
	}
	data, st, err := readNote(v, rel)
	if big := (*tooLargeError)(nil); errors.As(err, &big) {
		// Too large to read, whatever it holds: what it is still helps.
		return nil, out, fmt.Errorf("%s is %s attachment (%s), %s; read-note reads the text of notes and of text files up to %d MB", path.Base(rel), kind, sizeText(big.size), t.usedBy(ctx, v.Name, rel), vault.MaxNoteSize>>20)
	}
	if err != nil {
		return nil, out, err
	}
	lang, ok := textLanguages[ext]
	if !ok || !utf8.Valid(data) {
		return nil, out, fmt.Errorf("%s is %s attachment (%s), %s; read-note reads the text of notes", path.Base(rel), kind, sizeText(int64(len(data))), t.usedBy(ctx, v.Name, rel))
	}
	if in.Heading != "" {
		return nil, out, fmt.Errorf("%s is not a note, so it has no headings; read it without heading", path.Base(rel))
	}
	pg, err := t.page(data, in.Paging)
	if err != nil {
		return nil, out, err
	}
	out.Vault, out.Path, out.Title, out.lang = v.Name, rel, path.Base(rel), lang
	out.Size, out.Modified = st.Size(), st.ModTime().UTC().Format(time.RFC3339)
	out.Content, out.Offset, out.NextOffset, out.TotalChars = pg.Content, pg.Offset, pg.NextOffset, pg.TotalChars
	return renderNote(out, true, false), out, nil
}

// sizeText words a file's size: bytes up to a megabyte, whole megabytes
// above ("50 MB").
func sizeText(n int64) string {
	if n < 1<<20 {
		return words.Count(n, "byte")
	}
	return fmt.Sprintf("%d MB", n>>20)
}

// usedBy says which notes embed or link to the file rel: "embedded by
// Kitchen renovation.md", "which no note links to".
func (t *tools) usedBy(ctx context.Context, vaultName, rel string) string {
	const most = 5
	back, err := use(t.graph, "the link graph", func(g LinkGraph) (graph.BacklinkPage, error) {
		return g.BacklinksUpTo(ctx, vaultName, rel, maxBacklinks)
	})
	if err != nil {
		return "and which notes use it is unknown now (the link graph is unavailable)"
	}
	var embeds, links []string
	seen := map[string]bool{}
	for _, e := range back.Edges {
		if seen[e.Source] || t.excluded(vaultName, e.Source) {
			continue
		}
		seen[e.Source] = true
		if e.Kind == "embed" {
			embeds = append(embeds, e.Source)
		} else {
			links = append(links, e.Source)
		}
	}
	name := func(sources []string) string {
		if len(sources) > most {
			return strings.Join(sources[:most], ", ") + fmt.Sprintf(" and %d more", len(sources)-most)
		}
		return words.List(sources)
	}
	switch {
	case len(embeds) > 0 && len(links) > 0:
		return "embedded by " + name(embeds) + " and linked from " + name(links)
	case len(embeds) > 0:
		return "embedded by " + name(embeds)
	case len(links) > 0:
		return "linked from " + name(links)
	}
	return "which no note embeds or links to"
}

// renderOther is read-note's text for a file that is not a note, read
// as text.
func renderOther(out ReadNoteOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n`%s` in vault %s, %s, modified %s: not a note, shown as %s\n", out.Title, out.Path, out.Vault, words.Count(out.Size, "byte"), out.Modified, out.lang)
	if strings.EqualFold(path.Ext(out.Path), ".base") {
		fmt.Fprintf(&b, "It is a base: query-notes runs it, with base %q.\n", out.Path)
	}
	if out.Offset > 0 {
		fmt.Fprintf(&b, "\n(from character %d of %d)\n", out.Offset, out.TotalChars)
	}
	writeFencedAs(&b, out.Content, out.lang)
	if out.NextOffset > 0 {
		fmt.Fprintf(&b, "\nThe file continues: call read-note again with offset=%d (%s in all).\n", out.NextOffset, words.Count(out.TotalChars, "character"))
	}
	return textResult(b.String())
}
