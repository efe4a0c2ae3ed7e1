package search

import (
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// How many notes a search returns, one rule for every door to the search
// service (the MCP tools' schemas, `jarvis search --limit`) and every mode:
//
//   - a limit of 0 takes the mode's default (Limits);
//   - a limit over the mode's most is lowered to it, and the answer says
//     so in a note;
//   - an answer is Truncated when more notes matched than it returns. The
//     service learns that by asking the engines for one more note than
//     the limit (probe), so no engine may cut what it is asked for below
//     that: engines apply a default when given no limit, never a maximum.

// DefaultLimit and MaxLimit are the default and the most of every mode but
// where Limits says otherwise.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// Limits returns how many notes a search in mode m returns when given no
// limit, and the most it returns.
func Limits(m Mode) (def, most int) {
	if m == ModeKeyword {
		return fulltext.DefaultLimit, MaxLimit
	}
	return DefaultLimit, MaxLimit
}

// limitFor is the limit a search in mode m applies when asked for n notes,
// and a note for the answer when it is not n.
func limitFor(m Mode, n int) (limit int, note string) {
	def, most := Limits(m)
	switch {
	case n <= 0:
		return def, ""
	case n > most:
		return most, fmt.Sprintf("%d notes were asked for; a search returns at most %d", n, most)
	}
	return n, ""
}

// probe is how many notes to ask an engine for so that limit of them can
// be returned and the answer can tell whether more matched.
func probe(limit int) int { return limit + 1 }

// truncate cuts results to limit and reports whether it cut any.
func truncate(res []notes.Result, limit int) ([]notes.Result, bool) {
	if len(res) > limit {
		return res[:limit], true
	}
	return res, false
}
