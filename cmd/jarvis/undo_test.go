package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// folderFiles is a stand-in for the file layer (write.Vault) over a real
// folder, with Apply's contract as write.go states it and none of its
// guards: undo's tests need a vault that changes, not the guards.
type folderFiles struct{ root string }

func (f folderFiles) native(p string) string { return filepath.Join(f.root, filepath.FromSlash(p)) }

func testETag(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (f folderFiles) Read(_ context.Context, p string) ([]byte, string, error) {
	b, err := os.ReadFile(f.native(p))
	if err != nil {
		return nil, "", err
	}
	return b, testETag(b), nil
}

// ApplyRecorded calls record with what the change will do before it
// changes a file, as write.Vault does.
func (f folderFiles) ApplyRecorded(_ context.Context, ch write.Change, record func(write.Applied) error) (write.Applied, error) {
	for _, c := range ch.Files {
		etag, ok, err := currentETag(context.Background(), f)(c.Path)
		switch {
		case err != nil:
			return write.Applied{}, err
		case c.Before == "" && ok:
			return write.Applied{}, write.ErrExists
		case c.Before != "" && etag != c.Before:
			return write.Applied{}, write.ErrStale
		}
	}
	var out write.Applied
	for _, c := range ch.Files {
		prev, _ := os.ReadFile(f.native(c.Path))
		switch write.KindOf(c) {
		case write.Deleted:
			out.Files = append(out.Files, write.AppliedFile{Path: c.Path, Final: ".trash/" + path.Base(c.Path), Previous: prev})
		case write.Moved:
			after := prev
			if c.After != nil {
				after = c.After
			}
			out.Files = append(out.Files, write.AppliedFile{Path: c.Path, Final: c.MoveTo, Previous: prev, ETag: testETag(after)})
		default:
			out.Files = append(out.Files, write.AppliedFile{Path: c.Path, Final: c.Path, Previous: prev, ETag: testETag(c.After)})
		}
	}
	if err := record(out); err != nil {
		return write.Applied{}, err
	}
	put := func(p string, b []byte) error {
		if err := os.MkdirAll(filepath.Dir(f.native(p)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(f.native(p), b, 0o644)
	}
	for i, c := range ch.Files {
		a := out.Files[i]
		var err error
		switch write.KindOf(c) {
		case write.Deleted:
			if err = put(a.Final, a.Previous); err == nil {
				err = os.Remove(f.native(c.Path))
			}
		case write.Moved:
			after := a.Previous
			if c.After != nil {
				after = c.After
			}
			if err = put(c.MoveTo, after); err == nil {
				err = os.Remove(f.native(c.Path))
			}
		default:
			if t, terr := os.ReadFile(f.native(c.Trashed)); c.Trashed != "" && terr == nil && bytes.Equal(t, c.After) {
				if err = os.MkdirAll(filepath.Dir(f.native(c.Path)), 0o755); err == nil {
					err = os.Rename(f.native(c.Trashed), f.native(c.Path)) // brought back from the trash
				}
			} else {
				err = put(c.Path, c.After)
			}
		}
		if err != nil {
			return write.Applied{}, err
		}
	}
	return out, nil
}

// vaultNotes are the files of a vault folder but its trash, by path.
func vaultNotes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".trash" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// undoFixture is a vault folder and a database whose journal the tests
// write to as the write tools would.
type undoFixture struct {
	dir, db string
	vault   config.Vault
	files   folderFiles
}

func newUndoFixture(t *testing.T, files map[string]string) *undoFixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "notes")
	for p, s := range files {
		sharedtest.WriteFile(t, dir, p, s)
	}
	f := &undoFixture{dir: dir, db: filepath.Join(t.TempDir(), "jarvis.db"), files: folderFiles{root: dir}}
	cfg, err := config.Load(config.Flags{Vaults: []string{dir}, DB: f.db}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	f.vault = cfg.Vaults[0]
	return f
}

// write applies ch to the vault and journals it, as a write tool does.
func (f *undoFixture) write(t *testing.T, ch write.Change) int64 {
	t.Helper()
	db, err := store.Open(context.Background(), f.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, id, err := write.ApplyJournalled(context.Background(), db, f.files, f.vault.Name, ch)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// run runs jarvis undo (through the vault's folderFiles) or any other
// command with --vault and --db, checks the words it printed, and
// returns its exit code and output.
func (f *undoFixture) run(t *testing.T, args ...string) messageRun {
	t.Helper()
	return f.runAs(t, append(args, "--vault", f.dir, "--db", f.db)...)
}

// runAs is run with only the flags in args. Undo writes through
// folderFiles over the folder of the vault it chose.
func (f *undoFixture) runAs(t *testing.T, args ...string) messageRun {
	t.Helper()
	var out, errb bytes.Buffer
	home := t.TempDir()
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	code := 0
	if args[0] == "undo" {
		c := command{name: "undo", run: func(ctx context.Context, e *env, args []string) error {
			return undo(ctx, e, args, func(v config.Vault) (applier, error) { return folderFiles{root: v.Path}, nil })
		}}
		code = exitCode(context.Background(), e, c, c.run(context.Background(), e, args[1:]))
	} else {
		code = run(context.Background(), e, args)
	}
	where := "jarvis " + strings.Join(args, " ")
	sharedtest.CheckWords(t, where+" (stderr)", errb.String())
	if !hasJSONFlag(args) {
		sharedtest.CheckWords(t, where+" (stdout)", out.String())
	}
	return messageRun{args: args, code: code, stdout: out.String(), stderr: errb.String()}
}

func TestUndoRevertsEachKindOfWrite(t *testing.T) {
	etag := func(s string) string { return testETag([]byte(s)) }
	start := map[string]string{
		"Apollo.md":   "# Apollo\nstatus: active\n",
		"Index.md":    "see [[Apollo]]\n",
		"Log.md":      "![[Apollo]]\n",
		"Old idea.md": "an old idea\n",
	}
	f := newUndoFixture(t, start)
	steps := []struct {
		tool   string
		change write.Change
	}{
		{"create-note", write.Change{Tool: "create-note", Files: []write.FileChange{{Path: "Inbox/New.md", After: []byte("new\n")}}}},
		{"edit-note", write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "Apollo.md", Before: etag(start["Apollo.md"]), After: []byte("# Apollo\nstatus: done\n")}}}},
		{"delete-note", write.Change{Tool: "delete-note", Files: []write.FileChange{{Path: "Old idea.md", Before: etag(start["Old idea.md"]), Delete: true}}}},
		{"move-note", write.Change{Tool: "move-note", Files: []write.FileChange{
			{Path: "Apollo.md", Before: etag("# Apollo\nstatus: done\n"), MoveTo: "Projects/Apollo.md"},
			{Path: "Index.md", Before: etag(start["Index.md"]), After: []byte("see [[Projects/Apollo]]\n")},
			{Path: "Log.md", Before: etag(start["Log.md"]), After: []byte("![[Projects/Apollo]]\n")},
		}}},
	}
	var states []map[string]string // the vault before each step, and after the last
	var ids []string
	for _, s := range steps {
		states = append(states, vaultNotes(t, f.dir))
		ids = append(ids, strconv.FormatInt(f.write(t, s.change), 10))
	}
	states = append(states, vaultNotes(t, f.dir))

	h := f.run(t, "history")
	if h.code != 0 {
		t.Fatalf("history: exit %d: %s", h.code, h.stderr)
	}
	for _, want := range []string{"4  ", "move-note in \"notes\": moved Apollo.md to Projects/Apollo.md and updated the links in 2 notes",
		"delete-note in \"notes\": moved Old idea.md to the vault's .trash", "created Inbox/New.md", "edited  Index.md", "4 writes listed", "for write 3"} {
		if !strings.Contains(h.stdout, want) {
			t.Errorf("history does not say %q:\n%s", want, h.stdout)
		}
	}
	for _, cmd := range sharedtest.SuggestedCommands(h.stdout) {
		if !reflect.DeepEqual(cmd[len(cmd)-4:], []string{"--vault", f.dir, "--db", f.db}) && !reflect.DeepEqual(cmd[len(cmd)-5:len(cmd)-1], []string{"--vault", f.dir, "--db", f.db}) {
			t.Errorf("history suggests %q, without the flags given", cmd)
		}
	}

	// Undo each write by its number, newest first; undo that undo (the
	// last write), which redoes the write; and undo the redo.
	for i := len(steps) - 1; i >= 0; i-- {
		u := f.run(t, "undo", ids[i])
		if u.code != 0 {
			t.Fatalf("undo of %s: exit %d: %s", steps[i].tool, u.code, u.stderr)
		}
		if got := vaultNotes(t, f.dir); !maps.Equal(got, states[i]) {
			t.Fatalf("after undoing %s the notes are %q, want %q", steps[i].tool, got, states[i])
		}
		if !strings.Contains(u.stdout, "Reverted write "+ids[i]) || !strings.Contains(u.stdout, "to redo it") {
			t.Errorf("undo says %q", u.stdout)
		}
		redo := f.run(t, "undo")
		if redo.code != 0 {
			t.Fatalf("redo of %s: exit %d: %s", steps[i].tool, redo.code, redo.stderr)
		}
		if got := vaultNotes(t, f.dir); !maps.Equal(got, states[i+1]) {
			t.Fatalf("after redoing %s the notes are %q, want %q", steps[i].tool, got, states[i+1])
		}
		if u := f.run(t, "undo"); u.code != 0 {
			t.Fatalf("undo of the redo of %s: exit %d: %s", steps[i].tool, u.code, u.stderr)
		}
		if got := vaultNotes(t, f.dir); !maps.Equal(got, states[i]) {
			t.Fatalf("after undoing the redo of %s the notes are %q, want %q", steps[i].tool, got, states[i])
		}
	}
	if got := vaultNotes(t, f.dir); !maps.Equal(got, start) {
		t.Fatalf("after undoing every write the notes are %q, want %q", got, start)
	}
}

func TestUndoNumberedWriteAndJSON(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n", "B.md": "b\n"})
	first := f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "B.md", Before: testETag([]byte("b\n")), After: []byte("b2\n")}}})
	u := f.run(t, "undo", "1", "--json")
	if u.code != 0 {
		t.Fatalf("exit %d: %s", u.code, u.stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(u.stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, u.stdout)
	}
	if keys := sortedKeys(out); !reflect.DeepEqual(keys, []string{"files", "summary", "undone", "vault", "write"}) {
		t.Errorf("keys = %v", keys)
	}
	if out["undone"] != float64(first) || out["write"] != float64(3) || out["summary"] != "edited A.md" {
		t.Errorf("undo --json = %s", u.stdout)
	}
	if got, want := vaultNotes(t, f.dir), map[string]string{"A.md": "a\n", "B.md": "b2\n"}; !maps.Equal(got, want) {
		t.Errorf("notes = %q, want only write 1 reverted: %q", got, want)
	}

	h := f.run(t, "history", "--json", "--limit", "2")
	var hist historyOutput
	if err := json.Unmarshal([]byte(h.stdout), &hist); err != nil {
		t.Fatalf("history --json: %v\n%s", err, h.stdout)
	}
	if len(hist.Writes) != 2 || hist.Writes[0].ID != 3 || hist.Writes[0].Tool != "undo" ||
		hist.Writes[0].Summary != "undid write 1 (edited A.md)" || hist.Writes[0].Vault != "notes" ||
		!reflect.DeepEqual(hist.Writes[0].Files, []historyFile{{Change: "edit", Path: "A.md", PathAfter: "A.md"}}) {
		t.Errorf("history --json = %s", h.stdout)
	}
}

