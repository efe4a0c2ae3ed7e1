package index

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// BenchmarkIndexHelpVault is a full index of every language of the Obsidian
// Help vault (1,402 notes) into a fresh database.
func BenchmarkIndexHelpVault(b *testing.B) {
	root := sharedtest.Path(b, "vaults/obsidian-help")
	dir := b.TempDir()
	var notes int
	i := 0
	for b.Loop() {
		i++
		ix, _ := testIndexer(b, filepath.Join(dir, strconv.Itoa(i)+".db"))
		notes = mustIndex(b, ix, "help", root).Notes
	}
	b.ReportMetric(float64(notes*b.N)/b.Elapsed().Seconds(), "notes/s")
}
