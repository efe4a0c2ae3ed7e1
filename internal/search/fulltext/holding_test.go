package fulltext

import (
	"context"
	"testing"
)

func TestNotesHolding(t *testing.T) {
	ctx := context.Background()
	kw, _ := indexedKeyword(t, "coffee", exampleVault(), "other", exampleVault())
	with, _, err := kw.NotesMentioning(ctx, "coffee", []string{"V60"}, 50)
	if err != nil || len(with) < 3 {
		t.Fatalf("notes naming V60: %v, %v", with, err)
	}
	for _, tc := range []struct {
		name   string
		words  []string
		except []string
		limit  int
		want   int
	}{
		{"one word", []string{"v60"}, nil, 50, len(with)},
		{"except some", []string{"V60"}, with[:2], 50, len(with) - 2},
		{"cut at the limit", []string{"v60"}, nil, 2, 2},
		{"every word", []string{"v60", "qqqzzz"}, nil, 50, 0},
		{"no words", nil, nil, 50, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := kw.NotesHolding(ctx, "coffee", tc.words, tc.except, tc.limit)
			if err != nil || n != tc.want {
				t.Fatalf("%d notes, %v; want %d", n, err, tc.want)
			}
		})
	}
}
