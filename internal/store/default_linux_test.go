package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// TestDefaultFolderNamesItsSetting: the default database lies in a folder
// named by XDG_DATA_HOME; when that folder cannot be written, the index
// run and doctor say where the default came from, and give fixes that
// work, rather than "choose another --db (for example the default)",
// which is the failing path.
func TestDefaultFolderNamesItsSetting(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	xdg := filepath.Join(top, "xdgro")
	if err := os.Mkdir(xdg, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(xdg, 0o755)
	t.Setenv("HOME", top)
	t.Setenv("XDG_DATA_HOME", xdg)
	dir, err := config.DataDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, config.DefaultDBName)
	why := "the default database folder " + dir + " comes from XDG_DATA_HOME=" + xdg + ", which you cannot write"
	fix := "run `chmod u+rwx " + xdg + "`, set XDG_DATA_HOME to a folder you may write, or give --db"

	ps := AccessProblems(path, modeProbe)
	if got := describe(ps); got != why {
		t.Errorf("problems = %q; want %q", got, why)
	}
	if got := AccessFix(ps); got != fix {
		t.Errorf("fix = %q; want %q", got, fix)
	}
	_, err = Open(context.Background(), path, Options{Probe: modeProbe})
	if err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), fix) {
		t.Errorf("opening the default database: %v; want %q and %q", err, why, fix)
	}
	h := NewHandle(path, Options{ReadOnly: true, Probe: modeProbe})
	defer h.Close()
	r := databaseCheck(t, h, false)
	if !strings.Contains(r.Detail, why) || r.Fix != fix {
		t.Errorf("doctor: %q, fix %q; want %q and %q", r.Detail, r.Fix, why, fix)
	}

	// Another database in that folder is the user's choice, not the
	// default: no word of XDG_DATA_HOME.
	other := AccessFix(AccessProblems(filepath.Join(xdg, "elsewhere", "j.db"), modeProbe))
	if strings.Contains(other, "XDG_DATA_HOME") {
		t.Errorf("fix for a --db that is not the default: %q", other)
	}
}
