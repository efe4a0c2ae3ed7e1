package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Checks are the index's contributions to doctor: for each vault of cfg,
// whether notes changed on disk since the last index run, and the problems
// indexing met in single notes; and the vaults the database holds besides.
// Fixes name jarvis commands through cfg's Invocation.
func Checks(h *store.Handle, cfg config.Config) []health.Check {
	vaults, inv := cfg.Vaults, cfg.Invocation()
	return []health.Check{
		{Name: "index freshness", Order: 40, Run: func(ctx context.Context) []health.Result {
			var out []health.Result
			for _, v := range vaults {
				out = append(out, freshness(ctx, h, v, inv))
			}
			return out
		}},
		{Name: "index warnings", Order: 41, Run: func(ctx context.Context) []health.Result {
			var out []health.Result
			for _, v := range vaults {
				out = append(out, warningsResult(ctx, h, v))
			}
			return out
		}},
		{Name: "other vaults", Order: 42, Run: func(ctx context.Context) []health.Result {
			return otherVaults(ctx, h, cfg)
		}},
	}
}

// otherVaults reports the vaults the database holds besides those of this
// run. One the config file lists (cfg.Lists), which --vault or JARVIS_VAULT
// left out of this run, is said to be so and not checked. One cfg does not
// list is another configuration's (each MCP client may run jarvis with its
// own), or one dropped from the config file, whose notes then linger:
// dropping it is offered. Nothing when there are none. When a vault given
// cannot be read (the vault check fails), the path was most likely
// mistyped: the vaults held are named with their folders, as perhaps the
// one meant, and dropping them is not offered.
func otherVaults(ctx context.Context, h *store.Handle, cfg config.Config) []health.Result {
	vaults, inv := cfg.Vaults, cfg.Invocation()
	db, err := h.DB(ctx)
	if err != nil {
		return nil // the database check says why
	}
	if why := db.SetUp(ctx); why != "" {
		return []health.Result{health.NotChecked("other vaults", why)}
	}
	cannot := func(err error) []health.Result {
		return []health.Result{store.Unreadable("other vaults", "cannot list the vaults in the database", err)}
	}
	missing := slices.ContainsFunc(vaults, func(v config.Vault) bool {
		why, _ := v.Unreadable()
		return why != ""
	})
	var moves map[string]Move
	var dups map[string]Duplicate
	if !missing {
		if moves, err = movesTo(ctx, db, cfg); err != nil {
			return cannot(err)
		}
		if dups, err = Duplicates(ctx, db, cfg); err != nil {
			return cannot(err)
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT v.name, v.path, count(f.id) FROM vaults v
		LEFT JOIN files f ON f.vault_id = v.id AND f.kind = 'note' GROUP BY v.id ORDER BY v.name`)
	if err != nil {
		return cannot(err)
	}
	defer rows.Close()
	var out []health.Result
	for rows.Next() {
		var name, path string
		var notes int
		if err := rows.Scan(&name, &path, &notes); err != nil {
			return cannot(err)
		}
		if slices.ContainsFunc(vaults, func(v config.Vault) bool { return v.Name == name }) {
			continue
		}
		if cfg.Lists(name) {
			out = append(out, health.Result{Name: "other vault " + name, Status: health.OK,
				Detail: fmt.Sprintf("the database also holds vault %q (%s), which %s lists; %s leaves it out of this run, so it is not checked here; doctor without %[4]s checks every vault the config file lists",
					name, words.Count(notes, "note"), cfg.FileOrigin(), cfg.VaultOrigin())})
			continue
		}
		if missing {
			out = append(out, health.Result{Name: "other vault " + name, Status: health.OK,
				Detail: fmt.Sprintf("the database also holds vault %q from %s (%s); perhaps it is the vault meant", name, path, words.Count(notes, "note"))})
			continue
		}
		forget := inv.Forget(name)
		if d, ok := dups[name]; ok {
			detail, fix := d.Warning(notes, forget)
			out = append(out, health.Result{Name: "other vault " + name, Status: health.Warn, Detail: detail, Fix: fix})
			continue
		}
		if m, ok := moves[name]; ok {
			out = append(out, health.Result{Name: "other vault " + name, Status: health.OK,
				Detail: fmt.Sprintf("the database also holds vault %q (%s), not configured here: %s; %s drops its old index", name, words.Count(notes, "note"), m.Seen(), forget),
				Fix:    fmt.Sprintf("%s drops the old index of the vault moved", forget)})
			continue
		}
		out = append(out, health.Result{Name: "other vault " + name, Status: health.OK,
			Detail: fmt.Sprintf("the database also holds vault %q (%s), not configured here: searches leave it out; if no other configuration uses it, %s drops it", name, words.Count(notes, "note"), forget),
			Fix:    fmt.Sprintf("if no other configuration uses it, %s drops it", forget)})
	}
	if err := rows.Err(); err != nil {
		return cannot(err)
	}
	return out
}

// movesTo are the vaults the database holds from a folder now gone, and
// cfg does not list, whose notes one of cfg's vaults holds: each a Move, by
// the name of the vault left behind.
func movesTo(ctx context.Context, db Querier, cfg config.Config) (map[string]Move, error) {
	vaults := cfg.Vaults
	gone, err := goneVaults(ctx, db, cfg.Lists)
	if err != nil || len(gone) == 0 {
		return nil, err
	}
	moves := map[string]Move{}
	for _, v := range vaults {
		if FolderProblem(v.Path) != "" {
			continue
		}
		g, ok, err := movedFrom(ctx, db, gone, sampleNotes(ctx, v.Path, v.Exclude))
		if err != nil {
			return nil, err
		}
		if _, seen := moves[g.name]; ok && !seen {
			moves[g.name] = Move{Vault: g.name, From: g.path, Name: v.Name, To: v.Path}
		}
	}
	return moves, nil
}

func freshness(ctx context.Context, h *store.Handle, v config.Vault, inv health.Invocation) health.Result {
	r := health.Result{Name: "index freshness " + v.Name}
	why, db, id, last, err := store.VaultReady(ctx, h, v)
	switch {
	case err != nil:
		r = store.Unreadable(r.Name, "cannot tell", err)
		return r
	case why == store.NotInIndex:
		r.Status, r.Detail, r.Fix = health.Warn, why, "run "+inv.Command("index")
		return h.FirstUnblock(r)
	case why != "":
		return health.NotChecked(r.Name, why)
	}
	if refused := refusal(ctx, db, v, inv); refused != nil {
		r.Status, r.Detail, r.Fix = health.Fail, refused.Detail, refused.Fix
		return r
	}
	files, scanWarnings, err := vault.Scan(ctx, v.Path, v.Exclude)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot scan the vault: "+err.Error(), "see the vault check above"
		return r
	}
	known, err := loadFiles(ctx, db, id)
	if err != nil {
		r = store.Unreadable(r.Name, "cannot tell", err)
		return r
	}
	work, same, gone := plan(files, known, vault.UnreadIn(scanWarnings))
	// A file that could not be read is planned again every run (so it is
	// read once it can be); running jarvis index does not fix it, and
	// the index warnings check says what does.
	unreadable, err := unreadablePaths(ctx, db, id)
	if err != nil {
		r = store.Unreadable(r.Name, "cannot tell", err)
		return r
	}
	work = slices.DeleteFunc(work, func(j *job) bool { return j.old != nil && unreadable[j.file.Path] })
	var parser string
	var pending bool
	// A database not migrated yet has no parser column; the schema check
	// says to run jarvis index already.
	if err := db.QueryRowContext(ctx, `SELECT parser, resolve_pending FROM vaults WHERE id = ?`, id).Scan(&parser, &pending); err != nil {
		parser = vault.ParserVersion
	}
	f := freshnessOf(work, same, gone, v.Exclude, last, pending)
	// What the index holds is said as list-vaults says it, from the same
	// counts.
	held, err := statsOf(ctx, db, id)
	if err != nil {
		r = store.Unreadable(r.Name, "cannot tell", err)
		return r
	}
	f.held = held.Counts
	return h.FirstUnblock(freshnessResult(r, f, parser, inv))
}

// refusal is what an index run or search of v would be refused with by
// CheckVaults, as doctor says it, with a fix that works when pasted; nil
// when v is not refused. An error reading the vault's row is left to the
// rest of the freshness check, which reads it again.
func refusal(ctx context.Context, db store.Conn, v config.Vault, inv health.Invocation) *health.Result {
	err := checkVault(ctx, db, v)
	var be *BindingError
	var ue *ObsidianUnknownError
	switch {
	case errors.As(err, &be):
		be.Invocation = inv
		fix := "run " + inv.Forget(v.Name) + " to index it afresh where it is now"
		if vault.SameFolder(be.StoredPath, be.Path) {
			fix = "give the vault the exclude patterns it is indexed with again, or run " + inv.Forget(v.Name) + " to index it afresh under the new ones"
		}
		return &health.Result{Detail: "index runs and searches are refused: " + be.Error(), Fix: fix}
	case errors.As(err, &ue):
		return &health.Result{Detail: "index runs and searches are refused: " + ue.Why(), Fix: ue.Fix()}
	}
	return nil
}

// fresh is what doctor's freshness check finds of a vault: what an index
// run would do now, and what a run cut off part way left behind.
type fresh struct {
	// added are files the index does not hold, or holds only as rows
	// reserved by a run cut off before it read them; changed are files
	// that differ from what is stored; reread are notes stored and
	// marked to be read again by a run cut off before it did.
	added, changed, reread, deleted, unchanged int
	// excluded are files the index holds that the vault's exclude
	// patterns now leave out (goneAs): not deleted, but removed by the
	// next run all the same.
	excluded int
	examples []string
	// held is what the index holds of the vault (Stats); left counts
	// the added and reread files by kind.
	held, left Counts
	// stored counts the notes a run cut off before its end read and
	// stored, unchanged since: the next run does not read them again.
	stored int
	// interrupted is set when an index run stopped before its end;
	// neverFinished when no run of the vault has finished.
	interrupted, neverFinished bool
	// last is when the last run to finish ended.
	last time.Time
}

// freshnessOf sums up the plan of the vault's files (work, same, gone, as
// plan returns them), given the vault's exclude patterns, the time the
// last run finished (lastMS) and the vault's resolve_pending flag.
func freshnessOf(work []*job, same, gone []*existing, exclude []string, lastMS sql.NullInt64, pending bool) fresh {
	f := fresh{unchanged: len(same), neverFinished: !lastMS.Valid}
	for _, e := range gone {
		if e.goneAs(exclude) == excluded {
			f.excluded++
		} else {
			f.deleted++
		}
		f.examples = append(f.examples, e.path)
	}
	if lastMS.Valid {
		f.last = time.UnixMilli(lastMS.Int64)
	}
	for _, j := range work {
		switch {
		case j.old.asWritten() == added:
			f.added++
			f.left.count(j.file.Note)
		case j.old.mtime == mtimeReread:
			f.reread++
			f.left.count(j.file.Note)
		default:
			f.changed++
		}
		f.examples = append(f.examples, j.file.Path)
	}
	// The first three by path: the same files named at every look,
	// whatever order the plan listed them in.
	slices.Sort(f.examples)
	f.examples = slices.Clip(f.examples[:min(len(f.examples), 3)])
	for _, e := range same {
		if e.asFound() == resumed {
			f.stored++
		}
	}
	// resolve_pending is set with every change a run stores and cleared
	// at its end, so a vault with it set has a run that stopped part way
	// (or is under way); so has one that no run has finished, whether or
	// not it stored anything.
	f.interrupted = pending || f.stored > 0 || f.neverFinished
	return f
}

// freshnessResult words f as the freshness result r; parser is the parser
// version the vault's notes were read with.
func freshnessResult(r health.Result, f fresh, parser string, inv health.Invocation) health.Result {
	if f.interrupted {
		// It may also be running now, in another jarvis.
		head := "the first index run has not finished"
		if !f.neverFinished {
			head = "the last index run has not finished (the last complete run ended " + ago(f.last) + ")"
		}
		// What is stored is said as list-vaults says it.
		done := []string{"the index holds " + f.held.Words() + " so far"}
		if f.left.Files() > 0 {
			done = append(done, f.left.List()+" "+words.Agree(f.left.Files(), "is", "are")+" still to index")
		}
		var since []string
		if f.changed > 0 {
			since = append(since, words.Count(f.changed, "file")+" changed")
		}
		if f.deleted > 0 {
			since = append(since, words.Count(f.deleted, "file")+" deleted")
		}
		if f.excluded > 0 {
			since = append(since, words.Count(f.excluded, "file")+" now excluded")
		}
		if len(since) > 0 {
			done = append(done, words.List(since)+" since it began")
		}
		done = append(done, "links are still to resolve")
		r.Status = health.Warn
		r.Detail = head + ": " + strings.Join(done, "; ")
		r.Fix = "run " + inv.Command("index") + ": it finishes the work and does not read the stored notes again"
		return r
	}
	// f.last is recorded only by a run that finished: a run that failed
	// since (a full disk, a lock) leaves it, and the line names the run it
	// is of rather than "the last index", which the failed run was.
	since := "since the last complete index run (" + ago(f.last) + ")" // a vault no run has finished is interrupted
	changed := f.changed + f.reread
	if f.added+changed+f.deleted+f.excluded == 0 {
		// What is indexed is said as list-vaults says it.
		none := words.Agree(f.held.Files(), "unchanged", "none changed")
		if parser != vault.ParserVersion {
			r.Status = health.Warn
			r.Detail = fmt.Sprintf("%s indexed, %s %s, but read by an earlier version of jarvis", f.held.Words(), none, since)
			r.Fix = "run " + inv.Command("index") + ": it reads every note again"
			return r
		}
		r.Status = health.OK
		r.Detail = fmt.Sprintf("%s indexed, %s %s", f.held.Words(), none, since)
		return r
	}
	r.Status = health.Warn
	var what []string
	for _, k := range []struct {
		n         int
		one, many string
	}{
		{f.added, "new file", "new files"}, {changed, "changed file", "changed files"},
		{f.deleted, "deleted file", "deleted files"}, {f.excluded, "file now excluded", "files now excluded"},
	} {
		if k.n > 0 {
			what = append(what, words.CountAs(k.n, k.one, k.many))
		}
	}
	r.Detail = fmt.Sprintf("%s: %s", since, words.List(what))
	switch total := f.added + changed + f.deleted + f.excluded; {
	case len(f.examples) == 0:
	case len(f.examples) >= total:
		r.Detail += " (" + strings.Join(f.examples, ", ") + ")"
	default:
		r.Detail += ", such as " + strings.Join(f.examples, ", ")
	}
	r.Fix = "run " + inv.Command("index")
	return r
}

// ago words a past time for the freshness check.
func ago(t time.Time) string {
	return time.Since(t).Round(time.Second).String() + " ago"
}

// unreadablePaths are the files of vault id whose last read failed.
func unreadablePaths(ctx context.Context, db store.Conn, id int64) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT path FROM warnings WHERE vault_id = ? AND message LIKE ? || '%'`, id, vault.CannotRead)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out[p] = true
	}
	return out, rows.Err()
}