func TestUndoRefusesWhenTheNoteChangedSince(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n", "L1.md": "[[A]]\n", "L2.md": "[[A]]\n"})
	f.write(t, write.Change{Tool: "move-note", Files: []write.FileChange{
		{Path: "A.md", Before: testETag([]byte("a\n")), MoveTo: "B.md"},
		{Path: "L1.md", Before: testETag([]byte("[[A]]\n")), After: []byte("[[B]]\n")},
		{Path: "L2.md", Before: testETag([]byte("[[A]]\n")), After: []byte("[[B]]\n")},
	}})
	sharedtest.WriteFile(t, f.dir, "L2.md", "[[B]], edited by hand\n")
	was := vaultNotes(t, f.dir)
	u := f.run(t, "undo")
	if u.code != 1 {
		t.Fatalf("exit %d, want 1: %s", u.code, u.stderr)
	}
	want := "jarvis: cannot undo: L2.md changed since write 1; undoing it would lose that change; nothing was changed\n"
	if u.stderr != want {
		t.Errorf("stderr = %q, want %q", u.stderr, want)
	}
	if got := vaultNotes(t, f.dir); !maps.Equal(got, was) {
		t.Errorf("notes changed: %q, was %q", got, was)
	}
	if h := f.run(t, "history", "--json"); strings.Count(h.stdout, `"id"`) != 1 {
		t.Errorf("a refused undo was journalled: %s", h.stdout)
	}
}

