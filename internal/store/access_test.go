package store

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
)

func TestDiagnose(t *testing.T) {
	const me = 1000
	tests := []struct {
		name    string
		fa      FileAccess
		err     error
		problem bool
		why     string
		fix     string
		// notOurs: a folder jarvis did not make, which no fix changes.
		notOurs bool
	}{
		{"missing", FileAccess{Owner: -1}, nil, false, "", "", false},
		{"readable and writable", FileAccess{Exists: true, Read: true, Write: true, Owner: me}, nil, false, "", "", false},
		{"writable through its group", FileAccess{Exists: true, Read: true, Write: true, Owner: 0}, nil, false, "", "", false},
		{"read-only file of mine", FileAccess{Exists: true, Read: true, Owner: me}, nil, true, "is read-only for you", "`chmod u+rw '/d b/j.db'`", false},
		{"unreadable file of mine", FileAccess{Exists: true, Write: true, Owner: me}, nil, true, "cannot be read by you", "`chmod u+rw '/d b/j.db'`", false},
		{"root's file", FileAccess{Exists: true, Read: true, Owner: 0}, nil, true, "belongs to root, not to you", "`sudo chown $USER '/d b/j.db'`", false},
		{"file of a user without a name", FileAccess{Exists: true, Read: true, Owner: 987654}, nil, true, "belongs to user id 987654, not to you", "`sudo chown $USER '/d b/j.db'`", false},
		{"folder of mine without write", FileAccess{Exists: true, IsDir: true, Read: true, Owner: me}, nil, true, "folder you cannot create files in", "`chmod u+rwx '/d b/j.db'`", false},
		{"root's folder", FileAccess{Exists: true, IsDir: true, Read: true, Owner: 0}, nil, true, "belongs to root", "`sudo chown $USER '/d b/j.db'`", false},
		{"root's folder jarvis did not make", FileAccess{Exists: true, IsDir: true, Read: true, Owner: 0}, nil, true, "belongs to root", "choose another --db, in a folder you may write", true},
		{"folder of mine jarvis did not make", FileAccess{Exists: true, IsDir: true, Read: true, Owner: me}, nil, true, "folder you cannot create files in", "`jarvis help config`", true},
		{"read-only attribute (Windows)", FileAccess{Exists: true, Read: true, Owner: -1}, nil, true, "read-only", "`attrib -r '/d b/j.db'`", false},
		{"a folder above cannot be searched", FileAccess{Owner: -1}, fs.ErrPermission, true, "cannot be looked at", "folders above", false},
		{"another stat error", FileAccess{Owner: -1}, errors.New("input/output error"), false, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := diagnose("/d b/j.db", tt.fa, tt.err, me, !tt.notOurs)
			if ok != tt.problem || !strings.Contains(p.Why, tt.why) || !strings.Contains(p.Fix, tt.fix) {
				t.Fatalf("diagnose = %+v, %v; want problem %v with %q, fix %q", p, ok, tt.problem, tt.why, tt.fix)
			}
			if ok && strings.Contains(p.Fix, "rebuild") {
				t.Fatalf("a permission problem is fixed with --rebuild: %s", p.Fix)
			}
			if tt.notOurs && (strings.Contains(p.Fix, "chown") || strings.Contains(p.Fix, "chmod")) {
				t.Fatalf("a folder jarvis did not make gets %s", p.Fix)
			}
		})
	}
}

// modeProbe answers as the system would for a user who owns every file and
// is not root: access follows the owner's permission bits. Root, whom the
// system lets do anything, needs it to see what a user would.
func modeProbe(path string) (FileAccess, error) {
	fa, st, err := statAccess(path)
	if err != nil || !fa.Exists {
		return fa, err
	}
	fa.Owner = currentUser()
	perm := st.Mode().Perm()
	fa.Read = perm&0o400 != 0
	fa.Write = perm&0o200 != 0 && (!fa.IsDir || perm&0o100 != 0)
	return fa, nil
}

// userProbe is the system's own answer when not running as root, and
// modeProbe when root: tests of permissions hold either way.
func userProbe() Probe {
	if os.Geteuid() == 0 {
		return modeProbe
	}
	return nil
}

func TestAccessProblemsNamesEachFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "j.db")
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.WriteFile(path+".lock", nil, 0o644)
	if ps := AccessProblems(path, userProbe()); len(ps) != 0 {
		t.Fatalf("problems in a fresh database: %v", ps)
	}

	os.Chmod(path+".lock", 0o444)
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	ps := AccessProblems(path, userProbe())
	var paths []string
	for _, p := range ps {
		paths = append(paths, p.Path)
	}
	if want := []string{dir, path, path + ".lock"}; !slices.Equal(paths, want) {
		t.Fatalf("problems for %v; want %v", paths, want)
	}
	fix := AccessFix(ps)
	for _, want := range []string{"chmod u+rwx " + dir, "chmod u+rw " + path, "--db"} {
		if !strings.Contains(fix, want) {
			t.Errorf("fix %q lacks %q", fix, want)
		}
	}

	// Not created yet: the nearest folder that exists is what matters.
	ps = AccessProblems(filepath.Join(dir, "sub", "new.db"), userProbe())
	if len(ps) != 1 || ps[0].Path != dir {
		t.Fatalf("problems for a database to create = %v", ps)
	}
}

func TestPermissionIsNotDamage(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "j.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	// A real SQLite error from writing through a read-only connection is a
	// permission error, not a damaged database, whoever runs the test.
	ro, _ := sql.Open("sqlite", "file:"+path+"?mode=ro")
	_, werr := ro.ExecContext(ctx, `CREATE TABLE x (y)`)
	ro.Close()
	if werr == nil {
		t.Fatal("writing through a read-only connection worked")
	}
	if e := sqliteError(path, werr); !errors.Is(e, fs.ErrPermission) || errors.Is(e, ErrNotDatabase) {
		t.Fatalf("read-only write = %v; want a permission error", e)
	}

	os.Chmod(path, 0o444)
	defer os.Chmod(path, 0o644)
	h := NewHandle(path, Options{ReadOnly: true, Probe: userProbe()})
	defer h.Close()
	rs := Checks(h, health.Invocation{"--db", path}, CheckOptions{})[0].Run(ctx)
	var access health.Result
	for _, r := range rs {
		if strings.Contains(r.Fix, "rebuild") {
			t.Errorf("%s: fix %q suggests --rebuild for a permission problem", r.Name, r.Fix)
		}
		if r.Name == "database access" {
			access = r
		}
	}
	if access.Status != health.Fail || !strings.Contains(access.Detail, "read-only for you") || !strings.Contains(access.Fix, "chmod u+rw "+path) {
		t.Fatalf("database access = %+v", access)
	}
}

func TestRebuildLeavesAnUnwritableFolderAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "j.db")
	os.WriteFile(path, []byte("not a database"), 0o644)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	r, err := BeginRebuild(context.Background(), path, Options{Probe: userProbe()}, nil)
	if err == nil {
		r.Close()
	}
	if !errors.Is(err, ErrAccess) {
		t.Fatalf("err = %v; want ErrAccess", err)
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"j.db"}) {
		t.Fatalf("folder now holds %v", names)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestReadOnlyOpenCreatesNothing opens sound, damaged and read-only
// databases as doctor does and checks that no file appears beside them.
func TestReadOnlyOpenCreatesNothing(t *testing.T) {
	ctx := context.Background()
	sound := func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "j.db")
		db, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		return path
	}
	cases := map[string]func(t *testing.T, dir string) string{
		"sound": sound,
		"damaged": func(t *testing.T, dir string) string {
			path := sound(t, dir)
			data, _ := os.ReadFile(path)
			for i := 4096; i < len(data); i += 7 {
				data[i] ^= 0x5a
			}
			os.WriteFile(path, data, 0o644)
			return path
		},
		"not a database": func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "j.db")
			os.WriteFile(path, []byte("notes"), 0o644)
			return path
		},
		"read-only folder": func(t *testing.T, dir string) string {
			path := sound(t, dir)
			os.Chmod(path, 0o444)
			os.Chmod(dir, 0o555)
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			return path
		},
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			os.MkdirAll(dir, 0o755)
			path := make(t, dir)
			before := listDir(t, dir)
			h := NewHandle(path, Options{ReadOnly: true, Probe: userProbe()})
			for _, c := range Checks(h, nil, CheckOptions{}) {
				c.Run(ctx)
			}
			during := listDir(t, dir)
			h.Close()
			if after := listDir(t, dir); !slices.Equal(before, during) || !slices.Equal(before, after) {
				t.Fatalf("folder held %v, then %v while open, %v after", before, during, after)
			}
		})
	}
}

