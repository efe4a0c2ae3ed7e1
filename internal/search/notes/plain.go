package notes

import (
	"path"
	"regexp"
	"strings"
)

// Plain is a passage of a note's Markdown as its reader sees it, on one
// line: the text of a snippet, whichever search made it. Heading marks,
// quote and callout markers, list bullets, code fences and the rows of
// dashes under a table's head go; a link shows its text ("[[Page|shown]]"
// shows "shown", "[[Page#Part]]" shows "Page > Part", "[text](url)" shows
// "text"); an embedded attachment (an image, a PDF) shows nothing, as it
// holds no text; lines are joined by spaces. Characters that are not
// Markdown, such as the markers a search puts around matched words, pass
// through. A passage cut out of the middle of a note may begin or end
// inside a link: its stray brackets go too.
func Plain(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	// fence is the marks that opened the code block the line is in ("```"
	// or "~~~"), "" outside one; depth is how many quote markers its
	// lines begin with, the code block being inside a quote or callout.
	fence, depth := "", 0
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			// Code: only the quote markers of the quote it is in go.
			for i := 0; i < depth && strings.HasPrefix(t, ">"); i++ {
				t = strings.TrimSpace(t[1:])
			}
			if strings.HasPrefix(t, fence) {
				fence = ""
				continue // the closing fence
			}
		} else if f, d, ok := opensCode(t); ok {
			fence, depth = f, d
			continue // the fence; the code inside stays
		} else {
			// A passage cut from the middle of a note begins "…".
			cut := strings.HasPrefix(t, "…")
			t = plainLine(strings.TrimSpace(strings.TrimPrefix(t, "…")))
			if cut {
				t = "…" + t
			}
		}
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	out := b.String()
	if strings.ContainsAny(out, "[]|") {
		out = outsideCode(out, links)
	}
	return strings.Join(strings.Fields(out), " ")
}

// opensCode reports whether the line t (trimmed, outside code) opens a
// fenced code block, inside any quotes, callouts and list items: "```go",
// "> ```", "- ```sh", "> - ~~~". It gives the fence's marks, which close
// the block, and how many quote markers the block's lines begin with.
func opensCode(t string) (fence string, depth int, ok bool) {
	for strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(t[1:])
		depth++
	}
	for {
		m := bullet.FindStringIndex(t)
		if m == nil {
			break
		}
		t = strings.TrimSpace(t[m[1]:])
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f, depth, true
		}
	}
	return "", 0, false
}

// plainLine drops the block markers at the start of one line of Markdown
// outside a code block.
func plainLine(t string) string {
	// Quotes and callouts, nested: "> > [!tip] Title".
	for strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(t[1:])
	}
	if m := callout.FindStringIndex(t); m != nil {
		t = strings.TrimSpace(t[m[1]:])
	}
	if m := heading.FindStringIndex(t); m != nil {
		return strings.TrimSpace(t[m[1]:])
	}
	if tableRule.MatchString(t) {
		return ""
	}
	if m := bullet.FindStringIndex(t); m != nil {
		t = strings.TrimSpace(t[m[1]:])
	}
	if strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") && len(t) > 1 {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	return t
}

var (
	heading   = regexp.MustCompile(`^#{1,6}(\s+|$)`)
	callout   = regexp.MustCompile(`^\[![^\]]*\][+-]?`)
	bullet    = regexp.MustCompile(`^([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?`)
	tableRule = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)
	wikilink  = regexp.MustCompile(`(!?)\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]`)
	mdLink    = regexp.MustCompile(`(!?)\[([^\[\]]*)\]\([^()\s]*\)`)
)

// outsideCode applies f to the parts of s outside inline code spans: a
// span shows its text as written (`[[Note]]` in a note that teaches the
// syntax stays as it is). An unclosed backtick starts no span.
func outsideCode(s string, f func(string) string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An odd number of backticks: the last opens nothing.
		last := parts[len(parts)-2] + "`" + parts[len(parts)-1]
		parts = append(parts[:len(parts)-2], last)
	}
	for i := 0; i < len(parts); i += 2 {
		parts[i] = f(parts[i])
	}
	return strings.Join(parts, "`")
}