func TestUndoAndHistoryWords(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	// A database with an empty journal (one at a path where there is
	// none is refused: TestHistoryAndUndoOfAMissingDatabase).
	db, err := store.Open(context.Background(), f.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"history"}, 0, "No writes yet in the journal of " + f.db + ": the write tools and jarvis undo record each write they make there.\n", ""},
		{[]string{"undo"}, 1, "", "jarvis: nothing to undo: no write has been made through jarvis yet\n"},
		{[]string{"undo", "7"}, 1, "", "jarvis: there is no write 7: no write has been made through jarvis yet\n"},
		{[]string{"undo", "seven"}, 2, "", "jarvis: undo takes the number of a write, as `jarvis history` lists it (got \"seven\")\n"},
		{[]string{"undo", "1", "2"}, 2, "", "jarvis: undo reverts one write at a time (got \"1\" and \"2\"); see `jarvis undo --help`\n"},
		{[]string{"history", "--limit", "0"}, 2, "", "jarvis: --limit takes a number of 1 or more\n"},
		{[]string{"history", "--limit", "abc"}, 2, "", "jarvis: --limit takes a whole number (got \"abc\"); see `jarvis history --help`\n"},
	}
	for _, c := range cases {
		r := f.run(t, c.args...)
		if r.code != c.code || r.stdout != c.stdout || r.stderr != c.stderr {
			t.Errorf("jarvis %s: exit %d, stdout %q, stderr %q; want exit %d, %q, %q",
				strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.code, c.stdout, c.stderr)
		}
	}
}

