package vault

import (
	"path"
	"strings"
)

// attachmentKinds name the attachments Obsidian shows, by extension.
var attachmentKinds = map[string]string{
	".png": "an image", ".jpg": "an image", ".jpeg": "an image", ".gif": "an image", ".bmp": "an image",
	".svg": "an image", ".webp": "an image", ".avif": "an image",
	".mp3": "an audio", ".wav": "an audio", ".m4a": "an audio", ".ogg": "an audio", ".flac": "an audio", ".3gp": "an audio",
	".mp4": "a video", ".webm": "a video", ".ogv": "a video", ".mov": "a video", ".mkv": "a video",
	".pdf": "a PDF",
}

// AttachmentKind names, with its article, what kind of attachment the
// file at p is, as Obsidian shows it ("an image", "a PDF"), and whether
// it is one Obsidian shows.
func AttachmentKind(p string) (string, bool) {
	kind, ok := attachmentKinds[strings.ToLower(path.Ext(p))]
	return kind, ok
}

// IsImage reports whether the file at p is an image Obsidian shows.
func IsImage(p string) bool {
	kind, _ := AttachmentKind(p)
	return kind == "an image"
}
