package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Coverage is what is known of one vault for saying why a search of it may
// find nothing, or less than there is, for a reason other than the query:
// its folder, and what the index holds of it.
type Coverage struct {
	Name, Path string
	// Folder says why the vault folder cannot be read ("does not exist",
	// "cannot be read (permission denied)"); "" when it can.
	Folder string
	// Known is set when the index was asked: Indexed and Notes are then
	// what it holds. A caller that did not ask, or could not read it,
	// leaves it unset and nothing is said of the index.
	Known bool
	// Indexed is set once an index run of the vault has finished.
	Indexed bool
	// Notes is how many notes the index holds of the vault so far, and
	// Attachments how many other files.
	Notes, Attachments int
}

// folderMissing is what FolderProblem says of a folder that does not
// exist: one whose vault may have been moved (Move).
const folderMissing = "does not exist"

// FolderProblem says why the vault folder at path cannot be searched, in
// words for a reader ("does not exist"), or "" when it can be listed. It
// is the one test of a vault folder that the answers and `jarvis search`
// share.
func FolderProblem(path string) string {
	why, _ := folderProblem(path)
	return why
}

// FolderTrouble says what is wrong with the folder dir of a vault for a
// reader who must act on it, "its folder … does not exist (it was deleted
// or renamed, …)", or "" when it can be listed: FolderProblem's words, and
// what most likely caused them or what fixes them. Every answer that
// cannot reach a vault's folder (read-note, edit-note, the vault check)
// says it so.
func FolderTrouble(dir string) string {
	why, err := folderProblem(dir)
	switch {
	case why == "":
		return ""
	case errors.Is(err, fs.ErrNotExist):
		why += " (it was deleted or renamed, or is on a disk that is not mounted)"
	case errors.Is(err, fs.ErrPermission):
		why += "; run " + ReadFix(dir) + " so that jarvis can read it"
	}
	return "its folder " + dir + " " + why
}

// folderProblem is FolderProblem with the error behind its words.
func folderProblem(path string) (string, error) {
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		var st fs.FileInfo
		if st, err = f.Stat(); err == nil && !st.IsDir() {
			return "is a file, not a folder", nil
		}
		if err == nil {
			if _, err = f.Readdirnames(1); errors.Is(err, io.EOF) {
				err = nil
			}
		}
	}
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, fs.ErrNotExist):
		return folderMissing, err
	case errors.Is(err, fs.ErrPermission):
		return "cannot be read (permission denied)", err
	}
	return "cannot be read (" + vault.ErrText(err) + ")", err
}

// Cover gathers the coverage of vaults: each folder as FolderProblem sees
// it and, when db is not nil, what the index holds of each. An index that
// cannot be read leaves Known unset: the search that follows falls back
// to the files and says so itself.
func Cover(ctx context.Context, db Querier, vaults []config.Vault) []Coverage {
	if db != nil {
		if stats, err := Stats(ctx, db); err == nil {
			return CoverStats(vaults, stats)
		}
	}
	return folders(vaults)
}

// CoverStats is Cover for a caller that has read the index's stats
// already (a service over the database, as the MCP tools have): what the
// index holds of each vault is then known.
func CoverStats(vaults []config.Vault, stats []VaultStats) []Coverage {
	return known(folders(vaults), stats)
}

// folders is the coverage of vaults as their folders alone tell it.
func folders(vaults []config.Vault) []Coverage {
	out := make([]Coverage, len(vaults))
	for i, v := range vaults {
		out[i] = Coverage{Name: v.Name, Path: v.Path, Folder: FolderProblem(v.Path)}
	}
	return out
}

// known fills in what stats says the index holds of each of covs.
func known(covs []Coverage, stats []VaultStats) []Coverage {
	for i := range covs {
		covs[i].Known = true
		for _, s := range stats {
			if s.Name == covs[i].Name {
				covs[i].Indexed, covs[i].Notes, covs[i].Attachments = !s.LastIndexed.IsZero(), s.Notes, s.Attachments
			}
		}
	}
	return covs
}

// AnsweredAsLastIndexed reports whether searches still answer for the
// vault although its folder cannot be read: the index holds it as it was
// last indexed. Search answers (Explain) and the vault check (StillAnswering)
// ask it alike.
func (c Coverage) AnsweredAsLastIndexed() bool {
	return c.Folder != "" && c.Known && c.Indexed
}

