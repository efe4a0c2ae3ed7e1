package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestEscapeLike asks SQLite itself: an escaped text matches only itself,
// wildcards and backslashes included.
func TestEscapeLike(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "j.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		text, other string // other must not match text's pattern
	}{
		{"plain", "plainer"},
		{"100%", "100 percent"},
		{"snake_case", "snakeXcase"},
		{`back\slash`, `backslash`},
		{`\%_`, `\x_`},
		{"", "x"},
	}
	for _, tt := range tests {
		var self, other bool
		err := db.QueryRowContext(ctx, `SELECT ? LIKE ? ESCAPE '\', ? LIKE ? ESCAPE '\'`,
			tt.text, store.EscapeLike(tt.text), tt.other, store.EscapeLike(tt.text)).Scan(&self, &other)
		if err != nil {
			t.Fatal(err)
		}
		if !self || other {
			t.Errorf("EscapeLike(%q) = %q: matches itself %v, matches %q %v", tt.text, store.EscapeLike(tt.text), self, tt.other, other)
		}
	}
}
