package write

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// journalFixture is a write service over one writable vault, with its
// journal in a real database.
type journalFixture struct {
	dir, dbPath string
	db          *store.DB
}

func newJournalFixture(t *testing.T, notes map[string]string) journalFixture {
	t.Helper()
	f := journalFixture{dir: t.TempDir(), dbPath: filepath.Join(t.TempDir(), "jarvis.db")}
	for p, s := range notes {
		native := filepath.Join(f.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(native), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(native, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := store.Open(context.Background(), f.dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	return f
}

func (f journalFixture) service(journal JournalDB) *Service {
	return NewService([]config.Vault{{Name: "v", Path: f.dir, Write: true}}, journal, vault.NewParser(), nil, nil)
}

func (f journalFixture) read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// failingJournal is a journal whose database refuses every transaction
// with err, as a full disk does.
type failingJournal struct {
	JournalDB
	err error
}

func (j failingJournal) BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error) { return nil, j.err }

// A write the journal cannot record first is not made: the note keeps
// its bytes, the answer is an error that says nothing was written and
// why, and history stays empty.
func TestWriteRefusedWhenJournalCannotRecordIt(t *testing.T) {
	const before = "# Z\nold text\n"
	full := fmt.Errorf("journal: %w", syscall.ENOSPC)
	cases := []struct {
		name string
		// journal is the journal the service records in; hold, when
		// set, locks the database as another program would.
		journal func(f journalFixture) JournalDB
		hold    bool
		want    string
	}{
		{"disk full", func(f journalFixture) JournalDB { return failingJournal{f.db, full} }, false, "free some space"},
		{"locked by another program", func(f journalFixture) JournalDB {
			// The journal waits for the lock a short while, as the
			// store's busy timeout makes every database write wait.
			db, err := sql.Open("sqlite", "file:"+f.dbPath+"?_pragma=busy_timeout(200)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}, true, "locked by another program"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newJournalFixture(t, map[string]string{"Z.md": before})
			if c.hold {
				sharedtest.HoldWriteLock(t, f.dbPath)
			}
			s := f.service(c.journal(f))
			for _, r := range []Request{
				{Tool: ToolEdit, Vault: "v", Path: "Z.md", ETag: ETag([]byte(before)), Edits: []Edit{{Op: OpContent, Text: "new text\n"}}},
				{Tool: ToolDelete, Vault: "v", Path: "Z.md", ETag: ETag([]byte(before))},
				{Tool: ToolCreate, Vault: "v", Path: "sub/New.md", Content: "new\n"},
			} {
				_, err := s.Write(context.Background(), r)
				var je *JournalError
				if !errors.As(err, &je) {
					t.Fatalf("%s: err = %v, want a JournalError", r.Tool, err)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "nothing was written") || !strings.Contains(msg, c.want) {
					t.Errorf("%s: message %q should say nothing was written and %q", r.Tool, msg, c.want)
				}
				if got := f.read(t, "Z.md"); got != before {
					t.Fatalf("%s: Z.md holds %q after a refused write, want %q", r.Tool, got, before)
				}
				for _, gone := range []string{"sub", TrashDir} {
					if _, err := os.Lstat(filepath.Join(f.dir, gone)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s: %s is there after a refused write (%v)", r.Tool, gone, err)
					}
				}
			}
			entries, err := History(context.Background(), f.db, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Errorf("history lists %d writes, want none", len(entries))
			}
		})
	}
}

// A write recorded in the journal whose files then cannot be changed is
// taken out of the journal again: history lists only writes made.
func TestWriteRecordedThenFailedLeavesNoEntry(t *testing.T) {
	const before = "# Z\nold text\n"
	f := newJournalFixture(t, map[string]string{"Z.md": before})
	s := f.service(f.db)
	v, err := s.vault("v")
	if err != nil {
		t.Fatal(err)
	}
	v.beforeCommit = func(int) error { return errors.New("the disk went away") }
	_, err = s.Write(context.Background(), Request{Tool: ToolEdit, Vault: "v", Path: "Z.md", ETag: ETag([]byte(before)), Edits: []Edit{{Op: OpContent, Text: "new\n"}}})
	if err == nil {
		t.Fatal("the write succeeded though its file could not be written")
	}
	if got := f.read(t, "Z.md"); got != before {
		t.Fatalf("Z.md holds %q, want %q", got, before)
	}
	entries, err := History(context.Background(), f.db, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("history lists %v, want no write", entries)
	}
}

// The journal holds a write's previous bytes before its file changes:
// the record is made while the note still holds them.
func TestWriteJournalledBeforeFileChanges(t *testing.T) {
	const before = "# Z\nold text\n"
	f := newJournalFixture(t, map[string]string{"Z.md": before})
	s := f.service(f.db)
	v, err := s.vault("v")
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	v.beforeCommit = func(int) error {
		entries, err := History(context.Background(), f.db, 10)
		if err != nil {
			return err
		}
		seen = len(entries)
		if got := f.read(t, "Z.md"); got != before {
			t.Errorf("Z.md holds %q before the commit, want %q", got, before)
		}
		return nil
	}
	res, err := s.Write(context.Background(), Request{Tool: ToolEdit, Vault: "v", Path: "Z.md", ETag: ETag([]byte(before)), Edits: []Edit{{Op: OpContent, Text: "new\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	if seen != 1 || res.Journal == 0 {
		t.Errorf("the journal held %d writes as the file changed (want 1), and the answer names write %d", seen, res.Journal)
	}
}
