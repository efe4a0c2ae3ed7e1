package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
)

// TestExplain: each reason other than the query that a search can find
// nothing for is said, naming the vault, what to do and, while the first
// index runs, how far it has got; a vault indexed before is searched
// whole, and an answer over it is the query's own.
func TestExplain(t *testing.T) {
	inv := health.Invocation{"--vault", "/notes/work", "--db", "/tmp/j.db"}
	indexed := Coverage{Name: "work", Path: "/notes/work", Known: true, Indexed: true, Notes: 1400}
	fresh := Coverage{Name: "work", Path: "/notes/work", Known: true}
	building := State{State: StateIndexing, Vault: "work", Done: Counts{Notes: 312, Attachments: 20}, Total: Counts{Notes: 1400, Attachments: 20}}
	for _, tc := range []struct {
		name  string
		covs  []Coverage
		st    State
		empty []string // what Empty says; nil when the answer is the query's
		notes []string // what the notes of an answer with results say
	}{
		{name: "indexed, nothing running", covs: []Coverage{indexed}},
		{name: "indexed, brought up to date", covs: []Coverage{indexed}, st: building},
		{name: "index not read", covs: []Coverage{{Name: "work", Path: "/notes/work"}}, st: State{State: StateReady, LastIndexed: time.Now()}},
		{name: "first index running", covs: []Coverage{fresh}, st: building,
			empty: []string{`The index of vault "work" is still being built (312 of 1400 notes, 20 attachments indexed)`, "ask again in a few seconds."}},
		{name: "first index listing files", covs: []Coverage{fresh}, st: State{State: StateIndexing, Vault: "work"},
			empty: []string{`vault "work" is still being built (its files are being listed)`, "ask again"}},
		{name: "waiting its turn", covs: []Coverage{fresh}, st: State{State: StateIndexing, Vault: "home", Done: Counts{Notes: 5}, Total: Counts{Notes: 9}},
			empty: []string{`Vault "work" is not indexed yet: its index is built after that of vault "home", which is being built now (5 of 9 notes indexed)`}},
		{name: "before the first pass", covs: []Coverage{{Name: "work", Path: "/notes/work"}}, st: State{State: StateIndexing},
			empty: []string{`The index of vault "work" is about to be built`, "ask again"}},
		{name: "never indexed", covs: []Coverage{fresh},
			empty: []string{`Nothing is indexed yet for vault "work": run ` + "`jarvis index --vault /notes/work --db /tmp/j.db`" + ` to build the index, then search again.`},
			notes: []string{`nothing is indexed yet for vault "work"`}},
		{name: "two never indexed", covs: []Coverage{fresh, {Name: "home", Path: "/notes/home", Known: true}},
			empty: []string{`Nothing is indexed yet for vaults "work" and "home": run`},
			notes: []string{`nothing is indexed yet for vaults "work" and "home"`}},
		{name: "first index cut off", covs: []Coverage{{Name: "work", Path: "/notes/work", Known: true, Notes: 1}},
			empty: []string{`The first index of vault "work" is not finished (1 note indexed so far;`, "`jarvis index --vault /notes/work --db /tmp/j.db`"},
			notes: []string{"1 note indexed so far"}},
		{name: "index run failed", covs: []Coverage{fresh}, st: State{State: StateFailed},
			empty: []string{`Vault "work" is not indexed: the last index run failed`, "health-status says why"},
			notes: []string{"the last index run failed"}},
		{name: "folder missing", covs: []Coverage{{Name: "work", Path: "/notes/work", Folder: "does not exist", Known: true, Indexed: true}},
			empty: []string{`The folder of vault "work" (/notes/work) does not exist`, "correct the vault's path if it is mistyped", "put it back if it was moved"},
			notes: []string{`the folder of vault "work" (/notes/work) does not exist, so its notes are answered as they were last indexed, and changes to them are not seen until the folder is back`}},
		{name: "folder missing, never indexed", covs: []Coverage{{Name: "work", Path: "/notes/work", Folder: "does not exist", Known: true}},
			empty: []string{`The folder of vault "work" (/notes/work) does not exist, so its notes cannot be searched or read`, "put the folder back if it was moved."},
			notes: []string{`the folder of vault "work" (/notes/work) does not exist`}},
		{name: "folder unreadable", covs: []Coverage{{Name: "work", Path: "/notes/work", Folder: "cannot be read (permission denied)"}},
			empty: []string{`The folder of vault "work" (/notes/work) cannot be read (permission denied)`},
			notes: []string{"cannot be read (permission denied)"}},
		{name: "one vault missing beside one indexed",
			covs:  []Coverage{{Name: "gone", Path: "/notes/gone", Folder: "does not exist"}, {Name: "home", Path: "/notes/home", Known: true, Indexed: true, Notes: 3}},
			notes: []string{`the folder of vault "gone" (/notes/gone) does not exist`}},
		{name: "one vault missing beside one never indexed",
			covs:  []Coverage{{Name: "gone", Path: "/notes/gone", Folder: "does not exist"}, fresh},
			empty: []string{`Nothing is indexed yet for vault "work": index it once the vault folder this answer names is fixed`},
			notes: []string{`the folder of vault "gone"`, `nothing is indexed yet for vault "work"`}},
		{name: "one vault missing beside one cut off",
			covs:  []Coverage{{Name: "gone", Path: "/notes/gone", Folder: "does not exist"}, {Name: "work", Path: "/notes/work", Known: true, Notes: 3}},
			empty: []string{`or index it once the vault folder this answer names is fixed.`},
			notes: []string{`the folder of vault "gone"`, "3 notes indexed so far"}},
		{name: "indexed, no Markdown notes", covs: []Coverage{{Name: "pics", Path: "/notes/pics", Known: true, Indexed: true, Attachments: 1}},
			empty: []string{`Vault "pics" holds no Markdown notes, only 1 attachment (jarvis searches the text of .md files).`},
			notes: []string{`vault "pics" holds no Markdown notes`}},
		{name: "no Markdown notes beside one indexed", covs: []Coverage{{Name: "pics", Path: "/notes/pics", Known: true, Indexed: true, Attachments: 2}, indexed}},
		{name: "one vault building beside one indexed", covs: []Coverage{fresh, {Name: "home", Path: "/notes/home", Known: true, Indexed: true, Notes: 3}}, st: building},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := Explain(tc.covs, tc.st, inv)
			if (u.Empty == "") != (tc.empty == nil) {
				t.Fatalf("Empty = %q; want it %s", u.Empty, map[bool]string{true: "unset", false: "set"}[tc.empty == nil])
			}
			for _, want := range tc.empty {
				if !strings.Contains(u.Empty, want) {
					t.Errorf("Empty = %q; want %q in it", u.Empty, want)
				}
			}
			notes := strings.Join(u.For(1), "\n")
			for _, c := range tc.covs {
				// Indexing refuses to run while a vault folder is
				// missing: the command that would fail is not named.
				if c.Folder != "" && strings.Contains(u.Empty+notes, "`jarvis index") {
					t.Errorf("a vault folder is missing, yet the answer names the index command: %q / %q", u.Empty, notes)
				}
			}
			for _, want := range tc.notes {
				if !strings.Contains(notes, want) {
					t.Errorf("notes with results = %q; want %q in them", notes, want)
				}
			}
			if tc.notes == nil && notes != "" {
				t.Errorf("notes with results = %q; want none", notes)
			}
		})
	}
}

