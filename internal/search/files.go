package search

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// scanFiles is search without the index: it reads every note of the vaults
// and keeps those holding every word of the query, ranked by how often the
// words occur (in the name counting most). It is what every mode falls back
// to when the database cannot be used: slow on a large vault, but an
// answer. The filter applies by the same rules as in the index (notes.Filter);
// tags are read by the note parser.
func scanFiles(ctx context.Context, vaults []config.Vault, query string, f notes.Filter, limit int, content bool) ([]notes.Result, error) {
	words := scanWords(query)
	if len(words) == 0 {
		return []notes.Result{}, nil
	}
	tag := notes.NormalizeTag(f.Tag)
	var parser *vault.Parser
	if tag != "" {
		parser = vault.NewParser()
	}
	var out []notes.Result
	for _, v := range vaults {
		if f.Vault != "" && v.Name != f.Vault {
			continue
		}
		root, err := vault.OpenRoot(v.Path, v.Exclude)
		if err != nil {
			continue // an unreadable vault gives no results; list-vaults says why
		}
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
			name := strings.ToLower(file.Path)
			score := 0.0
			for _, w := range words {
				if strings.Contains(name, w) {
					score += 5
				}
			}
			var text string
			if content || tag != "" {
				data, _, _, err := root.ReadNote(file.Path)
				if err != nil {
					continue
				}
				text, _ = vault.NoteText(data)
			}
			lower := strings.ToLower(text)
			all := true
			for _, w := range words {
				inName := strings.Contains(name, w)
				n := 0
				if content {
					n = strings.Count(lower, w)
				}
				if !inName && n == 0 {
					all = false
					break
				}
				score += float64(min(n, 20))
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
			r := notes.Result{Vault: v.Name, Path: file.Path, Title: vault.TitleFromPath(file.Path), Score: score, Line: 1}
			if content {
				r.Line, r.Snippet = matchLine(text, words)
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
	return out, nil
}

// scanWords are the lower-case words of a query, without FTS operators.
func scanWords(q string) []string {
	fields := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
	var out []string
	for _, f := range fields {
		if f == "and" || f == "or" || f == "not" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// matchLine returns the first line holding a query word, as the snippet.
func matchLine(text string, words []string) (int, string) {
	for i, line := range strings.Split(text, "\n") {
		l := strings.ToLower(line)
		for _, w := range words {
			if strings.Contains(l, w) {
				return i + 1, Excerpt(line, 200)
			}
		}
	}
	return 1, ""
}

// noteHasTag reports whether a parsed note passes a tag filter.
func noteHasTag(n vault.Note, tag string) bool {
	names := make([]string, len(n.Tags))
	for i, t := range n.Tags {
		names[i] = t.Name
	}
	return notes.HasTag(names, tag)
}