func TestUndoOfAWriteInAVaultNotGiven(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	db, err := store.Open(context.Background(), f.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch := write.Change{Tool: "create-note", Files: []write.FileChange{{Path: "X.md", After: []byte("x")}}}
	if _, err := write.Record(context.Background(), db, "work", ch, write.Applied{Files: []write.AppliedFile{{Path: "X.md", Final: "X.md", ETag: testETag([]byte("x"))}}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r := f.run(t, "undo")
	if want := "jarvis: write 1 was made in the vault \"work\", which neither this run nor the database knows; name its folder with --vault or in the config file\n"; r.code != 2 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", r.code, r.stderr, want)
	}
}

// TestUndoWithOnlyTheDatabase pastes the hints as a user of jarvis mcp
// would: the server had the vault, the undo run has only the database
// (the vault's folder comes from it), or names the vault as history
// prints it, which is no folder here.
func TestUndoWithOnlyTheDatabase(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	if r := f.run(t, "index"); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a2\n")), After: []byte("a3\n")}}})

	u := f.runAs(t, "undo", "--db", f.db)
	if u.code != 0 || !strings.Contains(u.stdout, "Reverted write 2 in \"notes\"") {
		t.Fatalf("undo --db: exit %d, stdout %q, stderr %q", u.code, u.stdout, u.stderr)
	}
	if got := vaultNotes(t, f.dir); got["A.md"] != "a2\n" {
		t.Errorf("after undo --db A.md is %q, want %q", got["A.md"], "a2\n")
	}
	u = f.runAs(t, "undo", "1", "--vault", f.vault.Name, "--db", f.db)
	if u.code != 0 || !strings.Contains(u.stdout, "Reverted write 1 in \"notes\"") {
		t.Fatalf("undo --vault %s: exit %d, stdout %q, stderr %q", f.vault.Name, u.code, u.stdout, u.stderr)
	}
	if got := vaultNotes(t, f.dir); got["A.md"] != "a\n" {
		t.Errorf("after undo 1 --vault %s A.md is %q, want %q", f.vault.Name, got["A.md"], "a\n")
	}
}

// TestUndoOfAWriteNotKept tells a number above the newest write from one
// the journal dropped as it keeps within its bounds.
func TestUndoOfAWriteNotKept(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	for i := 0; i < 3; i++ {
		f.write(t, write.Change{Tool: "create-note", Files: []write.FileChange{{Path: fmt.Sprintf("N%d.md", i), After: []byte("n\n")}}})
	}
	db, err := store.Open(context.Background(), f.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), `DELETE FROM writes WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if r := f.run(t, "undo", "11"); r.code != 1 || r.stderr != "jarvis: there is no write 11: the newest is 3\n" {
		t.Errorf("undo 11: exit %d, stderr %q", r.code, r.stderr)
	}
	want := "jarvis: there is no write 1 to undo: the journal keeps the last 1,000 writes, 64 MiB of the notes' previous contents and 90 days; run `jarvis history --vault " + f.dir + " --db " + f.db + "` to list them\n"
	if r := f.run(t, "undo", "1"); r.code != 1 || r.stderr != want {
		t.Errorf("undo 1: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// TestUndoRefusalNamesTheLaterWrite names the write that changed the note
// since, to undo first; and an undo of an undo says it redid the write.
func TestUndoRefusalNamesTheLaterWrite(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a2\n")), After: []byte("a3\n")}}})
	r := f.run(t, "undo", "1")
	want := "jarvis: cannot undo: A.md changed since write 1; undoing it would lose that change; write 2 changed it since: undo it first with `jarvis undo --vault " + f.dir + " --db " + f.db + " 2`; nothing was changed.\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("undo 1: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}

	// A plain undo after an undo redoes, and the report says so, with
	// the command that undoes the write before.
	again := "`jarvis undo --vault " + f.dir + " --db " + f.db + "`"
	before := "`jarvis undo --vault " + f.dir + " --db " + f.db + " 1`"
	for _, want := range []string{
		`Reverted write 2 in "notes" (which edited A.md): restored the earlier A.md. This undo is write 3: run ` + again + ` again to redo it; ` + before + ` undoes the write before.`,
		`Redid write 2 in "notes" (edited A.md) by reverting write 3, its undo: restored A.md as write 2 left it. This redo is write 4: run ` + again + ` to undo it again.`,
		`Undid write 2 in "notes" (edited A.md) again by reverting write 4, its redo: restored the earlier A.md. This undo is write 5: run ` + again + ` again to redo it; ` + before + ` undoes the write before.`,
	} {
		if u := f.run(t, "undo"); u.code != 0 || u.stdout != want+"\n" {
			t.Errorf("undo: exit %d, stdout %q, want %q", u.code, u.stdout, want)
		}
	}
}

// TestUndoRefusalNamesEveryLaterWrite: when several writes changed the
// note since, the refusal names them all and the undos to run, newest
// first, a few of them and how far down the rest go.
func TestUndoRefusalNamesEveryLaterWrite(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a0\n"})
	for i := 1; i <= 6; i++ {
		before, after := fmt.Sprintf("a%d\n", i-1), fmt.Sprintf("a%d\n", i)
		f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte(before)), After: []byte(after)}}})
	}
	undo := func(n int) string { return fmt.Sprintf("`jarvis undo --vault %s --db %s %d`", f.dir, f.db, n) }
	r := f.run(t, "undo", "1")
	want := "writes 2, 3, 4, 5 and 6 changed it since: undo them first, newest first: " + undo(6) + ", then " + undo(5) + ", then " + undo(4) + ", and so on down to " + undo(2) + "; nothing was changed.\n"
	if r.code != 1 || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("undo 1: exit %d, stderr %q, want it to end %q", r.code, r.stderr, want)
	}
	r = f.run(t, "undo", "4")
	want = "writes 5 and 6 changed it since: undo them first, newest first: " + undo(6) + ", then " + undo(5) + "; nothing was changed.\n"
	if r.code != 1 || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("undo 4: exit %d, stderr %q, want it to end %q", r.code, r.stderr, want)
	}
}

// TestUndoRefusalSkipsUndoPairs: when the writes since include undos
// and redos, the refusal advises only the undos that bring the note back
// (an undo and the write it reverted cancel out), and following it does.
func TestUndoRefusalSkipsUndoPairs(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a1\n")}}})
	f.write(t, write.Change{Tool: "create-note", Files: []write.FileChange{{Path: "B.md", After: []byte("b\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a1\n")), After: []byte("a3\n")}}})
	for i := 0; i < 2; i++ { // write 4 undoes 3, write 5 redoes it
		if u := f.run(t, "undo"); u.code != 0 {
			t.Fatalf("undo: exit %d, stderr %q", u.code, u.stderr)
		}
	}
	undo := func(n int) string { return fmt.Sprintf("`jarvis undo --vault %s --db %s %d`", f.dir, f.db, n) }
	r := f.run(t, "undo", "1")
	want := "writes 3, 4 and 5 changed it since, some undoing others: undo write 5 first with " + undo(5) + ", which takes back what they did; nothing was changed.\n"
	if r.code != 1 || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("undo 1: exit %d, stderr %q, want it to end %q", r.code, r.stderr, want)
	}
	if u := f.run(t, "undo", "5"); u.code != 0 {
		t.Fatalf("undo 5: exit %d, stderr %q", u.code, u.stderr)
	}
	if u := f.run(t, "undo", "1"); u.code != 0 || vaultNotes(t, f.dir)["A.md"] != "a\n" {
		t.Errorf("undo 1 after the advice: exit %d, stderr %q, A.md %q", u.code, u.stderr, vaultNotes(t, f.dir)["A.md"])
	}
}

// TestUndoDoesNotWarnOfSkippedFiles: the index refresh after an undo
// does not print a warning for each file the index skips.
func TestUndoDoesNotWarnOfSkippedFiles(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	outside := filepath.Join(t.TempDir(), "Out.md")
	sharedtest.WriteFile(t, filepath.Dir(outside), "Out.md", "out\n")
	if err := os.Symlink(outside, filepath.Join(f.dir, "outlink.md")); err != nil {
		t.Fatal(err)
	}
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	u := f.run(t, "undo")
	if u.code != 0 || u.stderr != "" {
		t.Errorf("undo: exit %d, stderr %q, want nothing on stderr", u.code, u.stderr)
	}
}

// TestHistoryOfOneWrite says the way to undo it once.
func TestHistoryOfOneWrite(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	h := f.run(t, "history")
	want := "\n1 write listed. Run `jarvis undo --vault " + f.dir + " --db " + f.db + "` to revert it.\n"
	if h.code != 0 || !strings.HasSuffix(h.stdout, want) {
		t.Errorf("history: exit %d, stdout %q, want it to end %q", h.code, h.stdout, want)
	}
}

// TestHistoryOffersOnlyWritesThatCanBeUndone: a write already undone is
// not offered by history's footer (its undo changed its note since), and
// every command the footer offers works when run.
func TestHistoryOffersOnlyWritesThatCanBeUndone(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"C.md": "c\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "C.md", Before: testETag([]byte("c\n")), After: []byte("c2\n")}}})
	if u := f.run(t, "undo", "1"); u.code != 0 {
		t.Fatalf("undo 1: exit %d: %s", u.code, u.stderr)
	}
	h := f.run(t, "history")
	if h.code != 0 {
		t.Fatalf("history: exit %d: %s", h.code, h.stderr)
	}
	if strings.Contains(h.stdout, "for write 1") {
		t.Errorf("history offers to undo write 1, already undone:\n%s", h.stdout)
	}
	cmds := sharedtest.SuggestedCommands(h.stdout)
	if len(cmds) == 0 {
		t.Fatalf("history offers no undo:\n%s", h.stdout)
	}
	for _, cmd := range cmds {
		if u := f.runAs(t, cmd...); u.code != 0 {
			t.Errorf("%q, offered by history, fails: %s", cmd, u.stderr)
		}
	}
}

// TestUndoOfAWriteAlreadyUndone: undoing a write a later undo reverted
// says it is already undone, and how to make it again, rather than
// naming the undo as a conflict to undo first.
func TestUndoOfAWriteAlreadyUndone(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	if u := f.run(t, "undo", "1"); u.code != 0 {
		t.Fatalf("undo 1: exit %d: %s", u.code, u.stderr)
	}
	u := f.run(t, "undo", "1")
	if u.code == 0 || !strings.Contains(u.stderr, "write 1 is already undone, by write 2; to make it again, run `jarvis undo") || strings.Contains(u.stderr, "undo it first") {
		t.Errorf("undo 1 again: exit %d: %s", u.code, u.stderr)
	}
	if got := vaultNotes(t, f.dir); got["A.md"] != "a\n" {
		t.Errorf("A.md = %q; nothing should change", got["A.md"])
	}
}

// TestUndoRefusedByAMoveOutsideJarvisSaysTheWayForward: a file the write
// changed and someone moved since, outside jarvis, refuses the undo with
// what would let it go ahead: put the file back, then run it again.
func TestUndoRefusedByAMoveOutsideJarvisSaysTheWayForward(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	if err := os.Rename(filepath.Join(f.dir, "A.md"), filepath.Join(f.dir, "Moved.md")); err != nil {
		t.Fatal(err)
	}
	u := f.run(t, "undo", "1")
	if u.code != 1 || !strings.Contains(u.stderr, "A.md was moved or deleted since write 1") || !strings.Contains(u.stderr, "To undo it, put A.md back where it was, then run `jarvis undo") {
		t.Errorf("exit %d: %s", u.code, u.stderr)
	}
}

// TestUndoAndHistorySayTheSame: undoing the creation of a note says the
// note went to the vault's trash, as the history says of that undo, in
// the same words (write.UndoSaid), and marks the created note undone.
func TestUndoAndHistorySayTheSame(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "create-note", Files: []write.FileChange{{Path: "new idea.md", After: []byte("i\n")}}})
	u := f.run(t, "undo")
	said, _, ok := strings.Cut(u.stdout, ". This undo is write 2")
	if u.code != 0 || !ok || said != `Reverted write 1 in "notes" (which created new idea.md): moved new idea.md to the vault's .trash` {
		t.Fatalf("undo: exit %d, stdout %q", u.code, u.stdout)
	}
	h := f.run(t, "history")
	for _, want := range []string{
		`undo in "notes": ` + strings.Replace(strings.ToLower(said[:1])+said[1:], ` in "notes"`, "", 1) + "\n",
		`create-note in "notes": created new idea.md (undone by write 2)` + "\n",
	} {
		if !strings.Contains(h.stdout, want) {
			t.Errorf("history does not say %q:\n%s", want, h.stdout)
		}
	}
}

