package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/words"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// historyOutput is the one JSON object `jarvis history --json` prints.
type historyOutput struct {
	Writes []historyWrite `json:"writes"`
}

// historyWrite is one write of the journal, newest first.
type historyWrite struct {
	// ID is the write's number, which jarvis undo takes.
	ID int64 `json:"id"`
	// At is when it was made, in RFC 3339 with the offset.
	At      string        `json:"at"`
	Tool    string        `json:"tool"`
	Vault   string        `json:"vault"`
	Summary string        `json:"summary"`
	Files   []historyFile `json:"files"`
}

// historyFile is one file a write changed: its change ("create", "edit",
// "move", "delete"), its path before and its path after (the new path of
// a move, the path in the vault's trash of a delete).
type historyFile struct {
	Change    string `json:"change"`
	Path      string `json:"path"`
	PathAfter string `json:"path_after"`
}

func historyJSON(entries []write.Entry) historyOutput {
	out := historyOutput{Writes: []historyWrite{}}
	for _, e := range entries {
		w := historyWrite{ID: e.ID, At: e.At.Format(time.RFC3339), Tool: e.Tool, Vault: e.Vault, Summary: e.Summary, Files: []historyFile{}}
		for _, f := range e.Files {
			w.Files = append(w.Files, historyFile{Change: string(f.Change), Path: f.Path, PathAfter: f.PathAfter})
		}
		out.Writes = append(out.Writes, w)
	}
	return out
}

