package sharedtest

import (
	"bytes"
	"testing"
	"time"
)

// SlowMarkdown is about size bytes of Markdown whose parse time grows with
// the square of its size and that the parser's rewrites do not catch: each
// line opens a link title that goldmark looks for the end of to the end of
// the paragraph. 200 KB take a second to parse in full, 1 MB half a minute
// or more.
func SlowMarkdown(size int) []byte {
	const line = "[a](b \"x\n"
	return bytes.Repeat([]byte(line), max(size/len(line), 1))
}

// Within runs f and fails the test when it has not returned after 30 s,
// so that work that cannot be stopped (what names it) fails the test
// rather than hanging it.
func Within(tb testing.TB, what string, f func()) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		tb.Fatalf("still %s after 30 s", what)
	}
}
