package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// linkVault is a vault whose notes link, by symbolic links, to what the
// vault keeps out: a hidden folder, an excluded folder and a file outside.
// It returns the vault folder and the outside folder.
func linkVault(t testing.TB) (string, string) {
	t.Helper()
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "secret.md", "OUTSIDE secret")
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Notes/public.md", "public text")
	sharedtest.WriteFile(t, root, "Archive/secret.md", "ARCHIVED secret")
	sharedtest.WriteFile(t, root, ".obsidian/secret.md", "HIDDEN secret")
	links := map[string]string{
		"peek-archive.md":  "Archive/secret.md",
		"peek-hidden.md":   ".obsidian/secret.md",
		"peek-outside.md":  filepath.Join(outside, "secret.md"),
		"peek-up.md":       "../" + filepath.Base(outside) + "/secret.md",
		"hidden":           ".obsidian",
		"archived":         "Archive",
		"out":              outside,
		"Notes/alias.md":   "public.md",
		"Notes/abs.md":     filepath.Join(root, "Notes/public.md"),
		"Notes/chain.md":   "../via/public.md",
		"via":              "Notes",
		"loop-a.md":        "loop-b.md",
		"loop-b.md":        "loop-a.md",
		"dangling.md":      "missing.md",
		"Notes/sneaky.md":  "../hidden/secret.md",
		"Notes/to-root.md": "..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			sharedtest.NoSymlinks(t, err)
		}
	}
	return root, outside
}

func TestRootOpenRefusesWhatTheVaultKeepsOut(t *testing.T) {
	checkRefusals(t)
}

func checkRefusals(t *testing.T) {
	root, _ := linkVault(t)
	r, err := OpenRoot(root, []string{"Archive"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel  string
		want error  // nil when the file opens
		text string // its content then
		real string // and its real path
	}{
		{rel: "Notes/public.md", text: "public text", real: "Notes/public.md"},
		{rel: "./Notes//public.md", text: "public text", real: "Notes/public.md"},
		{rel: "Notes/alias.md", text: "public text", real: "Notes/public.md"},
		{rel: "Notes/abs.md", text: "public text", real: "Notes/public.md"},
		{rel: "Notes/chain.md", text: "public text", real: "Notes/public.md"},
		{rel: "via/public.md", text: "public text", real: "Notes/public.md"},
		{rel: "peek-archive.md", want: ErrLeftOut},
		{rel: "peek-hidden.md", want: ErrLeftOut},
		{rel: "hidden/secret.md", want: ErrLeftOut},
		{rel: "Notes/sneaky.md", want: ErrLeftOut},
		{rel: "archived/secret.md", want: ErrLeftOut},
		{rel: "Archive/secret.md", want: ErrLeftOut},
		{rel: ".obsidian/secret.md", want: ErrLeftOut},
		{rel: "peek-outside.md", want: ErrOutside},
		{rel: "peek-up.md", want: ErrOutside},
		{rel: "out/secret.md", want: ErrOutside},
		{rel: "../secret.md", want: ErrOutside},
		{rel: "Notes/../../secret.md", want: ErrOutside},
		{rel: "/etc/passwd", want: ErrOutside},
		{rel: "", want: ErrOutside},
		{rel: "a\x00b", want: ErrBadName},
		{rel: strings.Repeat("x", MaxPathChars+1), want: ErrBadName},
		{rel: strings.Repeat("x", 256) + ".md", want: ErrBadName},
		{rel: "Notes/" + strings.Repeat("é", 130) + "/a.md", want: ErrBadName},
		{rel: "Notes", want: ErrNotRegular},
		{rel: "Notes/to-root.md", want: ErrNotRegular},
		{rel: "loop-a.md", want: fs.ErrNotExist}, // checked below as a plain failure
		{rel: "dangling.md", want: fs.ErrNotExist},
		{rel: "Notes/missing.md", want: fs.ErrNotExist},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			f, err := r.Open(tc.rel)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Open = %v", err)
				}
				defer f.Close()
				data := make([]byte, 100)
				n, _ := f.Read(data)
				if string(data[:n]) != tc.text || f.Real != tc.real || f.Info.Size() != int64(len(tc.text)) {
					t.Fatalf("Open = %q at %q (%d bytes); want %q at %q", data[:n], f.Real, f.Info.Size(), tc.text, tc.real)
				}
				return
			}
			if err == nil {
				f.Close()
				t.Fatalf("Open opened %s; want %v", f.Real, tc.want)
			}
			if tc.rel == "loop-a.md" {
				if errors.Is(err, ErrLeftOut) || errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "loop-") {
					t.Fatalf("Open = %v; want a failure naming the loop", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v; want %v", err, tc.want)
			}
		})
	}
}

