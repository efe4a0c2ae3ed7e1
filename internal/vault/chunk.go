package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Chunk is a piece of a note's body that stays under one heading: the unit
// keyword search shows as a snippet and semantic search embeds.
type Chunk struct {
	// Headings are the headings above the chunk, outermost first; empty
	// before the note's first heading.
	Headings  []string
	StartLine int // 1-based, inclusive
	EndLine   int // 1-based, inclusive
	Text      string
}

// HeadingPath is the chunk's headings joined the way results show them:
// "Internal links > Link to a heading".
func (c Chunk) HeadingPath() string { return strings.Join(c.Headings, " > ") }

// EmbedText is what an embedder is given for the chunk: the note title and
// the heading path give a short section the context its text leaves out.
func (c Chunk) EmbedText(title string) string {
	return EmbedText(title, c.HeadingPath(), c.Text)
}

// EmbedText builds the text embedded for a chunk from its parts as stored,
// so that a chunk read back from the database hashes as it did when written.
// The title and heading path are cut to maxEmbedTitle and maxEmbedHeading
// characters: they are repeated in every chunk of the note, and a note
// with a title of 100,000 characters and thousands of sections would
// otherwise have the embedder read the title thousands of times (minutes
// of work for one note). No real title comes near the limits, so the texts
// of real notes, and their hashes, are what they were.
func EmbedText(title, headingPath, text string) string {
	title, headingPath = clipRunes(title, maxEmbedTitle), clipRunes(headingPath, maxEmbedHeading)
	var b strings.Builder
	b.Grow(len(title) + len(headingPath) + len(text) + 3)
	b.WriteString(title)
	if headingPath != "" {
		b.WriteString("\n")
		b.WriteString(headingPath)
	}
	b.WriteString("\n\n")
	b.WriteString(text)
	return b.String()
}

// TextHash is the hex SHA-256 of an embedded text; vectors are stored
// under it.
func TextHash(embedText string) string {
	sum := sha256.Sum256([]byte(embedText))
	return hex.EncodeToString(sum[:])
}

// What a chunk's title and heading path add to its embedded text, at most.
const (
	maxEmbedTitle   = 300
	maxEmbedHeading = 600
)

// clipRunes returns s cut to at most n characters, at a character
// boundary.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for at := range s {
		if i == n {
			return s[:at]
		}
		i++
	}
	return s
}