// links replaces wikilinks and Markdown links by the text they show, and
// drops embedded attachments and the brackets of links cut in half.
func links(s string) string {
	s = wikilink.ReplaceAllStringFunc(s, func(m string) string {
		g := wikilink.FindStringSubmatch(m)
		embed, target, shown := g[1] == "!", g[2], g[3]
		if embed && attachment(target) {
			return ""
		}
		if shown != "" {
			return shown
		}
		target = strings.TrimSpace(target)
		page, part, _ := strings.Cut(target, "#")
		part = strings.TrimPrefix(part, "^")
		switch {
		case page == "":
			return part
		case part == "":
			return page
		}
		return page + " > " + part
	})
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		g := mdLink.FindStringSubmatch(m)
		if g[1] == "!" {
			return ""
		}
		return g[2]
	})
	return strayBrackets.Replace(cutLinks(s))
}

// strayBrackets are the halves of links a cut leaves.
var strayBrackets = strings.NewReplacer("![[", "", "[[", "", "]]", "")

// cutLinks turns the halves of wikilinks a passage was cut in into the
// text they show: "…note#^bloom|pour over]] at" begins "…pour over at",
// and "see the [[Pour over#^bloom|pour" ends "see the pour".
func cutLinks(s string) string {
	if rest, ok := strings.CutPrefix(s, "…"); ok {
		// Cut inside a link whose end the passage does not reach either:
		// "…devices|sync data across…". A pipe with no space on either
		// side is a link's, not a table's.
		bar := strings.Index(rest, "|")
		if bar > 0 && bar+1 < len(rest) && rest[bar-1] != ' ' && rest[bar+1] != ' ' &&
			!strings.Contains(rest[:bar], "[[") && !strings.Contains(rest[:bar], "]]") && !strings.Contains(rest, "]]") {
			s = "…" + rest[bar+1:]
		}
	}
	if end := strings.Index(s, "]]"); end >= 0 {
		if open := strings.Index(s, "[["); open < 0 || open > end {
			from := 0
			if strings.HasPrefix(s, "…") {
				from = len("…")
			}
			if sp := strings.LastIndex(s[:end], " "); sp >= from && !strings.Contains(s[from:end], "|") {
				from = sp + 1 // no display text: only the last word was the link's
			}
			s = s[:from] + shownPart(s[from:end]) + s[end+len("]]"):]
		}
	}
	if open := strings.LastIndex(s, "[["); open >= 0 && !strings.Contains(s[open:], "]]") {
		start := open
		if start > 0 && s[start-1] == '!' {
			start--
		}
		rest := s[open+len("[["):]
		cut := strings.HasSuffix(rest, "…")
		s = s[:start] + shownPart(strings.TrimSuffix(rest, "…"))
		if cut {
			s += "…"
		}
	}
	return s
}

// shownPart is what part of a link, cut in half, shows: its display text
// after "|" when it has one, else its target with a subpath as Obsidian
// shows it ("Page > Heading").
func shownPart(link string) string {
	if i := strings.LastIndex(link, "|"); i >= 0 {
		return link[i+1:]
	}
	link = strings.TrimSuffix(link, `\`)
	page, part, found := strings.Cut(link, "#")
	if !found {
		return page
	}
	part = strings.TrimPrefix(part, "^")
	if page == "" {
		return part
	}
	return page + " > " + part
}

// attachment reports whether an embed's target names a file that is not a
// note: one with an extension other than .md.
func attachment(target string) bool {
	page, _, _ := strings.Cut(target, "#")
	ext := strings.ToLower(path.Ext(strings.TrimSpace(page)))
	return ext != "" && ext != ".md"
}
