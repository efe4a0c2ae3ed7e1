//go:build unix

package vault

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func mkfifo(p string) error { return unix.Mkfifo(p, 0o644) }

// TestRootOpenByWalkAlone runs the refusals and the swap race through the
// name-by-name walk alone, without openat2 and without asking the kernel
// where the file is: the path macOS and the BSDs take.
func TestRootOpenByWalkAlone(t *testing.T) {
	was := noOpenat2.Load()
	noOpenat2.Store(true)
	askKernel = func(int) (string, bool) { return "", false }
	t.Cleanup(func() { noOpenat2.Store(was); askKernel = openedPath })
	t.Run("refusals", checkRefusals)
	t.Run("swap race", func(t *testing.T) { checkSwapRace(t, 2*time.Second) })
}

// failScan makes the scan's calls on the names in fail return their
// error, and puts the real calls back when the test ends.
func failScan(t *testing.T, openat, describe, readNames map[string]error) {
	was := scanCalls
	t.Cleanup(func() { scanCalls = was })
	scanCalls.openat = func(dirFD int, name string, flags int, mode uint32) (int, error) {
		if err := openat[name]; err != nil {
			return -1, err
		}
		return was.openat(dirFD, name, flags, mode)
	}
	scanCalls.describe = func(dirFD int, name string) (entry, error) {
		if err := describe[name]; err != nil {
			return entry{}, err
		}
		return was.describe(dirFD, name)
	}
	scanCalls.readNames = func(f *os.File) ([]string, error) {
		if err := readNames[filepath.Base(f.Name())]; err != nil {
			return nil, err
		}
		return was.readNames(f)
	}
}

// TestScanMarksWhatItCannotReadUnread: a folder or file the scan cannot
// open, list or describe (too many open files, an I/O error, no
// permission) is reported unread, so that the index keeps what it holds
// there; one that is gone (ENOENT) or no longer a folder (ENOTDIR, a link
// in its place) is not, so that it is deleted.
func TestScanMarksWhatItCannotReadUnread(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"Top.md", "Full/a.md", "Broken/b.md", "Locked/c.md", "Gone/d.md", "Swapped/e.md", "Flaky.md"} {
		sharedtest.WriteFile(t, root, p, "x")
	}
	failScan(t,
		map[string]error{"Full": unix.EMFILE, "Locked": unix.EACCES, "Gone": unix.ENOENT, "Swapped": unix.ENOTDIR},
		map[string]error{"Flaky.md": unix.EIO},
		map[string]error{"Broken": unix.EIO})
	files, warnings, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, f := range files {
		listed = append(listed, f.Path)
	}
	if want := []string{"Top.md"}; !slices.Equal(listed, want) {
		t.Errorf("listed %v, want %v", listed, want)
	}
	unread := map[string]string{}
	for _, w := range warnings {
		if !w.Unread {
			t.Errorf("warning not marked unread: %+v", w)
			continue
		}
		if !strings.HasPrefix(w.Message, CannotRead) || !strings.HasSuffix(w.Message, KeptAsRead) {
			t.Errorf("warning %+v does not say it cannot read and keeps what was indexed", w)
		}
		unread[w.Path] = w.Message
	}
	for _, p := range []string{"Full", "Locked", "Broken", "Flaky.md"} {
		if _, ok := unread[p]; !ok {
			t.Errorf("%s not reported unread; warnings %v", p, warnings)
		}
	}
	for _, p := range []string{"Gone", "Swapped"} {
		if _, ok := unread[p]; ok {
			t.Errorf("%s is gone, yet reported unread", p)
		}
	}
	u := UnreadIn(warnings)
	for p, want := range map[string]bool{"Full/a.md": true, "Full": true, "Full/x/y.md": true, "Fullish/a.md": false, "Gone/d.md": false, "Top.md": false, "Flaky.md": true} {
		if got := u.Covers(p); got != want {
			t.Errorf("Covers(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestScanFailsWhenTheVaultFolderCannotBeListed: the vault folder itself
// failing is an error, never an empty vault.
func TestScanFailsWhenTheVaultFolderCannotBeListed(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "a.md", "x")
	failScan(t, nil, nil, map[string]error{filepath.Base(root): unix.EMFILE})
	if files, _, err := Scan(context.Background(), root, nil); err == nil {
		t.Fatalf("scan of an unlistable vault folder succeeded with %v", files)
	}
}

// TestScanWarnsOfHardLinkedNotes: a note file with another hard link may
// be a file outside the vault under a second name; it is indexed, with a
// warning that says so. An attachment, or a note with one link, is not.
func TestScanWarnsOfHardLinkedNotes(t *testing.T) {
	outside, root := t.TempDir(), t.TempDir()
	sharedtest.WriteFile(t, outside, "diary.md", "private")
	sharedtest.WriteFile(t, outside, "photo.png", "png")
	sharedtest.WriteFile(t, root, "Plain.md", "x")
	if err := os.Link(filepath.Join(outside, "diary.md"), filepath.Join(root, "Shared.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "photo.png"), filepath.Join(root, "photo.png")); err != nil {
		t.Fatal(err)
	}
	files, warnings, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Errorf("listed %v, want the three files", files)
	}
	if len(warnings) != 1 || warnings[0].Path != "Shared.md" || warnings[0].Unread ||
		!strings.Contains(warnings[0].Message, "2 hard links") || !strings.Contains(warnings[0].Message, "outside the vault") {
		t.Errorf("warnings %+v, want one for Shared.md", warnings)
	}
}

// TestScanMarksANoteItMayNotRead: a note whose rights deny this process
// reading it is listed, marked Unreadable, so that an index run reads it
// again and says why it cannot, though its time and size did not change
// (chmod changes neither). Attachments are not asked about. (The test runs
// as root, whom access(2) lets read anything: the call is made to fail.)
func TestScanMarksANoteItMayNotRead(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"Open.md", "Secret.md", "secret.png"} {
		sharedtest.WriteFile(t, root, p, "x")
	}
	was := scanCalls
	t.Cleanup(func() { scanCalls = was })
	scanCalls.mayRead = func(dirFD int, name string) error {
		if strings.HasPrefix(name, "Secret") || strings.HasPrefix(name, "secret") {
			return unix.EACCES
		}
		return nil
	}
	files, _, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range files {
		got[f.Path] = f.Unreadable
	}
	if want := map[string]bool{"Open.md": false, "Secret.md": true, "secret.png": false}; !maps.Equal(got, want) {
		t.Errorf("unreadable marks %v; want %v", got, want)
	}
}
