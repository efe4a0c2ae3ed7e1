//go:build unix

package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestSetupSaysTheFolderItCannotWriteIn is the user whose Claude folder
// is not writable by them (chmod 555, or made by root): the backup cannot
// be written, and setup says which folder, and the command that lets them
// write there, for the folder's owner, with nothing changed. Tests run as
// root, whom the system lets write anywhere, so the refusal and the
// folder's permissions come through setupFiles.
func TestSetupSaysTheFolderItCannotWriteIn(t *testing.T) {
	me := os.Geteuid()
	other := store.OwnedByOther(store.FileAccess{Exists: true, IsDir: true, Owner: me + 1}) // "user id 1", or its name
	for _, c := range []struct {
		name  string
		owner int
		want  func(dir string) string
	}{
		{"their own folder", me, func(dir string) string {
			return "cannot write a backup in " + dir + ": that folder is not writable by you; run `chmod u+w " + dir + "` (nothing was changed)"
		}},
		{"another user's folder", me + 1, func(dir string) string {
			return "cannot write a backup in " + dir + ": that folder belongs to " + other +
				" and is not writable by you; run `sudo chown $USER " + dir + " && chmod u+w " + dir + "` (nothing was changed)"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "Claude")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "claude_desktop_config.json")
			const content = "{\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}}\n}\n"
			if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			sys := setupFiles{
				openFile: func(name string, _ int, _ fs.FileMode) (*os.File, error) {
					return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
				},
				probe: func(p string) (store.FileAccess, error) {
					if p != dir {
						t.Errorf("probed %s; want the folder %s", p, dir)
					}
					return store.FileAccess{Exists: true, IsDir: true, Read: true, Owner: c.owner}, nil
				},
			}
			_, err := addServer(file, "jarvis", json.RawMessage(`{"command":"jarvis"}`), time.Now(), sys)
			if err == nil {
				t.Fatal("setup wrote in a folder it may not write in")
			}
			if want := c.want(dir); err.Error() != want {
				t.Fatalf("error:\n%s\nwant:\n%s", err, want)
			}
			if b, _ := os.ReadFile(file); string(b) != content {
				t.Errorf("the file changed: %q", b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files beside it: %v; want none", entries)
			}
		})
	}
}

// TestNotWritableNamesTheFolderToOpen: the folder to open up is the one
// the refused path was to be made in, for a backup, a temporary file or a
// new folder alike; a refusal the folder's permissions do not explain
// keeps the system's words.
func TestNotWritableNamesTheFolderToOpen(t *testing.T) {
	shut := func(string) (store.FileAccess, error) {
		return store.FileAccess{Exists: true, IsDir: true, Read: true, Owner: os.Geteuid()}, nil
	}
	open := func(string) (store.FileAccess, error) {
		return store.FileAccess{Exists: true, IsDir: true, Read: true, Write: true, Owner: os.Geteuid()}, nil
	}
	refused := func(op, path string) error { return &fs.PathError{Op: op, Path: path, Err: fs.ErrPermission} }
	for _, c := range []struct {
		name    string
		err     error
		probe   store.Probe
		wantDir string
	}{
		{"a new folder", refused("mkdir", "/home/u/.config/Claude"), shut, "/home/u/.config"},
		{"a temporary file", refused("open", "/home/u/.config/Claude/.c.json.1.tmp"), shut, "/home/u/.config/Claude"},
		{"a folder that is writable", refused("open", "/home/u/.config/Claude/c.json.bak"), open, ""},
		{"another cause", &fs.PathError{Op: "open", Path: "/x/c.json.bak", Err: fs.ErrExist}, shut, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, why, ok := notWritable(c.err, c.probe)
			if ok != (c.wantDir != "") || dir != c.wantDir {
				t.Fatalf("notWritable = %q, %q, %v; want the folder %q", dir, why, ok, c.wantDir)
			}
			if ok && !strings.HasSuffix(why, "run `chmod u+w "+c.wantDir+"`") {
				t.Fatalf("the fix: %q", why)
			}
		})
	}
}