// TestExplainNamesTheBuildingVaultBesideAnEmptyAnswer: when one vault is
// indexed and another is still being built, an empty answer keeps the
// query's wording and notes the vault not searched whole.
func TestExplainNamesTheBuildingVaultBesideAnEmptyAnswer(t *testing.T) {
	u := Explain([]Coverage{{Name: "new", Known: true}, {Name: "old", Known: true, Indexed: true, Notes: 3}},
		State{State: StateIndexing, Vault: "new", Done: Counts{Notes: 2}, Total: Counts{Notes: 10}}, nil)
	if u.Empty != "" || len(u.For(0)) != 1 || !strings.Contains(u.For(0)[0], "2 of 10 notes indexed") {
		t.Fatalf("Empty %q, notes %q", u.Empty, u.For(0))
	}
}

// TestFolderProblem: a folder that can be listed has none; a missing path
// and a file say what is wrong in words.
func TestFolderProblem(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{dir: "", filepath.Join(dir, "gone"): "does not exist", file: "is a file, not a folder"} {
		if got := FolderProblem(path); got != want {
			t.Errorf("FolderProblem(%s) = %q; want %q", path, got, want)
		}
	}
}

// TestCover reads from the index which vaults an index run has finished
// and how many notes it holds of each; without a database nothing is
// claimed of the index.
func TestCover(t *testing.T) {
	ctx := context.Background()
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	db := ix.db.(Querier)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "A.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, ix, "done", dir)
	done := config.Vault{Name: "done", Path: dir}
	never := config.Vault{Name: "never", Path: dir}
	covs := Cover(ctx, db, []config.Vault{done, never})
	if c := covs[0]; !c.Known || !c.Indexed || c.Notes != 1 || c.Folder != "" {
		t.Errorf("indexed vault: %+v", c)
	}
	if c := covs[1]; !c.Known || c.Indexed || c.Notes != 0 {
		t.Errorf("vault never indexed: %+v", c)
	}
	if c := Cover(ctx, nil, []config.Vault{done})[0]; c.Known {
		t.Errorf("without a database: %+v", c)
	}
}

