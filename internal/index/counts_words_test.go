package index

import "testing"

// TestCountsWords: the words every count of notes, attachments and
// passages is said in, whole and part way.
func TestCountsWords(t *testing.T) {
	for _, tc := range []struct {
		name        string
		done, total Counts
		words, of   string
	}{
		{"a vault", Counts{1402, 134, 5210}, Counts{1402, 134, 5210}, "1402 notes, 134 attachments, 5210 passages", "1402 notes, 134 attachments, 5210 passages"},
		{"one of each", Counts{1, 1, 1}, Counts{1, 1, 1}, "1 note, 1 attachment, 1 passage", "1 note, 1 attachment, 1 passage"},
		{"notes only", Counts{Notes: 12}, Counts{Notes: 12}, "12 notes", "12 notes"},
		{"attachments only", Counts{Attachments: 3}, Counts{Attachments: 3}, "3 attachments", "3 attachments"},
		{"nothing", Counts{}, Counts{}, "no notes", "no files"},
		{"part way", Counts{Notes: 412, Attachments: 134}, Counts{Notes: 1402, Attachments: 134}, "412 notes, 134 attachments", "412 of 1402 notes, 134 attachments"},
		{"none done", Counts{}, Counts{Notes: 1, Attachments: 2}, "no notes", "0 of 1 note, 0 of 2 attachments"},
		{"passages part way", Counts{Passages: 5}, Counts{Passages: 40}, "5 passages", "5 of 40 passages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.done.Words(); got != tc.words {
				t.Errorf("Words = %q; want %q", got, tc.words)
			}
			if got := tc.done.Of(tc.total); got != tc.of {
				t.Errorf("Of = %q; want %q", got, tc.of)
			}
		})
	}
}
