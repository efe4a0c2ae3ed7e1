package fulltext

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

func TestPorterStem(t *testing.T) {
	for word, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "cats": "cat", "feed": "feed", "agreed": "agre",
		"plastered": "plaster", "motoring": "motor", "sing": "sing", "conflated": "conflat",
		"troubled": "troubl", "sized": "size", "hopping": "hop", "falling": "fall", "filing": "file",
		"happy": "happi", "relational": "relat", "conditional": "condit", "digitizer": "digit",
		"triplicate": "triplic", "hopefulness": "hope", "revival": "reviv", "adjustment": "adjust",
		"adoption": "adopt", "controlling": "control", "syncing": "sync", "synced": "sync",
		"links": "link", "linking": "link", "notes": "note", "regression": "regress",
		"go": "go", "ab": "ab", strings.Repeat("a", 65) + "ing": strings.Repeat("a", 65) + "ing",
	} {
		if got := porterStem(word); got != want {
			t.Errorf("porterStem(%q) = %q; want %q", word, got, want)
		}
	}
}

func TestFoldToken(t *testing.T) {
	for tok, want := range map[string]string{"Café": "cafe", "ZÜRICH": "zurich", "e\u0301": "e", "plain": "plain", "Naïve": "naive"} {
		if got := foldToken(tok); got != want {
			t.Errorf("foldToken(%q) = %q; want %q", tok, got, want)
		}
	}
}

// TestStemAgreesWithFTS5 checks the Go tokenizer, folding and stemmer
// against the index's own: every word of the example vault is written to
// an FTS5 table with the index's tokenizer and read back from fts5vocab.
func TestStemAgreesWithFTS5(t *testing.T) {
	words := map[string]bool{"syncing": true, "Café": true, "naïve": true, "RÉSUMÉS": true, "straße": true}
	err := filepath.WalkDir(exampleVault(), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		for _, w := range textWords(text) {
			words[text[w.start:w.end]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE w USING fts5 (word, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(w, instance)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	var list []string
	for w := range words {
		list = append(list, w)
	}
	for i, w := range list {
		if _, err := db.ExecContext(ctx, `INSERT INTO w (rowid, word) VALUES (?, ?)`, i+1, w); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT doc, term FROM v`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked := 0
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		w := list[doc-1]
		if got := porterStem(foldToken(w)); got != term {
			t.Errorf("%q: Go stems it %q, FTS5 %q", w, got, term)
		}
		checked++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < 500 {
		t.Fatalf("only %d words checked", checked)
	}
}
