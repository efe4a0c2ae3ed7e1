package index

import (
	"fmt"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Counts is how much of a vault there is, in the three words every message
// uses for it: notes (Markdown files), attachments (every other file
// indexed) and passages (the pieces of notes that are embedded and
// searched). list-vaults, health-status and doctor, the line search answers
// carry while a run is under way, and jarvis index's progress and summary
// all word their counts here, so that the same moment reads the same
// wherever it is asked.
type Counts struct {
	Notes       int `json:"notes"`
	Attachments int `json:"attachments"`
	// Passages is 0 in a count of files, such as a run's progress.
	Passages int `json:"passages,omitempty"`
}

// Files is how many files c counts, notes and attachments together.
func (c Counts) Files() int { return c.Notes + c.Attachments }

// Sum is everything c counts, for a share done: files and passages.
func (c Counts) Sum() int { return c.Notes + c.Attachments + c.Passages }

// count adds one file, a note or an attachment.
func (c *Counts) count(note bool) {
	if note {
		c.Notes++
	} else {
		c.Attachments++
	}
}

// kinds are the nouns of c's counts, in the order they are said.
func (c Counts) kinds() [3]struct {
	n    int
	noun string
} {
	return [...]struct {
		n    int
		noun string
	}{{c.Notes, "note"}, {c.Attachments, "attachment"}, {c.Passages, "passage"}}
}

// Words says c as every message does: "1402 notes, 134 attachments, 5210
// passages". A kind c has none of is left out ("12 notes"), and a count of
// nothing is "no notes".
func (c Counts) Words() string {
	return c.say(func(said []string) string { return strings.Join(said, ", ") })
}

// List is Words as a list in a sentence: "173 notes and 134
// attachments", for a count a verb follows.
func (c Counts) List() string {
	return c.say(words.List)
}

// say joins the kinds c has, each counted, with join; "no notes" when it
// has none.
func (c Counts) say(join func([]string) string) string {
	var said []string
	for _, k := range c.kinds() {
		if k.n > 0 {
			said = append(said, words.Count(k.n, k.noun))
		}
	}
	if len(said) == 0 {
		return "no notes"
	}
	return join(said)
}

// String is Words.
func (c Counts) String() string { return c.Words() }

// Of says how far c, the part done, has got with total: "412 of 1402
// notes, 134 attachments". A kind done whole is said as its count alone,
// as Words says it, so that the last report of a run reads as what the
// index then holds; a kind total has none of is left out.
func (c Counts) Of(total Counts) string {
	var said []string
	done := c.kinds()
	for i, k := range total.kinds() {
		switch {
		case k.n <= 0:
		case done[i].n >= k.n:
			said = append(said, words.Count(k.n, k.noun))
		default:
			said = append(said, fmt.Sprintf("%d of %s", done[i].n, words.Count(k.n, k.noun)))
		}
	}
	if len(said) == 0 {
		return "no files"
	}
	return strings.Join(said, ", ")
}