// TestReadOnlyOpenReadsTheWAL checks that a read-only open sees what a
// running writer committed to its -wal and not yet to the file.
func TestReadOnlyOpenReadsTheWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`)
	if _, err := w.ExecContext(ctx, `INSERT INTO vaults (name, path) VALUES ('fresh', '/x')`); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n int
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM vaults WHERE name = 'fresh'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("read-only open sees %d rows, %v; want the committed one", n, err)
	}
	if r.ChangedSinceOpen() {
		t.Fatal("a shared read-only open reports a change")
	}
}

// TestImmutableOpenNoticesAWriter opens a database with no -wal, as doctor
// does (immutable), then lets a writer in: a damage found after that is
// not to be believed, and ChangedSinceOpen says so.
func TestImmutableOpenNoticesAWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.ChangedSinceOpen() {
		t.Fatal("changed before anyone wrote")
	}
	w, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.ExecContext(ctx, `INSERT INTO vaults (name, path) VALUES ('fresh', '/x')`); err != nil {
		t.Fatal(err)
	}
	if !r.ChangedSinceOpen() {
		t.Fatal("a writer went unnoticed")
	}
}

// TestAccessProblemsNeverChangeAFolderJarvisDidNotMake puts the database
// under folders that do not exist, below one this user may not write (/,
// /usr, /etc): the fix is another --db, never a chown of that folder.
func TestAccessProblemsNeverChangeAFolderJarvisDidNotMake(t *testing.T) {
	root := string(filepath.Separator)
	probe := func(path string) (FileAccess, error) {
		if path == root {
			return FileAccess{Exists: true, IsDir: true, Read: true, Owner: 0}, nil
		}
		return FileAccess{Owner: -1}, nil
	}
	missing := filepath.Join(root, "rootonly")
	ps := accessProblems(filepath.Join(missing, "j.db"), probe, 1000, config.DataOrigin{})
	if len(ps) != 1 {
		t.Fatalf("problems = %v; want one, for %s", ps, root)
	}
	why, fix := describe(ps), AccessFix(ps)
	if want := "the folder " + missing + " does not exist, and " + root + " is a folder you cannot create files in (it belongs to root, not to you)"; why != want {
		t.Errorf("why = %q; want %q", why, want)
	}
	for _, bad := range []string{"chown", "chmod", "sudo"} {
		if strings.Contains(fix, bad) {
			t.Errorf("fix %q changes a folder jarvis did not make (%s)", fix, bad)
		}
	}
	if !strings.Contains(fix, "choose another --db") || !strings.Contains(fix, "`jarvis help config`") {
		t.Errorf("fix %q does not say to choose another --db", fix)
	}
}

// TestOnlyJarvisFiles: the database's folder may get a chmod or chown fix
// only while it holds nothing but the database, its companions and its
// backups.
func TestOnlyJarvisFiles(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "j.db")
	for _, name := range []string{"j.db", "j.db-wal", "j.db-shm", "j.db.lock", "j.db.broken-20240101T000000Z", "j.db.rebuild"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if !onlyJarvisFiles(dir, db) {
		t.Fatal("a folder of jarvis's files is not taken for jarvis's")
	}
	if onlyJarvisFiles(filepath.Dir(dir), db) {
		t.Fatal("a folder above the database's is taken for jarvis's")
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	if onlyJarvisFiles(dir, db) {
		t.Fatal("a folder that holds a file of the user's is taken for jarvis's")
	}
}
