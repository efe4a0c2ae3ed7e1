// Package vault reads Obsidian vaults: it walks the folder tree, parses notes
// with goldmark and resolves links the way Obsidian does. It knows nothing of
// the database; the index package stores what this package produces.
package vault

// LinkKind says which syntax produced a link.
type LinkKind string

// The kinds of link a note can hold. They are stored as-is in the database
// and shown to users, so the values are stable.
const (
	KindLink        LinkKind = "link"        // [[Note]]
	KindEmbed       LinkKind = "embed"       // ![[Note]] or ![alt](local.png)
	KindMarkdown    LinkKind = "markdown"    // [text](Some%20Note.md)
	KindFrontmatter LinkKind = "frontmatter" // a [[Note]] inside a frontmatter value
)

// FromFolder reports whether a link of this kind is looked for first from
// the linking note's folder (Markdown links): the markdown argument of
// Resolver.Resolve, for every reader of links to pass the same.
func (k LinkKind) FromFolder() bool { return k == KindMarkdown }

// Note is everything jarvis keeps from one Markdown file.
type Note struct {
	// Title is the frontmatter title, or else the file name without ".md".
	Title       string
	Aliases     []string
	Tags        []Tag
	Frontmatter map[string]any
	Headings    []Heading
	Blocks      []Block
	Links       []Link
	External    []ExternalLink
	WordCount   int
	// Chunks split the body (frontmatter excluded) at headings into pieces
	// of a few hundred words, in file order.
	Chunks []Chunk
	// Warnings describe problems that did not stop the note from being
	// indexed, such as invalid frontmatter YAML or invalid UTF-8.
	Warnings []string
}

// Heading is one ATX or setext heading.
type Heading struct {
	Level int
	Text  string
	Line  int // 1-based line in the file
}

// Block is a block id ("^abc123") at the end of a paragraph or list item.
type Block struct {
	ID   string // without the caret
	Line int
}

// Tag is a tag from the frontmatter or from the body ("#tag", "#nested/tag").
type Tag struct {
	Name   string // without '#', as written
	Line   int    // 0 for a frontmatter tag whose line is unknown
	Inline bool   // false for frontmatter tags
}

// Link is an internal link to another note, a heading, a block or an
// attachment. Whether it resolves is decided later by a Resolver.
type Link struct {
	Kind LinkKind
	// Target is the link path with subpath and display text removed and
	// percent-escapes decoded: "Folder/Note", "Note.md", "image.png", or ""
	// for a link into the same note ("[[#Heading]]").
	Target string
	// Subpath is what followed the first '#', without it: "Heading",
	// "Heading#Sub", "^blockid", or "".
	Subpath string
	// Display is the alias text after '|' (or the Markdown link text).
	Display string
	Line    int    // 1-based
	Context string // the text of the source line, trimmed and capped
	// Start and End are the byte offsets in the file (as read, BOM and
	// line ends included) of the whole link: "[[Note|alias]]", "![[Note]]",
	// "[text](Note.md)", or a frontmatter value's "[[Note]]". End is 0
	// when the link is not written as-is in the file: a frontmatter value
	// with escapes or folded over lines, a reference-style Markdown link.
	Start, End int
}

// ExternalLink is a link with a URL scheme (https:, mailto:, obsidian:).
type ExternalLink struct {
	URL  string
	Text string
	Line int
}
