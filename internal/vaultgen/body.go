package vaultgen

import (
	"bytes"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// noteStat is what writing one note produced.
type noteStat struct {
	links, broken int
}

// writer renders notes from the plan. One writer per goroutine; it reuses
// its buffer and random source from note to note.
type writer struct {
	g         *generator
	src       rand.PCG
	rng       *rand.Rand
	i         int
	n         *note
	buf       []byte
	fmEnd     int // length of the frontmatter (and the blank line after it)
	words     int
	budget    int
	linksLeft int
	stat      noteStat
	embeds    []string // embed lines waiting for the end of the current block
	attachAt  []int    // section of each of the note's attachments
	footnote  bool
}

func newWriter(g *generator) *writer {
	w := &writer{g: g}
	w.rng = rand.New(&w.src)
	return w
}

// note renders note i. The returned slice is reused by the next call.
func (w *writer) note(i int) ([]byte, noteStat) {
	g := w.g
	w.src.Seed(g.cfg.seed, streamNote+uint64(i))
	w.i, w.n = i, &g.notes[i]
	w.buf, w.words, w.stat, w.embeds, w.footnote = w.buf[:0], 0, noteStat{}, w.embeds[:0], false
	n, r := w.n, w.rng
	// Markup, frontmatter and the last element of each section add about a
	// fifth to the prose, so the prose aims lower to land near n.words.
	w.linksLeft, w.budget = n.links, n.words*4/5

	w.frontmatter()
	if n.words == 0 {
		return w.buf, w.stat
	}
	if len(w.buf) > 0 && r.IntN(2) == 0 {
		w.buf = append(w.buf, '\n')
	}
	w.fmEnd = len(w.buf)

	first := 0
	if n.h1 {
		w.str("# " + n.headings[0].text + "\n")
		first = 1
	}
	if n.role == roleDaily && r.IntN(10) < 6 {
		w.dailyNav()
	}
	if r.IntN(10) == 0 {
		w.blank()
		w.str("Tags: " + w.inlineTag() + " " + w.inlineTag() + "\n")
	}

	sections := len(n.headings) - first
	w.attachAt = w.attachAt[:0]
	for range n.attach {
		s := -1
		if k := r.IntN(sections + 1); k > 0 {
			s = first + k - 1
		}
		w.attachAt = append(w.attachAt, s)
	}

	intro := w.budget
	if sections > 0 {
		intro = min(w.budget, 30+r.IntN(60))
	}
	w.section(-1, intro)
	if n.role == roleIndex {
		w.indexList()
	}
	for s := first; s < len(n.headings); s++ {
		h := n.headings[s]
		w.blank()
		w.str(strings.Repeat("#", h.level) + " " + h.text + "\n")
		left := len(n.headings) - s
		w.section(s, (w.budget-w.words)/left)
	}
	w.leftovers()
	if w.footnote {
		w.blank()
		w.str("[^1]: ")
		w.plainSentence()
		w.str("\n")
	}
	return w.buf, w.stat
}

func (w *writer) str(s string) { w.buf = append(w.buf, s...) }

// blank starts a new block: a blank line after the previous one.
func (w *writer) blank() {
	if len(w.buf) > w.fmEnd && !bytes.HasSuffix(w.buf, []byte("\n\n")) {
		w.buf = append(w.buf, '\n')
	}
}

func (w *writer) flushEmbeds() {
	for _, e := range w.embeds {
		w.blank()
		w.str(e + "\n")
	}
	w.embeds = w.embeds[:0]
}

// section writes the blocks of one section (-1 for the intro) until about
// budget more words are written: first its block ids, then its attachment
// embeds, then random elements.
func (w *writer) section(s, budget int) {
	end := w.words + max(budget, 1)
	for _, b := range w.n.blocks {
		if b.section == s {
			w.blockWithID(b.id)
		}
	}
	for k, a := range w.n.attach {
		if w.attachAt[k] == s {
			w.embeds = append(w.embeds, w.attachmentLink(a))
		}
	}
	for first := true; first || w.words < end; first = false {
		if first && s < 0 {
			w.paragraph()
		} else {
			w.element()
		}
		w.flushEmbeds()
	}
}

func (w *writer) element() {
	switch p := w.rng.IntN(100); {
	case p < 50:
		w.paragraph()
	case p < 66:
		w.list(false)
	case p < 71:
		w.list(true)
	case p < 76:
		w.table()
	case p < 84:
		w.callout()
	case p < 91:
		w.codeBlock()
	case p < 96:
		w.quote()
	case p < 97:
		w.blank()
		w.str("---\n")
		w.words++
	default:
		w.tasks()
	}
}

func (w *writer) paragraph() {
	w.blank()
	k := 1 + w.rng.IntN(5)
	for j := range k {
		if j > 0 {
			w.str(" ")
		}
		w.sentence()
	}
	w.str("\n")
}

// blockWithID writes a paragraph or list item ending in "^id".
func (w *writer) blockWithID(id string) {
	w.blank()
	if w.rng.IntN(10) < 3 {
		w.str("- ")
		w.sentence()
		w.str("\n- ")
		w.sentence()
		w.str(" ^" + id + "\n")
	} else {
		w.sentence()
		w.str(" ")
		w.sentence()
		w.str(" ^" + id + "\n")
	}
	w.flushEmbeds()
}

func (w *writer) list(numbered bool) {
	w.blank()
	r := w.rng
	for j := range 2 + r.IntN(6) {
		if numbered {
			w.str(strconv.Itoa(j+1) + ". ")
		} else {
			w.str("- ")
		}
		w.sentence()
		w.str("\n")
		if r.IntN(5) == 0 {
			w.str("\t- ")
			w.sentence()
			w.str("\n")
		}
	}
}

func (w *writer) tasks() {
	w.blank()
	r := w.rng
	for range 2 + r.IntN(5) {
		if r.IntN(3) == 0 {
			w.str("- [x] ")
		} else {
			w.str("- [ ] ")
		}
		w.str(capitalize(pick(r, imperatives)))
		w.words += 4
		if w.wantLink() {
			if l := w.link(false); l != "" {
				w.str(" for " + l)
			}
		}
		switch r.IntN(6) {
		case 0:
			w.str(" 📅 " + w.date().Format(time.DateOnly))
		case 1:
			w.str(" " + w.inlineTag())
		}
		w.str("\n")
	}
}

func (w *writer) table() {
	w.blank()
	r := w.rng
	cols := make([]string, 0, 4)
	for len(cols) < 2+r.IntN(3) {
		if h := pick(r, tableHeaders); !containsFold(cols, h) {
			cols = append(cols, h)
		}
	}
	w.str("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat(" --- |", len(cols)) + "\n")
	for range 2 + r.IntN(5) {
		w.str("|")
		for _, c := range cols {
			var cell string
			switch c {
			case "Item":
				cell = capitalize(topics[skewed(r, len(topics))])
			case "Status":
				cell = pick(r, statuses)
			case "Owner":
				cell = pick(r, firstNames)
			case "Due", "Date":
				cell = w.date().Format(time.DateOnly)
			case "Cost":
				cell = "€" + strconv.Itoa(5+r.IntN(2000))
			case "Score":
				cell = strconv.Itoa(1+r.IntN(10)) + "/10"
			case "Link":
				cell = "-"
				if w.wantLink() {
					if l := w.link(true); l != "" {
						cell = l
					}
				}
			default:
				cell = pick(r, clauses)
			}
			w.str(" " + cell + " |")
			w.words += 1 + strings.Count(cell, " ")
		}
		w.str("\n")
	}
}

func (w *writer) callout() {
	w.blank()
	r := w.rng
	w.str("> [!" + pick(r, calloutTypes) + "]")
	switch r.IntN(4) {
	case 0:
		w.str("-")
	case 1:
		w.str("+")
	}
	if r.IntN(2) == 0 {
		w.str(" " + capitalize(pick(r, topics)))
	}
	w.str("\n")
	for range 1 + r.IntN(3) {
		w.str("> ")
		if r.IntN(4) == 0 {
			w.str("- ")
		}
		w.sentence()
		w.str("\n")
	}
}

func (w *writer) quote() {
	w.blank()
	w.str("> ")
	w.sentence()
	w.str("\n>\n> — " + pick(w.rng, firstNames) + " " + pick(w.rng, lastNames) + "\n")
}

// codeBlock writes a fenced block whose fake links and tags must not be
// counted by any parser. Half of the fake links name real notes, so a
// parser that looks inside code finds links that seem to resolve.
func (w *writer) codeBlock() {
	w.blank()
	r := w.rng
	sample := codeSamples[r.IntN(len(codeSamples))]
	fence := "```"
	if r.IntN(10) == 0 {
		fence = "~~~"
	}
	fake := "[[not a link]]"
	if r.IntN(2) == 0 {
		fake = "[[" + w.g.notes[r.IntN(len(w.g.notes))].name + "]]"
	}
	rep := strings.NewReplacer("{link}", fake, "{tag}", pick(r, fakeTags))
	w.str(fence + sample.lang + "\n")
	for _, l := range sample.lines {
		w.str(rep.Replace(l) + "\n")
	}
	w.str(fence + "\n")
	w.words += 4 * len(sample.lines)
}

func (w *writer) dailyNav() {
	sib := w.g.folderNotes[w.n.folder]
	pos := 0
	for k, j := range sib {
		if j == w.i {
			pos = k
		}
	}
	var parts []string
	if pos > 0 && w.g.notes[sib[pos-1]].role == roleDaily {
		parts = append(parts, "← [["+w.g.notes[sib[pos-1]].name+"]]")
		w.stat.links++
	}
	if pos+1 < len(sib) && w.g.notes[sib[pos+1]].role == roleDaily {
		parts = append(parts, "[["+w.g.notes[sib[pos+1]].name+"]] →")
		w.stat.links++
	}
	if len(parts) > 0 {
		w.blank()
		w.str(strings.Join(parts, " | ") + "\n")
	}
}

// indexList is the body of a folder's Index note: links to its siblings.
func (w *writer) indexList() {
	w.blank()
	wrote := 0
	for _, j := range w.g.folderNotes[w.n.folder] {
		if j == w.i || wrote == 20 {
			continue
		}
		w.str("- " + w.g.notes[j].wikiRef() + "\n")
		w.stat.links++
		wrote++
	}
	if wrote == 0 {
		w.str("- Nothing here yet.\n")
	}
	w.words += 2 * wrote
}

// leftovers places the links the body did not find room for.
func (w *writer) leftovers() {
	var ls []string
	for w.linksLeft > 0 {
		if l := w.link(false); l != "" {
			ls = append(ls, l)
		}
	}
	if len(ls) > 0 {
		w.blank()
		w.str(pick(w.rng, []string{"Related: ", "See also: ", "Links: "}) + strings.Join(ls, ", ") + "\n")
	}
	w.flushEmbeds()
}

// wantLink decides whether the next sentence carries a link, spreading the
// note's link budget over its expected sentences.
func (w *writer) wantLink() bool {
	if w.linksLeft <= 0 {
		return false
	}
	left := max(1, (w.budget-w.words)/12)
	return w.rng.IntN(left) < w.linksLeft
}

func (w *writer) sentence() {
	n, r := w.n, w.rng
	start := len(w.buf)
	link := ""
	if w.wantLink() {
		link = w.link(false)
	}
	if n.lang != langEnglish && n.lang != langEmoji && r.IntN(10) < 7 {
		s := pick(r, nativeSentences[n.lang])
		w.str(s)
		if link != "" {
			sa := seeAlso[n.lang]
			w.str(" " + sa[0] + link + sa[1])
		}
		if n.lang == langChinese || n.lang == langJapanese {
			w.words += utf8.RuneCountInString(s) / 2
		} else {
			w.words += strings.Count(s, " ") + 1
		}
		return
	}
	if n.lang == langEmoji && r.IntN(3) == 0 {
		w.str(pick(r, emojis) + " ")
	}
	if link != "" {
		if r.IntN(30) == 0 {
			link = "**" + link + "**"
		}
		switch p := r.IntN(100); {
		case p < 50:
			w.str(pick(r, subjects) + " " + pick(r, verbs) + " " + link + pick(r, tails) + ".")
		case p < 70:
			w.str("See " + link + " for " + pick(r, purposes) + ".")
		case p < 85:
			w.str(pick(r, linkIntros) + " " + link + ".")
		default:
			w.clause()
			w.str(" (see " + link + ").")
		}
	} else {
		w.plainSentence()
	}
	switch p := r.IntN(1000); {
	case p < 60:
		w.str(" " + w.inlineTag())
	case p < 75:
		t := strings.ReplaceAll(capitalize(topics[skewed(r, len(topics))]), " ", "_")
		w.str(" [Background](https://en.wikipedia.org/wiki/" + t + ")")
	case p < 82:
		w.str(" More at https://example.com/notes/" + strconv.Itoa(r.IntN(500)) + "#section-" + strconv.Itoa(1+r.IntN(5)) + ".")
	}
	w.words += bytes.Count(w.buf[start:], []byte(" ")) + 1
}

// plainSentence writes a sentence without a link.
func (w *writer) plainSentence() {
	r := w.rng
	switch p := r.IntN(1000); {
	case p < 5:
		w.str("Tracked as issue #" + strconv.Itoa(100+r.IntN(900)) + " in the tracker.")
	case p < 8:
		w.str("I rewrote the importer in C# last year and kept the old one around.")
	case p < 25:
		if r.IntN(2) == 0 {
			w.str("The config lives in `settings.json` under `" + strings.ReplaceAll(topics[skewed(r, len(topics))], " ", "_") + "`.")
		} else {
			w.str("Typing `[[not a link]]` or `#not-a-tag` in inline code shows them literally.")
		}
	case p < 40 && !w.footnote:
		w.str(w.clause() + "[^1]")
		w.footnote = true
	default:
		w.str(w.clause())
	}
}

// clause writes a sentence without its final punctuation and returns that
// punctuation.
func (w *writer) clause() string {
	r := w.rng
	switch p := r.IntN(100); {
	case p < 45:
		w.str(pick(r, subjects) + " " + pick(r, verbs) + " " + w.object() + pick(r, tails))
	case p < 60:
		w.str("The main idea behind " + w.topic() + " is that " + pick(r, clauses))
	case p < 70:
		w.str(capitalize(w.topic()) + " works best when " + pick(r, conditions))
	case p < 78:
		w.str("Question: " + pick(r, questions))
		return "?"
	case p < 86:
		w.str("It took about " + strconv.Itoa(5+r.IntN(90)) + " minutes to " + pick(r, activities))
	case p < 93:
		w.str("Note to self: " + pick(r, imperatives))
	default:
		w.str(pick(r, firstNames) + " pointed out that " + pick(r, clauses))
	}
	return "."
}

// topic is mostly one of the note's own topics, so that notes are about
// something and keyword search has a signal.
func (w *writer) topic() string {
	r := w.rng
	if r.IntN(10) < 4 {
		return topics[w.n.topics[r.IntN(len(w.n.topics))]]
	}
	return topics[r.IntN(r.IntN(len(topics))+1)]
}

func (w *writer) object() string {
	r := w.rng
	t := w.topic()
	if !strings.HasPrefix(t, "the ") {
		t = pick(r, articles) + t
	}
	switch r.IntN(40) {
	case 0:
		return "**" + t + "**"
	case 1:
		return "*" + t + "*"
	case 2:
		return "==" + t + "=="
	}
	return t
}

func (w *writer) inlineTag() string {
	r := w.rng
	if w.n.lang != langEnglish && r.IntN(3) == 0 {
		return "#" + pick(r, unicodeTags)
	}
	return "#" + tagPool[skewed(r, len(tagPool))]
}

func (w *writer) date() time.Time {
	return time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, w.rng.IntN(2500))
}

// wikiRef is how other notes link to n: by base name, or by vault path when
// the base name is shared.
func (n *note) wikiRef() string { return "[[" + n.ref() + "]]" }

func (n *note) ref() string {
	if n.dup {
		return n.linkPath
	}
	return n.name
}

// link renders one link from the note's budget and counts it. Embeds are
// queued to become their own block and "" is returned for them; inTable
// avoids forms with '|' and embeds.
func (w *writer) link(inTable bool) string {
	g, r, n := w.g, w.rng, w.n
	w.linksLeft--
	canValid := len(g.notes) > 1 || len(n.headings) > 0
	if (g.cfg.broken > 0 && r.IntN(10000) < g.cfg.broken) || !canValid {
		if g.cfg.broken == 0 {
			return ""
		}
		w.stat.links++
		w.stat.broken++
		return w.brokenLink(inTable)
	}
	w.stat.links++
	form := r.IntN(1000)
	if form < 40 || len(g.notes) == 1 {
		if len(n.blocks) > 0 && r.IntN(5) == 0 {
			return "[[#^" + n.blocks[r.IntN(len(n.blocks))].id + "]]"
		}
		if len(n.headings) > 0 {
			return "[[#" + n.headings[r.IntN(len(n.headings))].text + "]]"
		}
	}
	if form >= 40 && form < 100 && len(g.aliased) > 0 {
		if a := g.aliased[r.IntN(len(g.aliased))]; a != w.i {
			alias := pick(r, g.notes[a].aliases)
			if !inTable && r.IntN(10) == 0 {
				return "[[" + alias + "|" + pick(r, displays) + "]]"
			}
			return "[[" + alias + "]]"
		}
	}
	t := &g.notes[w.target()]
	ref := t.ref()
	switch {
	case form < 400:
	case form < 520:
		if !inTable {
			return "[[" + ref + "|" + w.display(t) + "]]"
		}
	case form < 620:
		if len(t.headings) > 0 {
			h := t.headings[r.IntN(len(t.headings))].text
			if !inTable && r.IntN(4) == 0 {
				return "[[" + ref + "#" + h + "|" + h + "]]"
			}
			return "[[" + ref + "#" + h + "]]"
		}
	case form < 670:
		if len(t.blocks) > 0 {
			return "[[" + ref + "#^" + t.blocks[r.IntN(len(t.blocks))].id + "]]"
		}
	case form < 710:
		if !inTable {
			e := "![[" + ref + "]]"
			switch p := r.IntN(100); {
			case p < 25 && len(t.headings) > 0:
				e = "![[" + ref + "#" + t.headings[r.IntN(len(t.headings))].text + "]]"
			case p >= 85 && len(t.blocks) > 0:
				e = "![[" + ref + "#^" + t.blocks[r.IntN(len(t.blocks))].id + "]]"
			}
			w.embeds = append(w.embeds, e)
			return ""
		}
	case form < 800:
		dest := t.linkPath + ".md"
		if !t.dup && r.IntN(10) < 4 {
			dest = t.name + ".md"
		}
		dest = escapePath(dest)
		if len(t.headings) > 0 && r.IntN(5) == 0 {
			dest += "#" + url.PathEscape(t.headings[r.IntN(len(t.headings))].text)
		}
		text := t.name
		if r.IntN(3) == 0 {
			text = w.display(t)
		}
		return "[" + text + "](" + dest + ")"
	case form < 880:
		if !inTable && r.IntN(5) == 0 {
			return "[[" + t.linkPath + "|" + w.display(t) + "]]"
		}
		return "[[" + t.linkPath + "]]"
	case form < 900:
		return "[[" + ref + ".md]]"
	case form < 910:
		if !t.dup {
			return "[[" + strings.ToLower(t.name) + "]]"
		}
	}
	return "[[" + ref + "]]"
}

func (w *writer) display(t *note) string {
	if w.rng.IntN(3) == 0 {
		return strings.ToLower(t.name)
	}
	return pick(w.rng, displays)
}

// target picks the note a link points to: often a sibling, sometimes a
// note of a related kind (people from meetings), often a hub.
func (w *writer) target() int {
	g, r := w.g, w.rng
	for {
		var t int
		switch p := r.IntN(100); {
		case p < 35:
			sib := g.folderNotes[w.n.folder]
			t = sib[r.IntN(len(sib))]
		case p < 50:
			pool := g.roleNotes[relatedRole[w.n.role]]
			if len(pool) == 0 {
				continue
			}
			t = pool[r.IntN(len(pool))]
		case p < 75:
			t = g.hubs[skewed(r, len(g.notes))]
		default:
			t = r.IntN(len(g.notes))
		}
		if t != w.i {
			return t
		}
	}
}

var relatedRole = [numRoles]role{
	roleTopic:   roleBook,
	roleDaily:   roleMeeting,
	roleMeeting: rolePerson,
	rolePerson:  roleMeeting,
	roleBook:    roleTopic,
	roleIndex:   roleTopic,
}

func (w *writer) brokenLink(inTable bool) string {
	g, r := w.g, w.rng
	b := g.broken[skewed(r, len(g.broken))]
	if b.attach {
		if inTable {
			return "[[" + b.name + "]]"
		}
		w.embeds = append(w.embeds, "![["+b.name+"]]")
		return ""
	}
	switch p := r.IntN(100); {
	case p < 15 && !inTable:
		return "[[" + b.name + "|" + pick(r, displays) + "]]"
	case p < 30 && b.folder != "":
		return "[[" + b.folder + "/" + b.name + "]]"
	case p < 45:
		return "[" + b.name + "](" + escapePath(b.name+".md") + ")"
	case p < 55:
		return "[[" + b.name + "#Summary]]"
	}
	return "[[" + b.name + "]]"
}

// attachmentLink renders the embed or link of one of the note's
// attachments, as a block of its own.
func (w *writer) attachmentLink(k int) string {
	g, r := w.g, w.rng
	a := g.attachments[k]
	w.stat.links++
	p := r.IntN(100)
	switch a.kind {
	case kindPNG:
		switch {
		case p < 60:
			return "![[" + a.name + "]]"
		case p < 70:
			return "![[" + a.name + "|" + strconv.Itoa(200+100*r.IntN(5)) + "]]"
		case p < 80:
			return "![[" + a.path(g) + "]]"
		}
		return "![" + strings.ToLower(a.title) + "](" + escapePath(a.path(g)) + ")"
	case kindPDF:
		switch {
		case p < 50:
			return "Source: [[" + a.name + "]]"
		case p < 80:
			return "![[" + a.name + "]]"
		}
		return "[" + a.title + " (PDF)](" + escapePath(a.path(g)) + ")"
	}
	if p < 50 {
		return "Map: [[" + a.name + "]]"
	}
	return "![[" + a.name + "]]"
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

var invalidFrontmatter = []string{
	"---\ntags: [draft, ideas\nstatus: draft\n---\n",
	"---\ntitle: \"unterminated\nstatus: draft\n---\n",
	"---\nstatus: draft\n  owner: me\n---\n",
}

func (w *writer) frontmatter() {
	n, r, g := w.n, w.rng, w.g
	switch n.fm {
	case fmNone:
		return
	case fmEmpty:
		w.str("---\n---\n")
		return
	case fmInvalid:
		w.str(pick(r, invalidFrontmatter))
		return
	}
	w.str("---\n")
	if n.title != "" {
		w.str("title: " + yamlString(n.title) + "\n")
	}
	if len(n.aliases) > 0 {
		w.yamlList("aliases", n.aliases)
	}
	if r.IntN(100) < 60 {
		var tags []string
		for range 1 + r.IntN(3) {
			t := tagPool[skewed(r, len(tagPool))]
			if n.lang != langEnglish && r.IntN(3) == 0 {
				t = pick(r, unicodeTags)
			}
			if !containsFold(tags, t) {
				tags = append(tags, t)
			}
		}
		w.yamlList("tags", tags)
	}
	switch n.role {
	case roleDaily, roleMeeting:
		if !n.date.IsZero() {
			w.str("date: " + n.date.Format(time.DateOnly) + "\n")
		}
		if n.role == roleMeeting && len(g.roleNotes[rolePerson]) > 0 && r.IntN(10) < 7 {
			var people []string
			for range 1 + r.IntN(3) {
				people = append(people, w.frontmatterLink(g.roleNotes[rolePerson][r.IntN(len(g.roleNotes[rolePerson]))]))
			}
			w.yamlList("attendees", people)
		}
	case roleBook:
		if len(g.roleNotes[rolePerson]) > 0 && r.IntN(2) == 0 {
			w.str("author: " + w.frontmatterLink(g.roleNotes[rolePerson][r.IntN(len(g.roleNotes[rolePerson]))]) + "\n")
		} else {
			w.str("author: " + yamlString(pick(r, firstNames)+" "+pick(r, lastNames)) + "\n")
		}
		w.str("rating: " + strconv.Itoa(1+r.IntN(5)) + "\n")
	default:
		if r.IntN(100) < 55 {
			w.str("created: " + w.date().Format(time.DateOnly) + "\n")
		}
	}
	if r.IntN(100) < 25 {
		w.str("updated: " + w.date().Add(time.Duration(r.IntN(86400))*time.Second).Format("2006-01-02T15:04:05") + "\n")
	}
	// Up to two other properties, never the same key twice.
	first := r.IntN(9)
	for k := range r.IntN(3) {
		switch (first + k*(1+r.IntN(8))) % 9 {
		case 0:
			w.str("status: " + pick(r, statuses) + "\n")
		case 1:
			w.str("priority: " + pick(r, []string{"low", "medium", "high"}) + "\n")
		case 2:
			w.str("source: https://example.com/articles/" + strconv.Itoa(r.IntN(10000)) + "\n")
		case 3:
			w.str("publish: " + strconv.FormatBool(r.IntN(2) == 0) + "\n")
		case 4:
			w.str("cssclasses:\n  - wide\n")
		case 5:
			w.str("progress: 0." + strconv.Itoa(r.IntN(10)) + "\n")
		case 6:
			w.str("due: " + w.date().Format(time.DateOnly) + "\n")
		case 7:
			w.str("location: " + yamlString(pick(r, places)) + "\n")
		default:
			w.str("mood: " + pick(r, emojis) + "\n")
		}
	}
	if len(g.notes) > 1 && r.IntN(100) < 12 {
		if r.IntN(3) == 0 {
			w.yamlList("related", []string{w.frontmatterLink(w.target()), w.frontmatterLink(w.target())})
		} else {
			w.str("related: " + w.frontmatterLink(w.target()) + "\n")
		}
	}
	if n.role != roleIndex && r.IntN(100) < 10 {
		for _, j := range g.folderNotes[n.folder] {
			if g.notes[j].role == roleIndex {
				w.str("up: " + w.frontmatterLink(j) + "\n")
				break
			}
		}
	}
	w.str("---\n")
}

// frontmatterLink renders a quoted "[[link]]" to note t, or a broken one,
// and counts it.
func (w *writer) frontmatterLink(t int) string {
	g, r := w.g, w.rng
	w.stat.links++
	if g.cfg.broken > 0 && r.IntN(10000) < g.cfg.broken {
		w.stat.broken++
		return `"[[` + g.broken[skewed(r, len(g.broken))].name + `]]"`
	}
	if t == w.i {
		t = w.target()
	}
	if r.IntN(7) == 0 {
		return `"[[` + g.notes[t].ref() + "|" + g.notes[t].name + `]]"`
	}
	return `"` + g.notes[t].wikiRef() + `"`
}

// yamlList writes key with a list value in one of the shapes people use:
// block list, flow list, or a bare string for a single value.
func (w *writer) yamlList(key string, items []string) {
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = it
		if !strings.HasPrefix(it, `"`) {
			quoted[i] = yamlString(it)
		}
	}
	switch p := w.rng.IntN(4); {
	case p == 2:
		w.str(key + ": [" + strings.Join(quoted, ", ") + "]\n")
	case p == 3 && len(items) == 1:
		w.str(key + ": " + quoted[0] + "\n")
	default:
		w.str(key + ":\n")
		for _, q := range quoted {
			w.str("  - " + q + "\n")
		}
	}
}

// yamlString returns s as a YAML scalar: plain when that is unambiguous,
// double-quoted otherwise.
func yamlString(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#,[]{}&*!|>'\"%@`\\") && strings.TrimSpace(s) == s
	if plain {
		first, _ := utf8.DecodeRuneInString(s)
		plain = unicode.IsLetter(first)
	}
	if plain {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~":
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
