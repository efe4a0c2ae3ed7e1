package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// applier is what undo needs of a vault's folder open for writing (the
// file layer, write.Vault): Read, a note's bytes and etag now (an error
// matching fs.ErrNotExist when there is none), and ApplyRecorded, which
// carries out a Change all or nothing, letting the journal record it
// before any file changes (write.ApplyJournalled).
type applier interface {
	Read(ctx context.Context, rel string) ([]byte, string, error)
	write.Recorder
}

// currentETag is the etag of the file at rel in files now, or that there
// is none, as write.UndoChange asks.
func currentETag(ctx context.Context, files applier) func(rel string) (string, bool, error) {
	return func(rel string) (string, bool, error) {
		_, etag, err := files.Read(ctx, rel)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return etag, err == nil, err
	}
}

// openApplier opens vault v's folder for writing.
type openApplier func(v config.Vault) (applier, error)

// openVaultFiles is the file layer undo writes through.
func openVaultFiles(v config.Vault) (applier, error) { return write.OpenVault(v.Path, v.Exclude) }

// undoOutput is the one JSON object `jarvis undo --json` prints.
type undoOutput struct {
	// Undone is the number of the write reverted.
	Undone int64 `json:"undone"`
	// Write is the number of the undo itself, in the journal: jarvis undo
	// with it redoes.
	Write   int64         `json:"write"`
	Vault   string        `json:"vault"`
	Summary string        `json:"summary"`
	Files   []historyFile `json:"files"`
}

func runUndo(ctx context.Context, e *env, args []string) error {
	return undo(ctx, e, args, openVaultFiles)
}