// TestProgressNamesTheStageAfterReading: once every file is read, the
// progress of a run names what it does next rather than a finished
// count, and search answers say it in the same words.
func TestProgressNamesTheStageAfterReading(t *testing.T) {
	for _, tc := range []struct {
		st   State
		want string
	}{
		{State{State: StateIndexing, Vault: "work", Phase: PhaseScan}, "its files are being listed"},
		{State{State: StateIndexing, Vault: "work", Phase: PhaseWrite, Done: Counts{Notes: 500, Attachments: 134}, Total: Counts{Notes: 1402, Attachments: 134}}, "500 of 1402 notes, 134 attachments indexed"},
		{State{State: StateIndexing, Vault: "work", Phase: PhaseWrite, Done: Counts{Notes: 1402, Attachments: 134}, Total: Counts{Notes: 1402, Attachments: 134}}, "all files read; the index is being finished"},
		{State{State: StateIndexing, Vault: "work", Phase: PhaseLinks, Done: Counts{Notes: 1402}, Total: Counts{Notes: 1402}}, "all files read; links are being resolved"},
		// A restart with nothing changed reads no file: it only checks
		// the links (the write phase is never reported, so nothing is
		// counted).
		{State{State: StateIndexing, Vault: "work", Phase: PhaseLinks}, "no file changed; links are being checked"},
	} {
		if got := tc.st.Progress(); got != tc.want {
			t.Errorf("%+v: %q; want %q", tc.st, got, tc.want)
		}
		u := Explain([]Coverage{{Name: "work", Known: true}}, tc.st, nil)
		if !strings.Contains(u.Empty, "("+tc.want+")") || strings.Contains(u.Empty, "1402 of 1402") {
			t.Errorf("%+v: search says %q", tc.st, u.Empty)
		}
	}
}

// TestExplainOfAnIndexedVaultWhoseFolderIsGone: the index still answers
// for the vault, and a server picks the folder up again when it is back,
// so the answer says neither that nothing can be searched nor that a
// restart is needed.
func TestExplainOfAnIndexedVaultWhoseFolderIsGone(t *testing.T) {
	u := Explain([]Coverage{{Name: "fv", Path: "/notes/fv", Folder: "does not exist", Known: true, Indexed: true, Notes: 3}}, State{State: StateReady}, nil)
	for _, n := range u.For(1) {
		if strings.Contains(n, "cannot be searched") || strings.Contains(n, "starts again") {
			t.Errorf("note %q", n)
		}
	}
	if len(u.For(1)) != 1 {
		t.Errorf("notes %q; want one", u.For(1))
	}
}