// ReadFix is the command that lets the user jarvis runs read the file or
// folder at p: a file needs read permission, a folder read to be listed and
// execute to be entered. A path that cannot even be looked at lies in a
// folder that cannot be entered, and that folder is the one to open up.
func ReadFix(p string) string {
	info, err := os.Lstat(p)
	dir := err == nil && info.IsDir()
	if errors.Is(err, fs.ErrPermission) {
		p, dir = filepath.Dir(p), true
	}
	if fa, err := store.ProbeFile(p); err == nil {
		if owner := store.OwnedByOther(fa); owner != "" {
			// Only its owner may change its mode.
			return fmt.Sprintf("`sudo chown $USER %s` (it belongs to %s)", health.Quote(p), owner)
		}
	}
	perm := "r"
	if dir {
		perm = "rx"
	}
	return fmt.Sprintf("`chmod u+%s %s`", perm, health.Quote(p))
}

func warningsResult(ctx context.Context, h *store.Handle, v config.Vault) health.Result {
	r := health.Result{Name: "index warnings " + v.Name}
	why, db, err := store.VaultIndexed(ctx, h, v)
	switch {
	case err != nil:
		r = store.Unreadable(r.Name, "cannot tell", err)
		return r
	case why != "":
		return health.NotChecked(r.Name, why)
	}
	problems, err := readProblems(ctx, db, v.Name)
	if err != nil {
		r = store.Unreadable(r.Name, "cannot tell", err)
		return r
	}
	if len(problems) == 0 {
		r.Status, r.Detail = health.OK, "every file indexed without a problem"
		return r
	}
	// Counted as the index summary counts them, then each kind with the
	// files that have it.
	r.Status = health.Warn
	r.Detail = problems.Counts().Words() + ": " + problems.Words()
	var fixes []string
	if ps := problems.Paths(Unreadable); len(ps) > 0 {
		// Only the user's access fixes these; jarvis cannot.
		fixes = append(fixes, fmt.Sprintf("make %s readable by you, the user jarvis runs as, such as with %s",
			words.Agree(len(ps), "the path that cannot be read", "the paths that cannot be read"),
			ReadFix(filepath.Join(v.Path, filepath.FromSlash(ps[0])))))
	}
	// A problem in a note is the note's, and it is indexed anyway; but
	// what the problem hides (frontmatter not read, so no tags or
	// properties) is missing from searches until it is fixed.
	if n := len(problems.Paths(BadFrontmatter)); n > 0 {
		fixes = append(fixes, words.Agree(n, "open the note named and correct its frontmatter", "open the notes named and correct their frontmatter"))
	}
	if n := len(problems.Paths(NotUTF8)); n > 0 {
		fixes = append(fixes, words.Agree(n, "save the note that is not UTF-8 again as UTF-8, as its warning says", "save the notes that are not UTF-8 again as UTF-8, as their warnings say"))
	}
	if slices.ContainsFunc(problems, func(p Problem) bool { return p.Kind == Skipped && strings.Contains(p.Message, "symbolic link") }) {
		fixes = append(fixes, "a skipped symbolic link is indexed once it points to a file inside the vault that is not left out")
	}
	if len(fixes) == 0 {
		fixes = append(fixes, "see what each problem says of the file named")
	}
	var files []string
	for _, p := range problems {
		if !slices.Contains(files, p.Path) {
			files = append(files, p.Path)
		}
	}
	r.Fix = strings.Join(fixes, "; ") + "; the next index run reads " + words.Agree(len(files), "it", "them") + " again"
	return r
}
