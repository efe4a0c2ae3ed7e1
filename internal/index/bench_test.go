package index

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
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

// generated returns a vault of n notes made by vaultgen with a fixed seed,
// generated once per benchmark binary.
func generated(b *testing.B, n int) string {
	b.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	if dir, ok := genDirs[n]; ok {
		return dir
	}
	base, err := os.MkdirTemp("", "jarvis-bench-")
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(base, "vault")
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	genDirs[n] = dir
	return dir
}

var (
	genMu   sync.Mutex
	genDirs = map[int]string{}
)

// TestMain removes the generated vaults once every benchmark is done. Run
// with JARVIS_INDEX_CHILD=vault-path|db-path, the test binary indexes that
// vault and exits instead: the crash test kills such a child.
func TestMain(m *testing.M) {
	if spec := os.Getenv("JARVIS_INDEX_CHILD"); spec != "" {
		os.Exit(indexChild(spec))
	}
	code := m.Run()
	for _, dir := range genDirs {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

// BenchmarkIndexFull is a first index of a generated vault into an empty
// database: scan, read, parse, write and resolve, embeddings excluded.
func BenchmarkIndexFull(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("notes="+strconv.Itoa(n), func(b *testing.B) {
			root := generated(b, n)
			dir := b.TempDir()
			i := 0
			for b.Loop() {
				i++
				ix, _ := testIndexer(b, filepath.Join(dir, strconv.Itoa(i)+".db"))
				if res := mustIndex(b, ix, "gen", root); res.Notes != n {
					b.Fatalf("indexed %d notes; want %d", res.Notes, n)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "notes/s")
		})
	}
}

// BenchmarkIndexNoop is a second index run over an unchanged vault: a scan
// and a comparison with the database, nothing parsed or written.
func BenchmarkIndexNoop(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("notes="+strconv.Itoa(n), func(b *testing.B) {
			root := generated(b, n)
			ix, parsed := testIndexer(b, filepath.Join(b.TempDir(), "j.db"))
			mustIndex(b, ix, "gen", root)
			parsed.Store(0)
			for b.Loop() {
				if res := mustIndex(b, ix, "gen", root); res.Added+res.Updated+res.Deleted != 0 {
					b.Fatalf("no-op run changed something: %+v", res)
				}
			}
			if parsed.Load() != 0 {
				b.Fatalf("no-op runs parsed %d notes", parsed.Load())
			}
		})
	}
}