func TestScanSkipsLinksToWhatTheVaultKeepsOut(t *testing.T) {
	root, _ := linkVault(t)
	files, warnings, err := Scan(context.Background(), root, []string{"Archive"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	want := "Notes/abs.md Notes/alias.md Notes/chain.md Notes/public.md"
	if strings.Join(got, " ") != want {
		t.Errorf("Scan = %v; want %s", got, want)
	}
	msgs := map[string]string{}
	for _, w := range warnings {
		msgs[w.Path] = w.Message
	}
	for p, want := range map[string]string{
		"peek-archive.md": `to "Archive/secret.md" skipped: that path is left out because of the vault's exclude pattern "Archive" (in the config file)`,
		"peek-hidden.md":  `to ".obsidian/secret.md" skipped: that path is left out because of the hidden folder ".obsidian"`,
		"Notes/sneaky.md": `to ".obsidian/secret.md" skipped: that path is left out because of the hidden folder ".obsidian"`,
		"peek-outside.md": "outside the vault",
		"peek-up.md":      "outside the vault",
		"dangling.md":     "broken symbolic link",
		"loop-a.md":       "broken symbolic link",
	} {
		if !strings.Contains(msgs[p], want) {
			t.Errorf("warning for %s = %q; want %q", p, msgs[p], want)
		}
	}
}

func TestScanBoundsDepth(t *testing.T) {
	root := t.TempDir()
	deep := strings.Repeat("d/", maxDepth+5)
	sharedtest.WriteFile(t, root, deep+"Deep.md", "x")
	sharedtest.WriteFile(t, root, "Top.md", "x")
	files, warnings, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "Top.md" || len(warnings) != 1 || !strings.Contains(warnings[0].Message, "nested") {
		t.Fatalf("Scan = %v, %v; want Top.md and a warning for the deep folder", files, warnings)
	}
}

func TestRootOpenPipeDoesNotHang(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system on Windows")
	}
	root := t.TempDir()
	if err := mkfifo(filepath.Join(root, "pipe.md")); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	r, err := OpenRoot(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Open("pipe.md"); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Open(pipe) = %v; want ErrNotRegular", err)
	}
	files, _, err := Scan(context.Background(), root, nil)
	if err != nil || len(files) != 0 {
		t.Fatalf("Scan = %v, %v; want no files", files, err)
	}
}

// swapSeconds is how long the swap races run: JARVIS_SWAP_SECONDS, or 5.
func swapSeconds(t *testing.T) time.Duration {
	if s := os.Getenv("JARVIS_SWAP_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("JARVIS_SWAP_SECONDS=%q: %v", s, err)
		}
		return time.Duration(n) * time.Second
	}
	return 5 * time.Second
}

// TestRootOpenSwapRace swaps a note, and the folder above it, between
// real entries and symbolic links to what the vault keeps out, while
// readers open it: no read may return the kept-out text.
func TestRootOpenSwapRace(t *testing.T) {
	checkSwapRace(t, swapSeconds(t))
}

func checkSwapRace(t *testing.T, seconds time.Duration) {
	root, outside := linkVault(t)
	r, err := OpenRoot(root, []string{"Archive"})
	if err != nil {
		t.Fatal(err)
	}
	sharedtest.WriteFile(t, root, "Swap/note.md", "public text")
	sharedtest.WriteFile(t, root, "Real/note.md", "public text")
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		targets := []string{filepath.Join(outside, "secret.md"), "../Archive/secret.md", "../.obsidian/secret.md"}
		dirTargets := []string{outside, "Archive", ".obsidian"}
		tmp := filepath.Join(root, "tmp-link")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// A regular file, then a link, renamed over it.
			note := filepath.Join(root, "Swap/note.md")
			_ = os.WriteFile(tmp, []byte("public text"), 0o644)
			_ = os.Rename(tmp, note)
			_ = os.Remove(tmp)
			_ = os.Symlink(targets[i%len(targets)], tmp)
			_ = os.Rename(tmp, note)
			// The folder above: a real folder, then a link.
			_ = os.Remove(tmp)
			_ = os.Symlink("Real", tmp)
			_ = os.Rename(tmp, filepath.Join(root, "Dir"))
			_ = os.Symlink(dirTargets[i%len(dirTargets)], tmp)
			_ = os.Rename(tmp, filepath.Join(root, "Dir"))
			swaps.Add(1)
		}
	})
	var reads, opened, leaks atomic.Int64
	deadline := time.Now().Add(seconds)
	for range 4 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				for _, rel := range []string{"Swap/note.md", "Dir/note.md", "Dir/secret.md"} {
					data, _, _, err := r.ReadNote(rel)
					reads.Add(1)
					if err == nil {
						opened.Add(1)
					}
					if strings.Contains(string(data), "secret") {
						leaks.Add(1)
					}
				}
			}
		})
	}
	time.Sleep(time.Until(deadline))
	close(stop)
	wg.Wait()
	t.Logf("%d swaps, %d reads, %d opened", swaps.Load(), reads.Load(), opened.Load())
	if leaks.Load() > 0 {
		t.Fatalf("%d of %d reads returned text the vault keeps out", leaks.Load(), reads.Load())
	}
	if opened.Load() == 0 || swaps.Load() == 0 {
		t.Fatalf("the race did not run: %d swaps, %d reads opened", swaps.Load(), opened.Load())
	}
}

// FuzzRootOpen opens arbitrary paths in a vault full of links to what it
// keeps out: whatever the path, nothing kept out is ever read.
func FuzzRootOpen(f *testing.F) {
	for _, s := range []string{"Notes/public.md", "peek-archive.md", "hidden/secret.md", "../x", "via/../Archive/secret.md",
		"out/secret.md", "Notes/sneaky.md", "./.obsidian/secret.md", "Notes/%2e%2e/x", "loop-a.md", "Notes\\..\\Archive\\secret.md"} {
		f.Add(s)
	}
	root, _ := linkVault(f)
	r, err := OpenRoot(root, []string{"Archive"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		o, err := r.Open(rel)
		if err != nil {
			return
		}
		defer o.Close()
		data := make([]byte, 64)
		n, _ := o.Read(data)
		if strings.Contains(string(data[:n]), "secret") || LeftOut(o.Real, []string{"Archive"}) {
			t.Fatalf("Open(%q) read %q at %s", rel, data[:n], o.Real)
		}
	})
}
