package sharedtest

import (
	"math/rand/v2"
	"os"
	"testing"
)

// PageSize is the page size of the databases jarvis makes (SQLite's
// default).
const PageSize = 4096

// DamagePage overwrites page n (1-based, as SQLite counts) of the file at
// path with garbage, as a disk or a copy cut short would: the pages around
// it are left as they were. seed picks the garbage, so a failure repeats.
func DamagePage(tb testing.TB, path string, n int, seed uint64) {
	tb.Helper()
	junk := make([]byte, PageSize)
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	writeAt(tb, path, junk, int64(n-1)*PageSize)
}

// ZeroPage overwrites page n of the file at path with zeros. Page 1 holds
// the file header and the schema's root: zeroed, nothing in the file can
// be found.
func ZeroPage(tb testing.TB, path string, n int) {
	tb.Helper()
	writeAt(tb, path, make([]byte, PageSize), int64(n-1)*PageSize)
}

func writeAt(tb testing.TB, path string, b []byte, off int64) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		tb.Fatal(err)
	}
}

// Pages is how many pages the file at path holds.
func Pages(tb testing.TB, path string) int {
	tb.Helper()
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return int(st.Size() / PageSize)
}
