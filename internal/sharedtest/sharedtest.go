// Package sharedtest finds the data shared beside the repository (../shared:
// the Obsidian Help vault and the retrieval datasets) and the Node packages
// of test/interop for tests. Under CI=true missing data fails the test;
// elsewhere the test is skipped, and go test says so in one line (Missing).
package sharedtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root is the shared folder: $JARVIS_SHARED, or ../shared beside the
// repository root.
func Root() string {
	if d := os.Getenv("JARVIS_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/internal/sharedtest/sharedtest.go
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

// Path returns the shared file or folder at rel ("vaults/obsidian-help/en"),
// or ends the test when it is missing: a failure in CI, a skip elsewhere.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Root(), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "shared test data "+p+" is missing", err)
	}
	return p
}

// CopyTree copies the folder src to dst, so that a test may change a vault
// from ../shared or examples/ without touching the original.
func CopyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// WriteFile writes content to the slash path rel under root, making the
// folders it needs.
func WriteFile(tb testing.TB, root, rel, content string) {
	tb.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// NoSymlinks ends a test that needs symbolic links on a system where
// making one failed with err (Windows without developer mode): a failure
// under CI=true, a skip elsewhere.
func NoSymlinks(tb testing.TB, err error) {
	tb.Helper()
	Missing(tb, "symbolic links are needed", err)
}