// undo is jarvis undo, writing through open.
func undo(ctx context.Context, e *env, args []string, open openApplier) error {
	fs := newFlagSet("undo", "jarvis undo [N]",
		`Revert the last write made to your notes through jarvis, or write N as
`+"`jarvis history`"+` numbers it: a created note goes to the vault's trash, an
edited note gets its previous text back, a deleted note comes back, and a
moved note moves back with the links the move changed. Nothing is written
when a note the write changed has changed since: undoing the write would
lose that change. An undo is a write too: undoing it redoes the write.

Exit status: 0 when the write was reverted, 1 when it could not be (the
message says why; nothing was changed), 2 for a usage or configuration
error.`, e)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object with what was reverted to stdout")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	var id int64
	switch len(pos) {
	case 0:
	case 1:
		n, err := strconv.ParseInt(pos[0], 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("undo takes the number of a write, as `jarvis history` lists it (got %q): %w", pos[0], errUsage)
		}
		id = n
	default:
		return fmt.Errorf("undo reverts one write at a time (got %s); see `jarvis undo --help`: %w", words.Quoted(pos), errUsage)
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := noJournal(cfg); err != nil {
		return err
	}
	inv := cfg.Invocation()
	var deps container.IndexDeps
	// The index refresh after the undo warns of what it skips (a link
	// out of the vault) as jarvis index would; undo says only errors,
	// unless --verbose asks for more.
	logger := c.logger(e)
	if !c.verbose {
		logger = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	app := container.NewIndexApp(cfg, logger, &deps, container.WithProbe(e.dbProbe))
	if err := container.Err(app); err != nil {
		return explainOpenError(e, cfg, err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer app.Stop(context.Background())
	db := deps.DB

	if id == 0 {
		last, err := write.History(ctx, db, 1)
		if err != nil {
			return dbError(e, cfg, cfg.DBPath, err)
		}
		if len(last) == 0 {
			return errors.New("nothing to undo: no write has been made through jarvis yet")
		}
		id = last[0].ID
	}
	entry, err := write.Lookup(ctx, db, id)
	if errors.Is(err, write.ErrNoWrite) {
		last, herr := write.History(ctx, db, 1)
		if herr != nil {
			return dbError(e, cfg, cfg.DBPath, herr)
		}
		if len(last) == 0 || id > last[0].ID {
			newest := "no write has been made through jarvis yet"
			if len(last) > 0 {
				newest = fmt.Sprintf("the newest is %d", last[0].ID)
			}
			return fmt.Errorf("there is no write %d: %s", id, newest)
		}
		return fmt.Errorf("there is no write %d to undo: the journal keeps %s; run %s to list them", id, journalBoundsText(), inv.Command("history"))
	}
	if err != nil {
		return dbError(e, cfg, cfg.DBPath, err)
	}
	v, err := undoVault(ctx, db, cfg, id, entry.Vault)
	if err != nil {
		return err
	}
	files, err := open(v)
	if err != nil {
		return fmt.Errorf("undo write %d: vault %q: %w", id, v.Name, err)
	}
	ch, err := write.UndoChange(ctx, db, id, currentETag(ctx, files))
	if err != nil {
		return undoRefused(ctx, db, inv, id, err)
	}
	_, undoID, err := write.ApplyJournalled(ctx, db, files, v.Name, ch)
	if err != nil {
		return undoRefused(ctx, db, inv, id, err)
	}
	progress := newProgressView(e, *asJSON, false)
	// The notes restored get their vectors too, as after any index run:
	// semantic search finds them, and doctor finds none missing.
	vectorsNote, refreshErr := refresh(ctx, []config.Vault{v}, deps.Indexer, deps.Vectors, progress, true, true)
	progress.Finish()
	redo := inv.Command("undo", strconv.FormatInt(undoID, 10))
	done, lookupErr := write.Lookup(ctx, db, undoID)
	// A plain undo now reverts this one; the one before the write
	// reverted is the next to offer.
	before := ""
	if n, _, _, ok := write.Reverts(done); lookupErr == nil && ok {
		if prev, err := write.WriteBefore(ctx, db, n); err == nil && prev != 0 {
			before = inv.Command("undo", strconv.FormatInt(prev, 10))
		}
	}
	if *asJSON {
		out := undoOutput{Undone: id, Write: undoID, Vault: v.Name, Summary: entry.Summary, Files: []historyFile{}}
		if lookupErr == nil {
			out.Files = historyJSON([]write.Entry{done}).Writes[0].Files
		}
		if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
			return err
		}
	} else if lookupErr == nil {
		fmt.Fprintln(e.stdout, write.UndoReport(done, id, inv.Command("undo"), before))
	} else {
		fmt.Fprintf(e.stdout, "Reverted write %d in %q. This undo is write %d: run %s to redo it.\n", id, v.Name, undoID, redo)
	}
	if refreshErr != nil {
		return fmt.Errorf("the notes were reverted, but the index could not be brought up to date: %w; run %s", dbError(e, cfg, cfg.DBPath, refreshErr), inv.Command("index"))
	}
	if vectorsNote != "" {
		fmt.Fprintf(e.stderr, "jarvis: the notes were reverted and indexed, but %s; run %s once the embedder answers\n", vectorsNote, inv.Command("index"))
	}
	return nil
}

// undoRefused is why write id could not be undone, with nothing changed:
// when a later write in the journal changed the note, which one to undo
// first (with the user's flags, inv).
func undoRefused(ctx context.Context, db write.JournalDB, inv health.Invocation, id int64, err error) error {
	var ce *write.ChangedError
	switch {
	case errors.As(err, &ce):
		if later, lerr := write.LaterWrites(ctx, db, id, ce.Path); lerr == nil && len(later) > 0 {
			if by := undoneBy(ctx, db, id, later); by != 0 {
				return fmt.Errorf("write %d is already undone, by write %d; %s; nothing was changed", id, by, makeAgain(ctx, db, inv, by, ce.Path))
			}
			standing, nerr := write.NetWrites(ctx, db, later)
			if nerr != nil {
				standing = later
			}
			if len(standing) > 0 {
				return fullStop{fmt.Errorf("cannot undo: %w; %s; nothing was changed", err, undoFirst(inv, later, standing))}
			}
		}
		// A change made outside jarvis: what would let the undo go ahead.
		again := inv.Command("undo", strconv.FormatInt(id, 10))
		switch {
		case ce.Gone:
			return fmt.Errorf("cannot undo: %w; nothing was changed. To undo it, put %s back where it was, then run %s", err, write.PathText(ce.Path), again)
		case ce.Back:
			return fmt.Errorf("cannot undo: %w; nothing was changed. To undo it, move the file now at %s out of the way, then run %s", err, write.PathText(ce.Path), again)
		}
		return fmt.Errorf("cannot undo: %w; nothing was changed", err)
	case errors.As(err, new(*write.JournalError)):
		return fmt.Errorf("cannot undo write %d: %w", id, err)
	case errors.Is(err, write.ErrStale), errors.Is(err, write.ErrExists):
		return fmt.Errorf("cannot undo write %d: a note it changed changed again as it was being undone (%w); nothing was changed", id, err)
	}
	return fmt.Errorf("cannot undo write %d: %w", id, err)
}

// makeAgain says how to make again a write undone by write by: undo by,
// after the writes since it that still stand and changed the file at path
// (as a refused undo of by would advise), so that the commands given work
// when pasted in order.
func makeAgain(ctx context.Context, db write.JournalDB, inv health.Invocation, by int64, path string) string {
	undo := func(n int64) string { return inv.Command("undo", strconv.FormatInt(n, 10)) }
	steps := []string{undo(by)}
	if since, err := write.LaterWrites(ctx, db, by, path); err == nil && len(since) > 0 {
		if standing, err := write.NetWrites(ctx, db, since); err == nil {
			steps = nil
			for i := len(standing) - 1; i >= 0; i-- {
				steps = append(steps, undo(standing[i]))
			}
			steps = append(steps, undo(by))
		}
	}
	if len(steps) == 1 {
		return "to make it again, run " + steps[0]
	}
	return "to make it again, run " + strings.Join(steps, ", then ")
}

// undoneBy is the write among later (oldest first) whose undo of write id
// still stands, or 0: undoing id again is then not a conflict to untangle
// but a thing already done. An undo's summary names the write it undid or
// redid (write.Reverts), so the newest such decides, whatever other
// writes came after it.
func undoneBy(ctx context.Context, db write.JournalDB, id int64, later []int64) int64 {
	by := int64(0)
	for _, n := range later {
		e, err := write.Lookup(ctx, db, n)
		if err != nil {
			return 0
		}
		if m, redo, _, ok := write.Reverts(e); ok && m == id {
			by = e.ID
			if redo {
				by = 0
			}
		}
	}
	return by
}

// fullStop is an error whose words end a paragraph the user reads, as the
// undo refusal that lists the commands to run does: it ends with a full
// stop, which Go's convention leaves out of an error's own words.
type fullStop struct{ err error }

func (f fullStop) Error() string { return f.err.Error() + "." }
func (f fullStop) Unwrap() error { return f.err }

// undoFirst says which writes (later, oldest first) changed a note since
// the write to undo, and the undos to run first, newest first, of those
// whose changes still stand (standing, write.NetWrites): each of a few, and then
// how far down the rest go.
func undoFirst(inv health.Invocation, later, standing []int64) string {
	undo := func(n int64) string { return inv.Command("undo", strconv.FormatInt(n, 10)) }
	newest := standing[len(standing)-1]
	if len(later) == 1 {
		return fmt.Sprintf("write %d changed it since: undo it first with %s", newest, undo(newest))
	}
	ids := make([]string, len(later))
	for i, n := range later {
		ids[i] = strconv.FormatInt(n, 10)
	}
	said := fmt.Sprintf("writes %s changed it since", words.List(ids))
	if len(standing) < len(later) {
		said += ", some undoing others"
	}
	if len(standing) == 1 {
		return fmt.Sprintf("%s: undo write %d first with %s, which takes back what they did", said, newest, undo(newest))
	}
	const most = 3
	var cmds []string
	for i := len(standing) - 1; i >= 0 && len(cmds) < most; i-- {
		cmds = append(cmds, undo(standing[i]))
	}
	steps := strings.Join(cmds, ", then ")
	if len(standing) > most {
		steps += fmt.Sprintf(", and so on down to %s", undo(standing[0]))
	}
	if len(standing) < len(later) {
		return fmt.Sprintf("%s: undo first, newest first: %s", said, steps)
	}
	return fmt.Sprintf("%s: undo them first, newest first: %s", said, steps)
}

// undoVault is the vault write id was made in, called name: the one the
// run's configuration gives when its folder can be read, otherwise the
// one the database holds by that name (its folder and exclude patterns as
// last indexed), so that the undo hints work with only the database that
// holds the journal, and a vault name given with --vault (which the
// configuration takes for a folder) still finds the vault.
func undoVault(ctx context.Context, db store.Conn, cfg config.Config, id int64, name string) (config.Vault, error) {
	given, configured := vaultNamed(cfg.Vaults, name)
	if configured && index.FolderProblem(given.Path) == "" {
		return given, nil
	}
	stored, ok, err := index.StoredVault(ctx, db, name)
	if err != nil {
		return config.Vault{}, fmt.Errorf("undo write %d: %w", id, err)
	}
	v := stored
	switch {
	case !ok && !configured:
		return config.Vault{}, fmt.Errorf("write %d was made in the vault %q, which neither this run nor the database knows; name its folder with --vault or in the config file: %w",
			id, name, errUsage)
	case !ok:
		v = given
	}
	if why := index.FolderProblem(v.Path); why != "" {
		return config.Vault{}, fmt.Errorf("cannot undo write %d: the folder of the vault %q, %s, %s; nothing was changed", id, name, v.Path, why)
	}
	return v, nil
}

// vaultNamed is the vault of vaults called name.
func vaultNamed(vaults []config.Vault, name string) (config.Vault, bool) {
	for _, v := range vaults {
		if v.Name == name {
			return v, true
		}
	}
	return config.Vault{}, false
}