// StillAnswering wraps the vault check (config.Checks, one result named
// "vault NAME" a vault): the failure of a vault whose folder cannot be
// read while the index holds it says that search still answers for it
// (health.Result.Answers), so that the report's headline does not call
// jarvis broken while every answer still comes.
func StillAnswering(h *store.Handle, vaults []config.Vault, c health.Check) health.Check {
	run := c.Run
	c.Run = func(ctx context.Context) []health.Result {
		out := run(ctx)
		if !slices.ContainsFunc(out, func(r health.Result) bool { return r.Status == health.Fail }) {
			return out
		}
		db, err := h.DB(ctx)
		if err != nil || db.SetUp(ctx) != "" {
			return out // the database checks say why
		}
		for _, cv := range Cover(ctx, db, vaults) {
			if !cv.AnsweredAsLastIndexed() {
				continue
			}
			for i := range out {
				if out[i].Status == health.Fail && out[i].Name == "vault "+cv.Name {
					out[i].Answers = fmt.Sprintf("search still answers, with vault %q as it was last indexed", cv.Name)
				}
			}
		}
		return out
	}
	return c
}

// NoIndex is the coverage of vaults when there is no database at all:
// nothing of any of them is indexed.
func NoIndex(vaults []config.Vault) []Coverage {
	out := make([]Coverage, len(vaults))
	for i, v := range vaults {
		out[i] = Coverage{Name: v.Name, Path: v.Path, Folder: FolderProblem(v.Path), Known: true}
	}
	return out
}

// Unready is why a search over some vaults may find nothing, or less than
// there is, for a reason other than the query.
type Unready struct {
	// Empty is what an answer with no results says in place of "nothing
	// matches": set when no vault searched could be searched whole.
	Empty string
	// Notes say, one a vault (or one for vaults alike), which vaults were
	// not searched whole and why, for an answer to carry beside what the
	// other vaults gave. Building is not among them while there are
	// results: the answer's index state says so (see Explain).
	Notes []string
	// building are the notes of vaults whose first index is under way,
	// kept apart from Notes for an answer that has results.
	building []string
	// NoNotes is set when every vault searched is indexed and holds no
	// Markdown note: nothing is missing from the index, there is nothing
	// to search (and no vector to make).
	NoNotes bool
}

// Has reports whether any vault searched was not searched whole.
func (u Unready) Has() bool { return len(u.Notes) > 0 || len(u.building) > 0 }

// For returns what an answer with n results carries: every reason when it
// has none, and the reasons that its index state does not already tell
// when it has some.
func (u Unready) For(n int) []string {
	if n > 0 {
		return u.Notes
	}
	return append(append([]string{}, u.building...), u.Notes...)
}

// Explain is the one rule that decides why a search over the vaults of
// covs can miss notes for a reason other than the query: the vault folder
// is missing or cannot be read; the vault's first index is being built,
// with its progress (st is the background index's state, the zero State
// when nothing indexes in the background); the index run failed before
// the vault was indexed; or nothing of the vault is indexed yet, with the
// command that indexes it (inv repeats the user's flags). A vault indexed
// before, whose folder can be read, is searched whole: an empty answer
// over such vaults is the query's, and says so in its own words.
func Explain(covs []Coverage, st State, inv health.Invocation) Unready {
	var u Unready
	var notIndexed []string
	whole := false
	// Indexing refuses to run while a vault folder is missing, so the
	// command that indexes is named only when every folder can be read.
	finish, build := "run "+inv.Command("index")+" to finish it", "run "+inv.Command("index")+" to build the index"
	for _, c := range covs {
		if c.Folder != "" {
			finish = "index it once the vault folder this answer names is fixed"
			build = finish
		}
	}
	var hollow []string
	for _, c := range covs {
		name := fmt.Sprintf("%q", c.Name)
		switch {
		case c.AnsweredAsLastIndexed():
			// The index still holds its notes; a server watching for the
			// folder picks it up again once it is back.
			u.Notes = append(u.Notes, fmt.Sprintf("the %s%s) %s, so its notes are answered as they were last indexed, and changes to them are not seen until the folder is back: put it back if it was moved, or correct the vault's path if it is mistyped (it was given with --vault, %s or the config file)",
				folderOf(c.Name), c.Path, c.Folder, config.EnvVault))
		case c.Folder != "":
			u.Notes = append(u.Notes, fmt.Sprintf("the %s%s) %s, so its notes cannot be searched or read: correct the vault's path if it is mistyped (it was given with --vault, %s or the config file; a running server reads it when it starts again), or put the folder back if it was moved",
				folderOf(c.Name), c.Path, c.Folder, config.EnvVault))
		case st.State == StateIndexing && (c.Known && !c.Indexed || !c.Known && st.LastIndexed.IsZero()):
			// Without the index asked, a run before any has finished
			// is taken for the first.
			u.building = append(u.building, building(c.Name, st))
		case c.Known && c.Indexed && c.Notes == 0:
			hollow = append(hollow, NoNotes(c.Name, c.Attachments))
		case !c.Known || c.Indexed:
			whole = true
		case failedFor(st, c.Name):
			u.Notes = append(u.Notes, fmt.Sprintf("vault %s is not indexed: the last index run failed before it was done (health-status says why and how to fix it)", name))
		case c.Notes > 0:
			u.Notes = append(u.Notes, fmt.Sprintf("the first index of vault %s is not finished (%s indexed so far; another jarvis may be building it now): search again once it is done, or %s",
				name, counted(c.Notes, "note"), finish))
		default:
			notIndexed = append(notIndexed, name)
		}
	}
	if len(notIndexed) > 0 {
		u.Notes = append(u.Notes, fmt.Sprintf("nothing is indexed yet for %s: %s, then search again",
			listed("vault", notIndexed), build))
	}
	if !whole && len(hollow) > 0 {
		// Beside a vault with notes, an empty answer is the query's.
		u.Notes = append(u.Notes, hollow...)
		u.NoNotes = len(hollow) == len(covs)
	}
	if !whole && u.Has() {
		var b strings.Builder
		for i, s := range u.For(0) {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(sentence(s))
		}
		u.Empty = b.String()
	}
	return u
}

