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
