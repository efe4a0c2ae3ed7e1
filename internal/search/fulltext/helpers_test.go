package fulltext

import (
	"io"
	"log/slog"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func paths(rs []notes.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Path)
	}
	return out
}
