package mcp

import (
	"errors"
	"strconv"

	"github.com/jarvis-mcp/jarvis/internal/graph"
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