// folderOf begins the words Explain says of a vault whose folder is
// missing or cannot be read, after "the": SaysFolder finds them by it.
func folderOf(name string) string {
	return fmt.Sprintf("folder of vault %q (", name)
}

// SaysFolder reports whether any of said (an answer's notes, its empty
// sentence) is Explain's account of the folder of the vault named: an
// answer that carries it, with its fix, need not say the folder is gone
// again.
func SaysFolder(said []string, name string) bool {
	return slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, folderOf(name)) })
}

// failedFor reports whether the last run failed to index the vault named.
func failedFor(st State, name string) bool {
	_, failed := st.FailedFor(name)
	return failed
}

// NoNotes says that the vault named, indexed whole, holds no Markdown
// note, and what it holds instead: why nothing of it can be found, and
// why it has no vectors. Search answers and doctor say it in these words.
func NoNotes(name string, attachments int) string {
	if attachments > 0 {
		return fmt.Sprintf("vault %q holds no Markdown notes, only %s (jarvis searches the text of .md files)", name, counted(attachments, "attachment"))
	}
	return fmt.Sprintf("vault %q holds no Markdown notes (jarvis searches the text of .md files)", name)
}

// building says how far the first index of the vault named has got.
func building(name string, st State) string {
	q := fmt.Sprintf("%q", name)
	switch {
	case st.Vault == name:
		return fmt.Sprintf("the index of vault %s is still being built (%s), so not all of its notes can be found yet: ask again in a few seconds",
			q, st.Progress())
	case st.Vault != "":
		return fmt.Sprintf("vault %s is not indexed yet: its index is built after that of vault %q, which is being built now (%s); ask again in a little while",
			q, st.Vault, st.Progress())
	}
	return fmt.Sprintf("the index of vault %s is about to be built, so its notes cannot be found yet: ask again in a few seconds", q)
}

// Progress says how far the index run under way has got with the vault
// it indexes (st.Vault), for a parenthesis: the stage it is in, and while
// it writes files how many of its notes and attachments are indexed, in
// the words of Counts.Of. Every answer that tells of a run under way words
// it here.
func (st State) Progress() string {
	// Total counts the files the run writes: none when nothing changed,
	// and then no file is read at all.
	switch {
	case st.Phase == PhaseLinks && st.Total.Files() > 0:
		return "all files read; links are being resolved"
	case st.Phase == PhaseLinks:
		return "no file changed; links are being checked"
	case st.Total.Files() > 0 && st.Done.Files() >= st.Total.Files():
		return "all files read; the index is being finished"
	case st.Total.Files() > 0:
		return st.Done.Of(st.Total) + " indexed"
	case st.Phase == PhaseWrite:
		return "no file changed; the index is being finished"
	case st.Phase == PhaseLocked:
		return "waiting for the database, locked by another program"
	}
	return "its files are being listed"
}

// counted writes n and the noun, plural unless n is 1.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// listed names things of a kind: `vault "a"`, `vaults "a" and "b"`,
// `vaults "a", "b" and "c"`.
func listed(noun string, names []string) string {
	if len(names) == 1 {
		return noun + " " + names[0]
	}
	return noun + "s " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// sentence makes a clause a sentence: a capital first letter and a full
// stop.
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:] + "."
}