func runHistory(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("history", "jarvis history",
		`List the last writes made to your notes through jarvis (the write tools
and jarvis undo), newest first: the number of each, when it was made, by
which tool, in which vault, and the files it changed. `+"`jarvis undo N`"+`
reverts write N. The journal keeps
`+journalBoundsText()+`.

Exit status: 0 when the writes were listed (even none), 1 when the journal
could not be read, 2 for a usage or configuration error.`, e)
	var c common
	c.register(fs)
	limit := fs.Int("limit", 20, "the most `writes` listed")
	asJSON := fs.Bool("json", false, "print one JSON object with the writes to stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *limit < 1 {
		return fmt.Errorf("--limit takes a number of 1 or more: %w", errUsage)
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := noJournal(cfg); err != nil {
		return err
	}
	var deps container.IndexDeps
	app := container.NewIndexApp(cfg, c.logger(e), &deps, container.WithProbe(e.dbProbe))
	if err := container.Err(app); err != nil {
		return explainOpenError(e, cfg, err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer app.Stop(context.Background())
	entries, err := write.History(ctx, deps.DB, *limit)
	if err != nil {
		return dbError(e, cfg, cfg.DBPath, err)
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(historyJSON(entries))
	}
	undoable := map[int64]bool{}
	reverted := map[int64]int64{}
	for i, en := range entries {
		ok, err := write.Undoable(ctx, deps.DB, en)
		if err != nil {
			return dbError(e, cfg, cfg.DBPath, err)
		}
		undoable[en.ID] = ok
		if en.Tool != "undo" {
			continue
		}
		// What an undo reverted, from the journal when the list is cut
		// before it: an undo is worded the same on every page.
		if reverted[en.ID] = write.RevertedBy(entries[i+1:], en); reverted[en.ID] == 0 {
			if reverted[en.ID], err = write.RevertedByIn(ctx, deps.DB, en); err != nil {
				return dbError(e, cfg, cfg.DBPath, err)
			}
		}
	}
	total, err := write.Count(ctx, deps.DB)
	if err != nil {
		return dbError(e, cfg, cfg.DBPath, err)
	}
	printHistory(e.stdout, historyPage{entries: entries, total: total, undoable: undoable, reverted: reverted}, cfg.DBPath, cfg.Invocation())
	return nil
}

// historyPage is the writes a history lists, newest first, with what it
// says of them: how many the journal holds in all, which can be undone
// now, and the write each undo among them reverted.
type historyPage struct {
	entries  []write.Entry
	total    int
	undoable map[int64]bool
	reverted map[int64]int64
}

// noJournal refuses to read the journal of a database that does not
// exist, rather than opening it, which would make an empty one (and its
// -wal and -shm files) at a mistyped path. history and undo both ask it.
func noJournal(cfg config.Config) error {
	if !noDatabase(cfg.DBPath) {
		return nil
	}
	check := "--db"
	switch cfg.DBSource {
	case "env " + config.EnvDB:
		check = config.EnvDB
	case "config file":
		check = "the database setting in the config file"
	}
	return fmt.Errorf("%s does not exist: there is no database there (check %s)", cfg.DBPath, check)
}

// journalBoundsText says what the journal keeps, from write.JournalBounds.
func journalBoundsText() string {
	b := write.JournalBounds
	return fmt.Sprintf("the last %s writes, %d MiB of the notes' previous contents and %d days",
		thousands(b.Writes), b.Bytes>>20, int(b.Age.Hours()/24))
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// printHistory lists entries, read from the database at dbPath, for a
// person: one line per write, its number right-aligned, then the files it
// changed (every one when it changed several; else the one when its
// summary does not already name it), then how to undo one with the
// user's flags (inv), offering only writes that undoable says can be
// undone now (write.Undoable). A write of one file is one line, saying
// the most of the two: "moved A.md to the vault's .trash". An undo says
// what it did as its own report did (write.UndoSaid), and a write a later
// undo reverted says so, with its latest state: "(undone by write 4)".
func printHistory(w io.Writer, page historyPage, dbPath string, inv health.Invocation) {
	entries, undoable := page.entries, page.undoable
	if len(entries) == 0 {
		fmt.Fprintf(w, "No writes yet in the journal of %s: the write tools and jarvis undo record each write they make there.\n", dbPath)
		return
	}
	width := 0
	for _, e := range entries {
		width = max(width, len(strconv.FormatInt(e.ID, 10)))
	}
	indent := strings.Repeat(" ", width+2)
	state := revertStates(entries)
	for i, e := range entries {
		summary, details := e.Summary, []string{}
		if e.Tool == "undo" {
			reverted, ok := page.reverted[e.ID]
			if !ok {
				reverted = write.RevertedBy(entries[i+1:], e)
			}
			summary = write.UndoSaid(e, reverted, "")
		}
		for _, f := range e.Files {
			plain, padded := fileChange(f)
			switch {
			case len(e.Files) == 1 && e.Tool == "undo":
				// UndoSaid named what it did to its one file.
			case len(e.Files) == 1:
				// The summary of a tool's write is write.Describe's
				// few words of it; the file's line says the most.
				summary = plain
			default:
				// A write of several files lists them all, the
				// note moved with the notes relinked.
				details = append(details, padded)
			}
		}
		if s, ok := state[e.ID]; ok {
			summary += " (" + s + ")"
		}
		fmt.Fprintf(w, "%*d  %s  %s in %q: %s\n", width, e.ID, e.At.Local().Format("2006-01-02 15:04"), e.Tool, e.Vault, summary)
		for _, d := range details {
			fmt.Fprintf(w, "%s%s\n", indent, d)
		}
	}
	listed := words.Count(len(entries), "write") + " listed."
	if page.total > len(entries) {
		listed = fmt.Sprintf("%d of the %s writes in the journal listed (--limit lists more).", len(entries), thousands(page.total))
	}
	if !undoable[entries[0].ID] {
		// Only a journal read as another write was made gets here.
		fmt.Fprintf(w, "\n%s\n", listed)
		return
	}
	if len(entries) == 1 {
		fmt.Fprintf(w, "\n%s Run %s to revert it.\n", listed, inv.Command("undo"))
		return
	}
	// The newest write made by a tool, not an undo, besides the last,
	// that can be undone now: the example most like the one wanted.
	var example int64
	// Nor the write the last one undid or redid: undoing it again is
	// what reverting the last does.
	last, redo, _, isUndo := write.Reverts(entries[0])
	// Reverting the last is, when it is itself an undo or a redo, doing
	// the write it reverted again, or undoing it again: said so.
	revert := "to revert the last"
	switch {
	case isUndo && redo:
		revert = fmt.Sprintf("to revert the last (it redid write %d, so this undoes write %d again)", last, last)
	case isUndo:
		revert = fmt.Sprintf("to revert the last (it undid write %d, so this makes write %d again)", last, last)
	}
	for _, e := range entries[1:] {
		if undoable[e.ID] && e.Tool != "undo" && e.ID != last {
			example = e.ID
			break
		}
	}
	if example == 0 {
		fmt.Fprintf(w, "\n%s Run %s %s.\n", listed, inv.Command("undo"), revert)
		return
	}
	fmt.Fprintf(w, "\n%s Run %s %s, or %s for write %d.\n",
		listed, inv.Command("undo"), revert, inv.Command("undo", strconv.FormatInt(example, 10)), example)
}

// revertStates says, of each write among entries (newest first) that an
// undo among them undid or redid, its state after the newest of them:
// "undone by write 4", "redone by write 3". An undo that a later undo
// reverted (write 4, undone by write 5 to redo write 3) is marked so too.
func revertStates(entries []write.Entry) map[int64]string {
	state := map[int64]string{}
	for i, u := range slices.Backward(entries) {
		if n, redo, _, ok := write.Reverts(u); ok {
			if t := write.RevertedBy(entries[i+1:], u); t != 0 && t != n {
				state[t] = fmt.Sprintf("undone by write %d", u.ID)
			}
			state[n] = fmt.Sprintf("undone by write %d", u.ID)
			if redo {
				state[n] = fmt.Sprintf("redone by write %d", u.ID)
			}
		}
	}
	return state
}

// fileChange says what a write did to one file: plain, and padded so that
// the paths of a write's files line up beneath it.
func fileChange(f write.EntryFile) (plain, padded string) {
	from, to := write.PathText(f.Path), write.PathText(f.PathAfter)
	verb, rest := "", from
	switch f.Change {
	case write.Created:
		verb = "created"
		if f.Path != f.PathAfter { // brought back by an undo
			verb, rest, _ = strings.Cut(write.Restored(f.PathAfter, f.Path), " ")
		}
	case write.Edited:
		verb = "edited"
	case write.Moved:
		verb, rest = "moved", from+" to "+to
	case write.Deleted:
		verb, rest, _ = strings.Cut(write.Trashed(f.Path, f.PathAfter), " ")
	default:
		verb = string(f.Change)
	}
	return verb + " " + rest, fmt.Sprintf("%-7s %s", verb, rest)
}
