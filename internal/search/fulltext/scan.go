package fulltext

// MaxScanBytes bounds the text of one note that is read word by word to
// choose its snippet (search) or score its passages (build-context): the
// note's first MB, in order, a whole chunk at a time. A note of up to 8 MB
// whose every chunk holds the query's words (8 MB of "[a](" or of links)
// otherwise took a second a note on every call; any note's first MB
// still yields a snippet holding the words that ranked it there.
const MaxScanBytes = 1 << 20

// WithinScan returns the leading items of one note (its chunks or
// passages, in order) whose text, as size measures it, fits within
// MaxScanBytes, and always the first.
func WithinScan[T any](items []T, size func(T) int) []T {
	total := 0
	for i, it := range items {
		if total += size(it); total > MaxScanBytes && i > 0 {
			return items[:i]
		}
	}
	return items
}
