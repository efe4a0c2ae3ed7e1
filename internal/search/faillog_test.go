package search

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// TestKeywordFailureIsLoggedOnceInWords: while the index cannot be read,
// every search falls back to the files; the log says so once, in words
// (store.Said) and at WARN, then counts (at the 2nd, 4th... time) rather
// than logging SQLite's message at every call.
func TestKeywordFailureIsLoggedOnceInWords(t *testing.T) {
	svc, db := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	var logged bytes.Buffer
	svc.log = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo}))
	db.Close()
	for range 5 {
		if _, err := svc.Search(context.Background(), Query{Mode: ModeKeyword, Text: "french press"}); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[2], "times=4") {
		t.Fatalf("logged %d lines; want 3 (the 1st, 2nd and 4th failure) at WARN:\n%s", len(lines), logged.String())
	}
}
