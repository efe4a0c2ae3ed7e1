package embed

import (
	"fmt"
	"strings"
	"testing"
)

// TestLexicalStateRoundTripsOnALargeCorpus fits on enough varied text that
// different features of one document share frequency slots, and restores
// the state: no frequency may exceed the number of documents.
func TestLexicalStateRoundTripsOnALargeCorpus(t *testing.T) {
	f := NewLexicalFitter()
	for i := range 3000 {
		var b strings.Builder
		for j := range 300 {
			fmt.Fprintf(&b, "word%d term%d ", (i*31+j*7)%5000, (i+j)%977)
		}
		f.Add(b.String())
	}
	l := f.Lexical()
	back, err := NewLexicalFromState(l.State())
	if err != nil {
		t.Fatalf("state of a fitted embedder does not restore: %v", err)
	}
	if back.Fingerprint() != l.Fingerprint() || back.Documents() != 3000 {
		t.Fatalf("restored %s with %d documents; want %s with 3000", back.Fingerprint(), back.Documents(), l.Fingerprint())
	}
}