// TestUndoReportOffersOnlyAnUndoableWrite: the write an undo's report
// offers to undo next is one that can still be undone, as the history
// picks it (write.Undoable), not one an earlier undo already reverted.
func TestUndoReportOffersOnlyAnUndoableWrite(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n", "B.md": "b\n", "C.md": "c\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "C.md", Before: testETag([]byte("c\n")), After: []byte("c2\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "B.md", Before: testETag([]byte("b\n")), After: []byte("b2\n")}}})
	if r := f.run(t, "undo", "2"); r.code != 0 {
		t.Fatalf("undo 2: exit %d, stderr %q", r.code, r.stderr)
	}
	// Write 4 undid write 2: the write before 3 to offer is 1, not 2.
	want := `Reverted write 3 in "notes" (which edited B.md): restored the earlier B.md. This undo is write 5: run ` +
		"`jarvis undo --vault " + f.dir + " --db " + f.db + "` again to redo it; `jarvis undo --vault " + f.dir + " --db " + f.db + " 1` undoes the write before.\n"
	if r := f.run(t, "undo", "3"); r.code != 0 || r.stdout != want {
		t.Fatalf("undo 3: exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}

	// When every write before is undone, none is offered.
	g := newUndoFixture(t, map[string]string{"A.md": "a\n", "B.md": "b\n"})
	g.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	g.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "B.md", Before: testETag([]byte("b\n")), After: []byte("b2\n")}}})
	if r := g.run(t, "undo", "1"); r.code != 0 {
		t.Fatalf("undo 1: exit %d, stderr %q", r.code, r.stderr)
	}
	want = `Reverted write 2 in "notes" (which edited B.md): restored the earlier B.md. This undo is write 4: run ` +
		"`jarvis undo --vault " + g.dir + " --db " + g.db + "` again to redo it.\n"
	if r := g.run(t, "undo", "2"); r.code != 0 || r.stdout != want {
		t.Fatalf("undo 2: exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}
}

// TestUndoOfAWriteUndoneBeforeOthers: a write already undone, with other
// writes to its note after that undo (another write's undo moved the note
// to the trash), is said to be undone already, not a conflict whose
// advice would redo and undo it again.
func TestUndoOfAWriteUndoneBeforeOthers(t *testing.T) {
	f := newUndoFixture(t, map[string]string{})
	f.write(t, write.Change{Tool: "create-note", Files: []write.FileChange{{Path: "Shed.md", After: []byte("shed\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "Shed.md", Before: testETag([]byte("shed\n")), After: []byte("shed 2\n")}}})
	if u := f.run(t, "undo"); u.code != 0 { // write 3 undoes 2
		t.Fatalf("undo: exit %d, stderr %q", u.code, u.stderr)
	}
	if u := f.run(t, "undo", "1"); u.code != 0 { // write 4 moves Shed.md to the trash
		t.Fatalf("undo 1: exit %d, stderr %q", u.code, u.stderr)
	}
	r := f.run(t, "undo", "2")
	if want := "write 2 is already undone, by write 3"; r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "undo them first") {
		t.Errorf("undo 2: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	// The way to make it again works when pasted: write 4 moved the note
	// since write 3, so it is undone first.
	undo := func(n int) string { return fmt.Sprintf("`jarvis undo --vault %s --db %s %d`", f.dir, f.db, n) }
	if want := "to make it again, run " + undo(4) + ", then " + undo(3); !strings.Contains(r.stderr, want) {
		t.Fatalf("undo 2: stderr %q; want %q", r.stderr, want)
	}
	for _, n := range []string{"4", "3"} {
		if u := f.run(t, "undo", n); u.code != 0 {
			t.Fatalf("undo %s as advised: exit %d, stderr %q", n, u.code, u.stderr)
		}
	}
	if got := vaultNotes(t, f.dir)["Shed.md"]; got != "shed 2\n" {
		t.Errorf("after the advice Shed.md holds %q; want write 2's text", got)
	}
}

// TestHistoryCutByItsLimit: a history cut by --limit says how many writes
// the journal holds, and an undo whose write is not listed is worded as
// when it is.
func TestHistoryCutByItsLimit(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	f.write(t, write.Change{Tool: "create-note", Files: []write.FileChange{{Path: "B.md", After: []byte("b\n")}}})
	if u := f.run(t, "undo", "1"); u.code != 0 { // write 3 reverts 1
		t.Fatalf("undo 1: exit %d, stderr %q", u.code, u.stderr)
	}
	whole := f.run(t, "history")
	cut := f.run(t, "history", "--limit", "1")
	line := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "3  ") {
				return l
			}
		}
		return ""
	}
	if l := line(whole.stdout); l == "" || line(cut.stdout) != l {
		t.Errorf("write 3 listed whole:\n%s\nand cut:\n%s", whole.stdout, cut.stdout)
	}
	if !strings.Contains(cut.stdout, "1 of the 3 writes in the journal listed") {
		t.Errorf("a cut history does not say how many writes there are:\n%s", cut.stdout)
	}
}

// TestUndoLeavesNoPassageWithoutAVector: an undo at the terminal indexes
// the notes it restores and makes their vectors, as any index run does;
// doctor found a passage with no vector after one (trial 20).
func TestUndoLeavesNoPassageWithoutAVector(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "# A\n\nThe lighthouse keeper's logbook.\n", "B.md": "# B\n\nA quiet harbour.\n"})
	if r := f.run(t, "index"); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("# A\n\nThe lighthouse keeper's logbook.\n")),
		After: []byte("# A\n\nThe lamp went out at midnight.\n")}}})
	if r := f.run(t, "index"); r.code != 0 {
		t.Fatalf("index after the write: exit %d: %s", r.code, r.stderr)
	}
	if u := f.run(t, "undo"); u.code != 0 {
		t.Fatalf("undo: exit %d: %s", u.code, u.stderr)
	}
	d := f.run(t, "doctor")
	if line := lineOf(t, d.stdout, "embedder:"); !strings.HasPrefix(line, "ok") || strings.Contains(line, "no vector") {
		t.Errorf("doctor after an undo: %q\n%s", line, d.stdout)
	}
}

// TestHistoryFooterSaysWhatRevertingAnUndoDoes: when the newest write is
// an undo, the footer says that reverting it makes the write it undid
// again (trial 29: "to revert the last" hid that it redoes).
func TestHistoryFooterSaysWhatRevertingAnUndoDoes(t *testing.T) {
	f := newUndoFixture(t, map[string]string{"A.md": "a\n", "B.md": "b\n"})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "A.md", Before: testETag([]byte("a\n")), After: []byte("a2\n")}}})
	f.write(t, write.Change{Tool: "edit-note", Files: []write.FileChange{{Path: "B.md", Before: testETag([]byte("b\n")), After: []byte("b2\n")}}})
	if u := f.run(t, "undo", "2"); u.code != 0 {
		t.Fatalf("undo 2: exit %d: %s", u.code, u.stderr)
	}
	h := f.run(t, "history")
	if want := "to revert the last (it undid write 2, so this makes write 2 again), or"; !strings.Contains(h.stdout, want) {
		t.Errorf("history after an undo does not say %q:\n%s", want, h.stdout)
	}
}
