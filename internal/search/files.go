package search

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// scanFiles is search without the index: it reads every note of the vaults
// and keeps those holding every word of the query, found as keyword search
// finds words (fulltext.Terms: whole words, not letters inside others),
// ranked by how often the words occur (in the name counting most); the
// snippet is keyword search's, from the text after the frontmatter. It is what every mode falls back
// to when the database cannot be used: slow on a large vault, but an
// answer. The filter applies by the same rules as in the index (notes.Filter);
// tags are read by the note parser, and so are the titles of the notes it
// returns (only those: parsing every note would cost a large vault dear).
func scanFiles(ctx context.Context, vaults []config.Vault, query string, f notes.Filter, limit int, content bool) ([]notes.Result, error) {
	terms := fulltext.QueryTerms(query)
	if terms.Units() == 0 {
		return []notes.Result{}, nil
	}
	tag := notes.NormalizeTag(f.Tag)
	var parser *vault.Parser
	if tag != "" {
		parser = vault.NewParser()
	}
	var out []notes.Result
	roots := map[string]*vault.Root{} // by vault name, to read the titles of the results
	for _, v := range vaults {
		if f.Vault != "" && v.Name != f.Vault {
			continue
		}
		root, err := vault.OpenRoot(v.Path, v.Exclude)
		if err != nil {
			continue // an unreadable vault gives no results; list-vaults says why
		}
		roots[v.Name] = root
		files, _, err := root.Scan(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		for _, file := range files {
			if !file.Note || !notes.HasPathPrefix(file.Path, f.PathPrefix) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var text string
			if content || tag != "" {
				data, _, _, err := root.ReadNote(file.Path)
				if err != nil {
					continue
				}
				text, _ = vault.NoteText(data)
			}
			inName := terms.Occurrences(file.Path)
			var inText []int
			if content {
				inText = terms.Occurrences(text)
			}
			score := 0.0
			all := true
			for u, n := range inName {
				if n > 0 {
					score += 5
				}
				m := 0
				if content {
					m = inText[u]
				}
				if n == 0 && m == 0 {
					all = false
					break
				}
				score += float64(min(m, 20))
			}
			if !all {
				continue
			}
			if parser != nil {
				// A note too complex to parse has no tags known.
				note, err := parser.Parse(ctx, file.Path, []byte(text))
				if err != nil && !errors.Is(err, vault.ErrTooComplex) {
					return nil, err
				}
				if !noteHasTag(note, tag) {
					continue
				}
			}
			r := notes.Result{Vault: v.Name, Path: file.Path, Score: score, Line: 1}
			if content {
				body, line := noteBody(text)
				r.Snippet, r.Line, _ = terms.Passage(body, line)
			}
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b notes.Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return notes.CompareTies(a, b)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	if parser == nil {
		parser = vault.NewParser()
	}
	for i := range out {
		title, err := noteTitle(ctx, parser, roots[out[i].Vault], out[i].Path)
		if err != nil {
			return nil, err
		}
		out[i].Title = title
	}
	return out, nil
}

// noteTitle is the title the index gives a note: its frontmatter title
// read by the note parser, or else its file name. Only ctx ending fails
// it.
func noteTitle(ctx context.Context, parser *vault.Parser, root *vault.Root, p string) (string, error) {
	title := vault.TitleFromPath(p)
	data, _, warn, err := root.ReadNote(p)
	if err != nil || warn != "" {
		return title, nil
	}
	text, _ := vault.NoteText(data)
	note, err := parser.Parse(ctx, p, []byte(text))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return title, nil
	}
	if note.Title != "" {
		title = note.Title
	}
	return title, nil
}

// noteBody is a note's text after its frontmatter, the text a snippet is
// taken from as the index takes it, and the line it begins on.
func noteBody(text string) (string, int) {
	text = strings.TrimPrefix(text, "\uFEFF")
	_, _, start, ok := vault.FrontmatterBounds([]byte(text))
	if !ok {
		return text, 1
	}
	return text[start:], 1 + strings.Count(text[:start], "\n")
}

// noteHasTag reports whether a parsed note passes a tag filter.
func noteHasTag(n vault.Note, tag string) bool {
	names := make([]string, len(n.Tags))
	for i, t := range n.Tags {
		names[i] = t.Name
	}
	return notes.HasTag(names, tag)
}
