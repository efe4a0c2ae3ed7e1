package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// maxQuoted is how much of an argument an error quotes: enough to
// recognise it, whatever size it was sent at.
const maxQuoted = 80

// quoteArg quotes an argument, or a name from a note, for a message to
// the model: its first maxQuoted characters. Every message that names what
// the caller sent goes through it, so that no reply grows with the request.
func quoteArg(s string) string {
	return strconv.Quote(clip(s, maxQuoted))
}

// clip returns s cut to at most n characters, at a character boundary and
// ending in "…" when it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for at := range s {
		if i == n {
			return s[:at] + "…"
		}
		i++
	}
	return s
}

// shortNotFound is the *graph.NotFoundError in err, if any, with the
// reference it quotes cut as quoteArg cuts it; nil when err is another
// error.
func shortNotFound(err error) *graph.NotFoundError {
	var nf *graph.NotFoundError
	if !errors.As(err, &nf) {
		return nil
	}
	short := *nf
	short.Ref = clip(nf.Ref, maxQuoted)
	return &short
}

// What one answer lists is capped, whatever a note or the index holds: a
// note can have 100,000 links, a 300 KB frontmatter value or a heading a
// page long, and a model's context should not take them whole. Each list
// keeps at most so many items and so many bytes, each text field at most
// so many characters, and the answer says what it left out. With these a
// read-note answer (structured and text, at the default max_chars) stays
// under 256 KB; the caps are tested on such a note.
const (
	maxTitleChars = 200 // a title or a heading path
	maxTextChars  = 300 // a link's target or text, a backlink's line, a tag
	maxSnippet    = 400 // a search result's passage

	maxHeadings, maxHeadingBytes   = 500, 24 << 10
	maxLinks, maxLinkBytes         = 1000, 64 << 10
	maxBacklinks, maxBacklinkBytes = 50, 16 << 10
	maxTags, maxTagBytes           = 200, 4 << 10
	maxAlsoMatches                 = 20
	maxWarnings                    = 10
	maxFrontmatterBytes            = 32 << 10
	maxFrontmatterItems            = 20 // of one list or mapping in the frontmatter
	maxNodeTags                    = 10
	maxResourceBytes               = 1 << 20  // a note read as a resource
	maxResourceURIBytes            = 16 << 10 // a 4096-byte path, every byte percent-encoded
)

// within keeps the first items while there are at most n of them and
// their sizes add up to at most bytes; it returns them and how many were
// left out.
func within[T any](items []T, n, bytes int, size func(T) int) ([]T, int) {
	used := 0
	for i, it := range items {
		used += size(it)
		if i == n || used > bytes {
			return items[:i], len(items) - i
		}
	}
	return items, 0
}

// leftOut words what a list left out: "the first 500 of 50000 headings".
func leftOut(kept, dropped int, noun string) string {
	return fmt.Sprintf("the first %d of %d %ss", kept, kept+dropped, noun)
}

// shortFrontmatter returns fm with every string cut to maxTextChars
// characters, every list and mapping to maxFrontmatterItems items, and
// then as many properties, in name order, as fit maxFrontmatterBytes of
// JSON. It says what it changed, or "" when fm is small enough whole.
func shortFrontmatter(fm map[string]any) (map[string]any, string) {
	if data, err := json.Marshal(fm); err == nil && len(data) <= maxFrontmatterBytes {
		return fm, ""
	}
	out := map[string]any{}
	used, dropped := 0, 0
	for _, k := range slices.Sorted(maps.Keys(fm)) {
		v := shortValue(fm[k], 0)
		data, err := json.Marshal(v)
		if err != nil || used+len(k)+len(data) > maxFrontmatterBytes {
			dropped++
			continue
		}
		used += len(k) + len(data)
		out[clip(k, maxTextChars)] = v
	}
	note := "frontmatter: long values shortened"
	if dropped > 0 {
		note += fmt.Sprintf("; %d of %s left out", dropped, words.CountAs(len(fm), "property", "properties"))
	}
	return out, note
}

// shortValue is one frontmatter value cut as shortFrontmatter cuts them;
// what is nested deeper than three levels is left out.
func shortValue(v any, depth int) any {
	if depth > 3 {
		return "…"
	}
	switch v := v.(type) {
	case string:
		return clip(v, maxTextChars)
	case []any:
		out := []any{}
		for i, x := range v {
			if i == maxFrontmatterItems {
				out = append(out, fmt.Sprintf("… and %d more", len(v)-i))
				break
			}
			out = append(out, shortValue(x, depth+1))
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i == maxFrontmatterItems {
				out["…"] = fmt.Sprintf("and %d more", len(v)-i)
				break
			}
			out[clip(k, maxTextChars)] = shortValue(v[k], depth+1)
		}
		return out
	}
	return v
}

// shortResults cuts each search result's title, heading and passage.
func shortResults(rs []notes.Result) {
	for i := range rs {
		r := &rs[i]
		r.Title, r.Heading, r.Snippet = clip(r.Title, maxTitleChars), clip(r.Heading, maxTitleChars), clip(r.Snippet, maxSnippet)
	}
}
