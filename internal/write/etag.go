package write

import (
	"crypto/sha256"
	"encoding/hex"
)

// ETag is the tag of a note's bytes that a reader is given (read-note and
// every write return it) and a writer sends back as FileChange.Before: the
// first 32 hex digits (128 bits) of the SHA-256 of the bytes, exactly as
// they are on disk, line endings and BOM included. Two readers of the
// same bytes get the same tag on any system.
func ETag(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// ETagLen is the length of every etag ETag gives.
const ETagLen = 32

// IsETag reports whether s has the shape of an etag ETag gives (32
// lower-case hexadecimal digits): one that does not was never given by
// jarvis, and saying the note changed would be false.
func IsETag(s string) bool {
	if len(s) != ETagLen {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
