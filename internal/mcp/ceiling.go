package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/contextpack"
)

// DefaultAnswerTokens is the most a tool's answer may take of a model's
// context, text and structured content together, counted as Tokens counts.
// Claude Code refuses tool results over 25,000 tokens; 20,000 leaves room
// for the rest of the message and for counts that differ from ours.
const DefaultAnswerTokens = 20000

// minAnswerTokens keeps a configured ceiling large enough for any answer
// to say what it is and what it left out.
const minAnswerTokens = 1000

// Tokens estimates how many tokens s takes in a model's context: one for
// every 4 characters, rounded up, the count build-context fits its budget
// by (contextpack.Tokens). Real tokenizers give English prose about 4
// characters a token, Markdown punctuation and JSON keys fewer, so the
// count errs on the small side for those; the ceiling's margin under
// 25,000 covers it.
func Tokens(s string) int { return contextpack.Tokens(s) }

// answerTokens is what an answer takes: its text items, its other items
// (resource links) as sent, and its structured content as sent.
func answerTokens(r *mcpsdk.CallToolResult) int {
	text, other, structured := answerParts(r)
	return text + other + structured
}

// answerParts are what the text items, the other items and the
// structured content of an answer take.
func answerParts(r *mcpsdk.CallToolResult) (text, other, structured int) {
	for _, c := range r.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			text += Tokens(tc.Text)
		} else if data, err := json.Marshal(c); err == nil {
			other += Tokens(string(data))
		}
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		structured = Tokens(string(raw))
	}
	return text, other, structured
}

// answerCeiling keeps every tool's answer under ceiling tokens. Each tool
// bounds its own answer first (limits, caps in bounds.go); this is the
// last guard, for what those bounds let through together: it drops the
// last items of the structured content's longest lists, then cuts the
// text at a line, and says so at the end of the text. The structured
// content stays valid against the tool's output schema: only whole list
// items go.
func answerCeiling(ceiling int) mcpsdk.Middleware {
	return func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/call" || err != nil {
				return res, err
			}
			if r, ok := res.(*mcpsdk.CallToolResult); ok {
				fitAnswer(r, ceiling)
			}
			return res, err
		}
	}
}

// pageChars is the most characters of a note one read-note answer holds:
// a quarter of the ceiling's characters (4 a token), since the text and
// the structured content both carry them, which leaves the other half
// for the lists (headings, links, backlinks). A long note then comes in
// pages rather than cut.
func (t *tools) pageChars() int { return t.answerTokens }

// cutNoteTokens is room kept for the sentence saying what was cut.
const cutNoteTokens = 100

// fitAnswer shrinks r to at most ceiling tokens, when it is over.
func fitAnswer(r *mcpsdk.CallToolResult, ceiling int) {
	textTokens, otherTokens, structTokens := answerParts(r)
	before := textTokens + otherTokens + structTokens
	if before <= ceiling {
		return
	}
	budget := ceiling - cutNoteTokens
	// Resource links go first: each names a note the structured content
	// may no longer list. They are small; the text makes room for them.
	links := len(r.Content)
	r.Content = slices.DeleteFunc(r.Content, func(c mcpsdk.Content) bool {
		_, link := c.(*mcpsdk.ResourceLink)
		return link
	})
	links -= len(r.Content)
	dropped, shortened := 0, false
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		// The structured part gets what the text leaves, and at least
		// half of the budget: a client reading only one of the two still
		// gets a useful share.
		room := max(budget-textTokens, budget/2)
		if structTokens > room {
			var shrunk json.RawMessage
			shrunk, dropped, shortened = shrinkJSON(raw, room)
			r.StructuredContent = shrunk
			structTokens = Tokens(string(shrunk))
		}
	}
	cut := false
	left := budget - structTokens
	for _, c := range r.Content {
		tc, ok := c.(*mcpsdk.TextContent)
		if !ok {
			continue
		}
		n := Tokens(tc.Text)
		if n > left {
			tc.Text = cutAtLine(tc.Text, max(left, 0)*4)
			cut = true
			n = Tokens(tc.Text)
		}
		left -= n
	}
	var what []string
	if cut {
		what = append(what, "the text ends early")
	}
	if dropped > 0 {
		what = append(what, fmt.Sprintf("%d list items were left out of the structured content", dropped))
	}
	if shortened {
		what = append(what, "long texts in the structured content end in …")
	}
	if links > 0 {
		what = append(what, "the resource links to the notes were left out")
	}
	note := fmt.Sprintf("[This answer was about %d tokens, over the %d-token ceiling for one answer, and was cut: %s. Ask for less (a lower limit, max_chars, depth or budget, or one section) to see the rest.]",
		before, ceiling, strings.Join(what, "; "))
	r.Content = append(r.Content, &mcpsdk.TextContent{Text: note})
}

// cutAtLine returns the start of s of at most n characters, ending at a
// line break when there is one in its second half.
func cutAtLine(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	s = strings.TrimSuffix(clip(s, n), "…")
	if nl := strings.LastIndexByte(s, '\n'); nl > len(s)/2 {
		s = s[:nl]
	}
	return s + "\n…"
}

// shrinkJSON drops the last items of the longest lists in raw, or cuts
// its longest strings, whichever is larger, until it takes at most
// tokens, and returns it with how many items went and whether a string
// was cut. Objects keep every key, so required fields stay.
func shrinkJSON(raw json.RawMessage, tokens int) (json.RawMessage, int, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return raw, 0, false
	}
	dropped, cut := 0, false
	for {
		out, err := json.Marshal(v)
		if err != nil {
			return raw, 0, false
		}
		over := Tokens(string(out)) - tokens
		if over <= 0 {
			return out, dropped, cut
		}
		l := largest(v, func(x any) { v = x })
		switch {
		case l.list != nil && l.listTokens >= l.strTokens:
			// Drop about as many items as the excess takes, at least
			// one, at most half, so that a long list shrinks in a few
			// passes.
			per := max(l.listTokens/len(l.list), 1)
			n := min(max(over/per, 1), max(len(l.list)/2, 1))
			l.setList(l.list[:len(l.list)-n])
			dropped += n
		case l.strTokens > minStringTokens:
			keep := max(l.strTokens-over-1, minStringTokens) * 4
			l.setStr(clip(l.str, keep))
			cut = true
		default:
			return out, dropped, cut // nothing left to shorten: the text carries the note
		}
	}
}

// minStringTokens is as short as shrinkJSON cuts a string.
const minStringTokens = 25

// largestParts are the longest list and the longest string of a JSON
// value, each with a function that puts a shorter one in its place.
type largestParts struct {
	list       []any
	listTokens int
	setList    func([]any)
	str        string
	strTokens  int
	setStr     func(string)
}

// largest finds the longest list and string in v; set puts a value in
// v's own place.
func largest(v any, set func(any)) largestParts {
	var l largestParts
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case []any:
			if n := listTokens(x); n > l.listTokens && len(x) > 0 {
				l.list, l.listTokens, l.setList = x, n, func(s []any) { set(s) }
			}
			for i := range x {
				walk(x[i], func(y any) { x[i] = y })
			}
		case map[string]any:
			for k, item := range x {
				walk(item, func(y any) { x[k] = y })
			}
		case string:
			if n := Tokens(x); n > l.strTokens {
				l.str, l.strTokens, l.setStr = x, n, func(s string) { set(s) }
			}
		}
	}
	walk(v, set)
	return l
}

// listTokens is what a list takes as JSON.
func listTokens(l []any) int {
	data, err := json.Marshal(l)
	if err != nil {
		return 0
	}
	return Tokens(string(data))
}
