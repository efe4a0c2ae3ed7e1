package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// codeError is an SQLite error as the driver gives it: a message ending in
// the result code, and the code.
type codeError int

func (e codeError) Error() string { return fmt.Sprintf("sqlite says no (%d)", int(e)) }
func (e codeError) Code() int     { return int(e) }

// TestExplainEachKind gives Explain each kind of error, wrapped as the
// layers that meet it wrap it, and checks the kind, the words and the fix.
func TestExplainEachKind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	inv := health.Invocation{"--vault", "/v", "--db", path}
	sound := func(string) (FileAccess, error) {
		return FileAccess{Exists: true, Read: true, Write: true, Owner: -1}, nil
	}
	readOnly := func(p string) (FileAccess, error) {
		return FileAccess{Exists: true, IsDir: p == dir, Read: true, Write: p == dir, Owner: currentUser()}, nil
	}
	tests := []struct {
		name  string
		err   error
		probe Probe
		kind  Kind
		want  []string
	}{
		{"read-only file, in the middle of a run", fmt.Errorf("index vault %q: record vault: %w", "v", codeError(8)), readOnly,
			KindAccess, []string{"is read-only for you", "chmod u+rw " + path}},
		{"read-only folder met while checking the file", fmt.Errorf("database %s: %w: %w", path, ErrNotDatabase, codeError(1544)), readOnly,
			KindAccess, []string{"chmod u+rw"}},
		{"read-only where no file shows why", codeError(8), sound,
			KindAccess, []string{"cannot be written", "--db"}},
		{"busy", fmt.Errorf("load files: %w", codeError(5)), sound, KindBusy, []string{"locked by another program", "try again"}},
		{"disk full", fmt.Errorf("write notes: %w", codeError(13)), sound, KindDiskFull, []string{"disk that holds", "free some space"}},
		{"damaged page", fmt.Errorf("load files: %w", codeError(11)), sound,
			KindDamaged, []string{"is damaged", "`jarvis index --vault /v --db " + path + " --rebuild`"}},
		{"another program's database", fmt.Errorf("open: %w", foreignTables(path, 1)), sound,
			KindForeign, []string{"is not a jarvis index: it is another program's SQLite database (it holds 1 table that", "choose another --db", "`jarvis help config`"}},
		{"not an SQLite file", &foreignError{path: path, what: "it is not an SQLite file at all"}, sound,
			KindForeign, []string{"is not a jarvis index: it is not an SQLite file at all", "choose another --db"}},
		{"a folder", &foreignError{path: path, what: "it is a folder", dir: true}, sound,
			KindForeign, []string{"it is a folder", "--db takes a file, not a folder", "`" + filepath.Join(path, "jarvis.db") + "`"}},
		{"newer", fmt.Errorf("database is at 99: %w", ErrNewerSchema), sound, KindNewer, []string{"newer version of jarvis", "upgrade jarvis",
			"run `jarvis index --vault /v --db " + path + " --rebuild`: it keeps this file as j.db.newer-"}},
		{"another SQLite error", fmt.Errorf("read: %w", codeError(10)), sound, KindOther, []string{"sqlite says no", "`jarvis doctor --vault /v"}},
	}
	code := regexp.MustCompile(`\(\d+\)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, ok := Explain(path, tt.err, inv, tt.probe)
			if !ok || x.Kind != tt.kind {
				t.Fatalf("Explain = %+v, %v; want kind %v", x, ok, tt.kind)
			}
			text := x.String()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
			if m := code.FindString(text); m != "" {
				t.Errorf("%q shows the SQLite code %s", text, m)
			}
			if (tt.kind == KindAccess || tt.kind == KindForeign) && strings.Contains(text, "rebuild") {
				t.Errorf("a permission problem is fixed with --rebuild: %q", text)
			}
			// The explained error keeps what callers branch on.
			if e := Explained(path, tt.err, inv, tt.probe); e.Error() != text || !errors.Is(e, tt.err) {
				t.Errorf("Explained = %v", e)
			}
		})
	}
	if _, ok := Explain(path, errors.New("vault folder gone"), inv, sound); ok {
		t.Error("an error that is not the database's is explained")
	}
	if _, ok := Explain(path, fmt.Errorf("read note: %w", fs.ErrPermission), inv, sound); ok {
		t.Error("a note that cannot be read is taken for the database")
	}
}

// TestReadOnlyFolderIsNotDamage: SQLite's read-only-folder error, met
// while the file is checked, was wrapped as damage, and doctor and
// --rebuild took a sound index for a broken one.
func TestReadOnlyFolderIsNotDamage(t *testing.T) {
	in := Inspection{OpenErr: fmt.Errorf("database x: %w: %w", ErrNotDatabase, codeError(1544))}
	if in.Damaged() {
		t.Fatal("a folder this user cannot write is called damage")
	}
	if e := sqliteError("x", codeError(1544)); errors.Is(e, ErrNotDatabase) || !errors.Is(e, fs.ErrPermission) {
		t.Fatalf("sqliteError = %v; want a permission error", e)
	}
}

// TestOpenLooksBeforeWriting: a database this user may only read is
// refused before SQLite opens it for writing (no -wal or -shm appears),
// or opened read-only when that is asked for, and says why.
func TestOpenLooksBeforeWriting(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "j.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	os.Chmod(path, 0o444)
	defer os.Chmod(path, 0o644)

	if _, err := Open(ctx, path, Options{Probe: modeProbe}); !errors.Is(err, ErrAccess) {
		t.Fatalf("Open = %v; want ErrAccess", err)
	}
	ro, err := Open(ctx, path, Options{Probe: modeProbe, ReadOnlyIfNeeded: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := ro.QueryRowContext(ctx, `SELECT count(*) FROM vaults`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if why := ro.NotWritable(); !errors.Is(why, ErrAccess) || !strings.Contains(why.Error(), "chmod u+rw") {
		t.Fatalf("NotWritable = %v", why)
	}
	ro.Close()
	if names := listDir(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v; want the database alone", names)
	}
}

// TestAccessFixIsOneCommand: every file that needs the same change is in
// one command, -wal and -shm with the database, and the commands are one
// line to paste.
func TestAccessFixIsOneCommand(t *testing.T) {
	ps := []AccessProblem{
		{Path: "/d/j.db", cmd: "chmod u+rw"},
		{Path: "/d", cmd: "sudo chown $USER"},
		{Path: "/d/j.db-wal", cmd: "chmod u+rw"},
		{Path: "/d/j.db-shm", cmd: "chmod u+rw"},
	}
	want := "run `sudo chown $USER /d && chmod u+rw /d/j.db /d/j.db-wal /d/j.db-shm`, or choose another database with --db"
	if got := AccessFix(ps); got != want {
		t.Fatalf("AccessFix = %q\nwant %q", got, want)
	}
}

// TestIntegrityErrorInTheWordsOfDamage: a check stopped by a damaged page
// is reported by doctor in the words index uses for it, not in SQLite's.
func TestIntegrityErrorInTheWordsOfDamage(t *testing.T) {
	path := "/d/j.db"
	err := fmt.Errorf("integrity check: %w", codeError(11))
	x, _ := Explain(path, err, nil, nil)
	r := integrityResult(Inspection{Check: "integrity check", Err: err}, path, x.Fix, nil)
	if r.Status != health.Fail || r.Detail != x.Why {
		t.Fatalf("doctor says %q; index says %q", r.Detail, x.Why)
	}
	if !strings.Contains(r.Detail, "parts of it cannot be read") || strings.Contains(r.Detail, "sqlite says") {
		t.Fatalf("doctor says %q", r.Detail)
	}
}

// TestSaidReadableButNotWritable: a database whose folder takes no new
// files answers searches, so its trouble is said as one of updating it,
// with the reason doctor's database access check and jarvis index give,
// not as one of using it.
func TestSaidReadableButNotWritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	folderClosed := func(p string) (FileAccess, error) {
		return FileAccess{Exists: true, IsDir: p == dir, Read: true, Write: p != dir, Owner: currentUser()}, nil
	}
	problems := AccessProblems(path, folderClosed)
	err := fmt.Errorf("index vault %q: %w", "v", accessError(path, problems))
	want := "the database cannot be updated: " + dir + " is a folder you cannot create files in"
	if got := Said(err); got != want {
		t.Errorf("Said = %q; want %q", got, want)
	}
	unreadable := func(p string) (FileAccess, error) {
		return FileAccess{Exists: true, IsDir: p == dir, Read: p == dir, Write: p == dir, Owner: currentUser()}, nil
	}
	if got := Said(accessError(path, AccessProblems(path, unreadable))); got != "the database cannot be used by you" {
		t.Errorf("Said of a database that cannot be read = %q", got)
	}
}
