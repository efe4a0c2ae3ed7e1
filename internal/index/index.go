// Package index keeps the database in step with the vaults on disk: it scans
// each vault, parses the notes that changed, stores them with their links,
// tags and headings, and resolves every link.
package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Result is what one index run did to one vault. Its JSON shape is part of
// the `jarvis index --json` output and stays stable.
type Result struct {
	Name        string `json:"name"`
	Path        string `json:"path"`
	Notes       int    `json:"notes"`
	Attachments int    `json:"attachments"`
	Passages    int    `json:"passages"`
	Added       int    `json:"added"`
	Updated     int    `json:"updated"`
	Deleted     int    `json:"deleted"`
	// Excluded counts the notes removed from the index because the
	// vault's exclude patterns now leave them out; they are still on
	// disk, and not in Deleted. Left out of the JSON when 0.
	Excluded        int `json:"excluded,omitempty"`
	Unchanged       int `json:"unchanged"`
	Links           int `json:"links"`
	ResolvedLinks   int `json:"resolved_links"`
	UnresolvedLinks int `json:"unresolved_links"`
	// Warnings counts the files the vault has a problem with: those
	// indexed with one and those skipped (Problems tells them apart).
	Warnings int `json:"warnings"`
	// Problems counts the files with a problem as doctor's warnings check
	// counts them.
	Problems ProblemCounts `json:"-"`

	// Resumed counts the notes an earlier run read and stored but was
	// cut off before finishing (resolving links, writing search rows):
	// this run finished them without reading them again. Added, Updated,
	// Unchanged, Resumed and Retried together count every note on disk.
	// Left out of the JSON when 0, so that an ordinary run keeps its
	// shape.
	Resumed int `json:"resumed,omitempty"`
	// Retried counts the notes indexed before that this run read again,
	// as every run does, because the last read failed, and that still
	// could not be read: they are kept as last read. The run's progress
	// counts them among the notes it indexes. Left out of the JSON when 0.
	Retried int `json:"retried,omitempty"`

	// Attachments is what the run did to attachments. Added, Updated,
	// Deleted and Unchanged above count notes only, so that a vault of 173
	// notes reports 173 unchanged; attachment changes are told apart here
	// and shown in the human summary, not in the JSON.
	AttachmentChanges Changes `json:"-"`

	// Moved is set when the run indexed a vault for the first time whose
	// notes are those of a vault the database holds from a folder now
	// gone: most likely that vault, moved. The old index is kept.
	Moved *Move `json:"-"`
}

// Counts are what the index holds of the vault after the run, as
// list-vaults says them.
func (r Result) Counts() Counts {
	return Counts{Notes: r.Notes, Attachments: r.Attachments, Passages: r.Passages}
}

// Changes counts what an index run did to one kind of file.
type Changes struct {
	Added, Updated, Deleted, Excluded, Unchanged int
}

// change is what an index run did to one file.
type change int

const (
	added change = iota
	updated
	deleted
	unchanged
	// resumed is a note an interrupted run stored, finished by this one.
	resumed
	// retried is a note whose last read failed, read again and failing
	// again: kept as last read.
	retried
	// excluded is a file removed because the vault's exclude patterns now
	// leave it out (goneAs).
	excluded
)

// tally counts one file of the run: a note in the Result's own counters,
// an attachment in AttachmentChanges. Attachments are whole once their row
// is written and never read, so none is ever resumed or retried.
func (r *Result) tally(note bool, c change) {
	counts := [...]*int{&r.Added, &r.Updated, &r.Deleted, &r.Unchanged, &r.Resumed, &r.Retried, &r.Excluded}
	if !note {
		a := &r.AttachmentChanges
		counts = [...]*int{&a.Added, &a.Updated, &a.Deleted, &a.Unchanged, &a.Unchanged, &a.Unchanged, &a.Excluded}
	}
	*counts[c]++
}

// Phase is a stage of an index run, for a progress display.
type Phase string

// The phases of Index, in the order they run.
const (
	// PhaseScan lists the vault's files; how many there are is known
	// only at its end.
	PhaseScan Phase = "scan"
	// PhaseWrite reads, parses and writes the files that changed.
	PhaseWrite Phase = "write"
	// PhaseLinks resolves links against the files as they now are; it
	// is not counted.
	PhaseLinks Phase = "links"
	// PhaseLocked waits for another program that holds the database file
	// locked (a sqlite3 shell in a transaction), between the scan and the
	// first write; it is reported only when the file is locked, so that
	// the scan is timed apart from the wait.
	PhaseLocked Phase = "locked"
)

// writableWaiter is a database that can wait for other programs' locks
// on its file apart from a write (store.DB).
type writableWaiter interface {
	WaitWritable(ctx context.Context, onBusy func()) error
}

// Progress is told the phase under way and how much of it is done, notes
// and attachments apart: PhaseScan counts the files found, PhaseWrite the
// files the run writes (a new attachment is written, and counted done, as
// the phase begins). total is zero while it is not known. A phase is
// reported as it starts, so a display can say what is happening before the
// first count.
type Progress func(phase Phase, done, total Counts)

// report calls progress when there is one.
func (p Progress) report(phase Phase, done, total Counts) {
	if p != nil {
		p(phase, done, total)
	}
}

// Indexer writes vaults into the database.
type Indexer struct {
	db  store.Conn
	log *slog.Logger
	// parse turns a note's bytes into a Note; tests wrap it to count calls.
	parse func(ctx context.Context, path string, src []byte) (vault.Note, error)
	// scan is (*vault.Root).Scan; tests wrap it to make part of a vault
	// unreadable, which the root that runs them cannot do with
	// permissions.
	scan func(root *vault.Root, ctx context.Context) ([]vault.File, []vault.Warning, error)
	// readNote is (*vault.Root).ReadNote; tests wrap it to make a read
	// fail as a disk, or a change racing the run, makes it fail.
	readNote func(root *vault.Root, rel string) ([]byte, fs.FileInfo, string, error)
	// BatchSize is how many changed files go into one transaction: large
	// enough to amortise the commit, small enough that an interrupted run
	// loses little work.
	BatchSize int
	// Workers read and parse notes in parallel with the single writer.
	Workers int
	// InFlightBytes bounds, by their size on disk, the notes read and
	// not yet written: a batch is written once it holds half of it,
	// whatever BatchSize says, and workers wait for room before reading.
	InFlightBytes int64
	// Invocation is the flags of the command the indexer runs in: a
	// command a warning suggests repeats them.
	Invocation health.Invocation
	// OnMove, when set, is told of a vault a run finds moved (Move), in
	// place of the warning in the log.
	OnMove func(Move)
	// Lists, when set, is config.Config.Lists of the configuration the
	// indexer runs in: a vault it lists is never taken for one moved, and
	// dropping it is never offered.
	Lists func(name string) bool
	// ParseBytes bounds, by size on disk, the notes being parsed at once:
	// goldmark's tree of a note takes tens of times the note's size, so
	// notes near vault.MaxNoteSize are parsed one at a time.
	ParseBytes int64
}

// Defaults of Indexer.InFlightBytes and Indexer.ParseBytes.
const (
	defaultInFlightBytes = 4 * vault.MaxNoteSize
	defaultParseBytes    = vault.MaxNoteSize + vault.MaxNoteSize/2
)

// jobOverhead is what a job counts for beyond its file's size, so that
// many small notes count for something too.
const jobOverhead = 1 << 10

// weight is what job j counts for against a byte bound of limit: its
// size, capped at limit so that any job fits once the rest are gone.
func (j *job) weight(limit int64) int64 {
	return min(max(j.file.Size, 0)+jobOverhead, limit)
}

// New returns an Indexer writing into db.
func New(db store.Conn, parser *vault.Parser, log *slog.Logger) *Indexer {
	return &Indexer{db: db, parse: parser.Parse, scan: (*vault.Root).Scan, readNote: (*vault.Root).ReadNote, log: log,
		BatchSize: 500, Workers: runtime.GOMAXPROCS(0), InFlightBytes: defaultInFlightBytes, ParseBytes: defaultParseBytes}
}

// existing is what the database knows of a file.
type existing struct {
	id    int64
	path  string
	size  int64
	mtime int64
	// created is the birth time stored (vault.File.Created), 0 when
	// unknown; createdNow is the one this run's scan found.
	created, createdNow int64
	hash                string
	note                bool
	present             bool // seen on disk in this run
	// searchable is set when the note has its search row, which the pass
	// that ends a run writes; a note stored by a run cut off before it
	// has none.
	searchable bool
}

// job is one file that needs reading or writing.
type job struct {
	file vault.File
	old  *existing // nil for a new file
	id   int64     // the file's row, once it has one
	hash string
	note vault.Note
	// targets holds, for each link of note, the file it resolves to, or
	// NULL when it does not resolve against the file names of this scan.
	targets []sql.NullInt64
	warn    string // a problem that left the file indexed without its content
	// unreadable is set when the file could not be read; a note indexed
	// before keeps what was stored, and the file is tried again next run.
	unreadable bool
	touch      bool // content unchanged: only size and times are updated
}

// Index brings the database in step with one vault. It is safe to interrupt
// at any point: every transaction leaves the database consistent, and the
// next run finishes what this one did not.
func (ix *Indexer) Index(ctx context.Context, v config.Vault, progress Progress) (Result, error) {
	// Obsidian's excluded files are read at each run, so that a server
	// running for days follows the setting as a fresh run does, and the
	// two never remove and add each other's notes in turn.
	v = v.WithObsidianExclude()
	res := Result{Name: v.Name, Path: v.Path}
	// Another jarvis on the same database (one per MCP client) waits, and
	// plans its run from what this one wrote.
	unlock, err := ix.db.LockWriters(ctx)
	if err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	defer unlock()
	began := time.Now()
	progress.report(PhaseScan, Counts{}, Counts{})
	root, err := vault.OpenRoot(v.Path, v.Exclude)
	if err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	files, scanWarnings, err := ix.scan(root, ctx)
	if err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	var found Counts
	for _, f := range files {
		found.count(f.Note)
	}
	progress.report(PhaseScan, found, found)
	if res.Moved, err = ix.moved(ctx, v, files); err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	if w, ok := ix.db.(writableWaiter); ok {
		if err := w.WaitWritable(ctx, func() { progress.report(PhaseLocked, Counts{}, Counts{}) }); err != nil {
			return res, fmt.Errorf("index vault %q: %w", v.Name, err)
		}
	}
	vaultID, parsedWith, err := ix.ensureVault(ctx, v)
	if err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	known, err := ix.loadFiles(ctx, vaultID)
	if err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}

	// Notes read by another version of the parser are read again, changed
	// or not.
	if parsedWith != vault.ParserVersion {
		if err := ix.markReread(ctx, vaultID, known); err != nil {
			return res, fmt.Errorf("index vault %q: %w", v.Name, err)
		}
	}
	work, same, gone := plan(files, known, vault.UnreadIn(scanWarnings))
	for _, e := range same {
		res.tally(e.note, e.asFound())
	}

	w := &writer{ix: ix, vaultID: vaultID, res: &res}
	if err := w.recordCreated(ctx, same); err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	if err := w.replaceScanWarnings(ctx, scanWarnings); err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	if len(gone) > 0 {
		if err := w.deleteFiles(ctx, gone); err != nil {
			return res, fmt.Errorf("index vault %q: %w", v.Name, err)
		}
		for _, e := range gone {
			res.tally(e.note, e.goneAs(v.Exclude))
		}
		ix.log.Debug("removed files gone from disk", "vault", v.Name, "count", len(gone))
	}
	// New attachments are written whole as their rows are reserved: they
	// count as done from the start.
	var done, total Counts
	for _, j := range work {
		total.count(j.file.Note)
	}
	work, reserved, err := w.reserve(ctx, work)
	if err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	done.Attachments = total.Files() - len(work)
	scanned := time.Now()
	if total.Files() > 0 {
		// Reported before the file names are loaded, which takes a while
		// in a large vault and is part of writing.
		progress.report(PhaseWrite, done, total)
	}
	if len(work) > 0 {
		// Only notes being written need their links resolved as they go:
		// a run that finds nothing changed does not load every name.
		links, err := ix.linkResolver(ctx, vaultID, files, known, reserved)
		if err != nil {
			return res, fmt.Errorf("index vault %q: %w", v.Name, err)
		}
		if err := ix.process(ctx, root, work, w, links, done, total, progress); err != nil {
			return res, fmt.Errorf("index vault %q: %w", v.Name, err)
		}
	}
	if err := ix.keyTags(ctx, vaultID); err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	processed := time.Now()
	progress.report(PhaseLinks, Counts{}, Counts{})
	if err := ix.resolveIfPending(ctx, vaultID); err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	ix.log.Debug("index phases", "vault", v.Name, "files", len(files), "work", len(work),
		"scan", scanned.Sub(began), "parse_and_write", processed.Sub(scanned), "resolve", time.Since(processed))
	if err := ix.finish(ctx, vaultID, &res); err != nil {
		return res, fmt.Errorf("index vault %q: %w", v.Name, err)
	}
	return res, nil
}

// process reads, hashes and parses the changed files on several workers and
// writes them in batches from one goroutine, the only writer.
// done and total are what progress is told as the phase begins.
func (ix *Indexer) process(ctx context.Context, root *vault.Root, work []*job, w *writer, links *linkResolver, done, total Counts, progress Progress) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	workers := max(ix.Workers, 1)
	in := make(chan *job)
	// Room for a whole batch of parsed notes, so that parsing goes on
	// while the writer commits the previous batch; inFlight bounds the
	// bytes they hold.
	out := make(chan *job, max(4*workers, ix.BatchSize))
	inFlightLimit := max(ix.InFlightBytes, 2*jobOverhead)
	// A job weighs at most half the bound, and the writer writes a batch
	// that holds half: a worker waiting for room always gets it once the
	// jobs ahead of it reach the writer.
	inFlight := semaphore.NewWeighted(inFlightLimit)
	parseLimit := max(ix.ParseBytes, jobOverhead)
	parsing := semaphore.NewWeighted(parseLimit)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				if err := inFlight.Acquire(ctx, j.weight(inFlightLimit/2)); err != nil {
					return
				}
				if err := parsing.Acquire(ctx, j.weight(parseLimit)); err != nil {
					return
				}
				err := ix.prepare(ctx, root, j)
				parsing.Release(j.weight(parseLimit))
				if err != nil {
					// Cancelled mid-parse: the note is not written.
					return
				}
				links.resolve(j)
				select {
				case out <- j:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(in)
		for _, j := range work {
			select {
			case in <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()

	batch := make([]*job, 0, ix.BatchSize)
	var batchBytes int64
	var writing time.Duration
	defer func() { ix.log.Debug("writer busy", "vault", root.Dir(), "time", writing) }()
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		t0 := time.Now()
		err := w.writeBatch(ctx, batch)
		writing += time.Since(t0)
		if err != nil {
			return err
		}
		for _, j := range batch {
			done.count(j.file.Note)
			// The work list keeps every job to the end; what was parsed
			// need not stay with it.
			j.note, j.targets = vault.Note{}, nil
		}
		progress.report(PhaseWrite, done, total)
		inFlight.Release(batchBytes)
		batch, batchBytes = batch[:0], 0
		return nil
	}
	for j := range out {
		batch = append(batch, j)
		batchBytes += j.weight(inFlightLimit / 2)
		if len(batch) >= ix.BatchSize || batchBytes >= inFlightLimit/2 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return flush()
}

// prepare reads and parses one file. Attachments are never read. A note
// whose Markdown runs out of its parse budget is kept by name only, with
// the parser's warning, as one over vault.MaxNoteSize is. prepare fails
// only when ctx ends during the parse.
func (ix *Indexer) prepare(ctx context.Context, root *vault.Root, j *job) error {
	if !j.file.Note {
		return nil
	}
	data, _, warn, err := ix.readNote(root, j.file.Path)
	if err != nil {
		j.warn = vault.CannotRead + vault.ErrText(err)
		j.unreadable = true
		j.note = vault.Note{Title: vault.TitleFromPath(j.file.Path)}
		return nil
	}
	if warn != "" {
		j.warn = warn
		j.note = vault.Note{Title: vault.TitleFromPath(j.file.Path)}
		return nil
	}
	sum := sha256.Sum256(data)
	j.hash = hex.EncodeToString(sum[:])
	if j.old != nil && j.old.note && j.old.hash == j.hash {
		j.touch = true
		return nil
	}
	j.note, err = ix.parse(ctx, j.file.Path, data)
	if err != nil && !errors.Is(err, vault.ErrTooComplex) {
		return err
	}
	return nil
}

// plan compares the files on disk with those in the database: files that are
// new or whose size or modification time changed need work (as do the
// notes marked to be read again or reserved and never stored, whose
// modification time no file has), the rest are unchanged, and files no longer on disk
// are gone. A file the scan did not list because it, or a folder above it,
// could not be read (unread) is not gone: it stays as last read, among the
// unchanged. A note the scan found this process may not read is read
// again whatever its time and size (a chmod changes neither), so that the
// run says why it cannot be. Both the index run and doctor's freshness
// check plan with it.
func plan(files []vault.File, known map[string]*existing, unread vault.Unread) (work []*job, same, gone []*existing) {
	for _, f := range files {
		old, ok := known[f.Path]
		if !ok {
			work = append(work, &job{file: f})
			continue
		}
		old.present, old.createdNow = true, f.Created
		if old.note != f.Note || old.size != f.Size || old.mtime != f.ModTime || f.Unreadable {
			work = append(work, &job{file: f, old: old})
			continue
		}
		same = append(same, old)
	}
	for p, e := range known {
		switch {
		case e.present:
		case unread.Covers(p):
			same = append(same, e)
		default:
			gone = append(gone, e)
		}
	}
	return work, same, gone
}

// goneAs is how a file the index holds and the scan did not list counts
// (plan's gone): excluded when the vault's exclude patterns leave its path
// out (vault.LeftOut), as after a pattern is added, and deleted
// otherwise. The index run and doctor's freshness check both count with
// it.
func (e *existing) goneAs(exclude []string) change {
	if vault.LeftOut(e.path, exclude) {
		return excluded
	}
	return deleted
}

// ensureVault returns the id of the vault row, creating it or recording
// the path and rules it is given, and the parser version its notes were
// last read with. A new vault's is this version's: none of its notes was
// read by another. A vault the database holds under
// another folder or other rules is refused (checkBinding).
func (ix *Indexer) ensureVault(ctx context.Context, v config.Vault) (int64, string, error) {
	if err := CheckVaults(ctx, ix.db, []config.Vault{v}); err != nil {
		return 0, "", err
	}
	var id int64
	var parser string
	err := ix.db.QueryRowContext(ctx,
		`INSERT INTO vaults (name, path, exclude, parser) VALUES (?, ?, ?, ?)
		 ON CONFLICT (name) DO UPDATE SET path = excluded.path, exclude = excluded.exclude
		 RETURNING id, parser`, v.Name, v.Path, vault.RulesKey(v.Exclude), vault.ParserVersion).Scan(&id, &parser)
	if err != nil {
		return 0, "", fmt.Errorf("record vault: %w", err)
	}
	return id, parser, nil
}

// ErrVaultRebound means a vault name the database holds is given another
// folder, or exclude patterns that let in notes it was indexed without; a
// *BindingError says which.
var ErrVaultRebound = errors.New("the vault is indexed under another folder or other exclude patterns")

// BindingError is a vault given a folder or rules the database does not
// take for it.
type BindingError struct {
	Vault                   string
	StoredPath, StoredRules string // as recorded (rules as vault.RulesKey writes them, as written)
	Path, Rules             string // as given now
	// Invocation is the flags of the run that met it (config's
	// Config.Invocation): the command the message suggests repeats them,
	// so that it works on the same database and vaults.
	Invocation health.Invocation
}

func (e *BindingError) Error() string {
	if !vault.SameFolder(e.StoredPath, e.Path) {
		stored, given := e.StoredPath, e.Path
		if e.StoredRules != e.Rules {
			stored, given = stored+" with "+excludeWords(e.StoredRules), given+" with "+excludeWords(e.Rules)
		}
		return fmt.Sprintf("vault %q is indexed in this database from %s, but this run gives it %s: "+
			"a database holds a vault under one folder. If you moved the vault, run %s to index it afresh where it is now; "+
			"if another jarvis serves another folder under this name, give one of them another --db or another vault name",
			e.Vault, stored, given, e.Invocation.Forget(e.Vault))
	}
	return fmt.Sprintf("vault %q is indexed in this database from %s with %s, but this run gives it %s with %s, "+
		"which would let in notes those patterns keep out. If you removed exclude patterns on purpose, run %s "+
		"to index it afresh under the new ones; if another jarvis serves the same vault with other patterns, give both the same patterns, "+
		"or give one of them another --db or another vault name",
		e.Vault, e.StoredPath, excludeWords(e.StoredRules), e.Path, excludeWords(e.Rules), e.Invocation.Forget(e.Vault))
}

func (e *BindingError) Is(target error) bool { return target == ErrVaultRebound }

// excludeWords says a vault's exclude patterns (as vault.RulesKey writes
// them) for a sentence, as the user wrote them (vault.ExcludeWords).
// Rules that are not such a list are said as they are.
func excludeWords(rules string) string {
	var pats []string
	if rules != "" && json.Unmarshal([]byte(rules), &pats) != nil {
		return "exclude patterns " + rules
	}
	return vault.ExcludeWords(pats)
}

// ErrObsidianUnknown means a vault indexed with Obsidian's excluded files
// has a settings file whose filters cannot be taken now; an
// *ObsidianUnknownError says which and what to do.
var ErrObsidianUnknown = errors.New("obsidian's excluded files cannot be taken")

// ObsidianUnknownError is a vault indexed with Obsidian's excluded files
// whose settings file cannot be read or is not valid now: which files
// Obsidian excludes is unknown, and taking it as none would index the
// notes the user keeps out of Obsidian.
type ObsidianUnknownError struct {
	Vault string
	// Path is Obsidian's settings file in the vault.
	Path string
	// Unreadable is true when it cannot be read, false when it is not
	// valid.
	Unreadable bool
	// Stored is the vault's exclude patterns as recorded (vault.RulesKey).
	Stored string
}

func (e *ObsidianUnknownError) Error() string { return e.Why() + ": " + e.Fix() }

// Why is the refusal without its fix.
func (e *ObsidianUnknownError) Why() string {
	state := "is not valid"
	if e.Unreadable {
		state = "cannot be read"
	}
	return fmt.Sprintf("vault %q is indexed with %s, but %s %s now, so which files Obsidian excludes is unknown "+
		"and nothing is indexed or removed until it can be read", e.Vault, excludeWords(e.Stored), e.Path, state)
}

// Fix says what lets jarvis read the setting again: the command that lets
// this user read the file, or to correct it.
func (e *ObsidianUnknownError) Fix() string {
	if e.Unreadable {
		return "run " + ReadFix(e.Path)
	}
	return "correct the excluded files in Obsidian (Settings → Files and links → Excluded files), or " + e.Path
}

func (e *ObsidianUnknownError) Is(target error) bool { return target == ErrObsidianUnknown }

// CheckVaults refuses, with a *BindingError, a vault the database holds
// under another folder (vault.SameFolder), or under exclude patterns of
// the config the given ones do not all hold (vault.RulesCover). More
// patterns than stored are taken: the run records them and removes what
// they now keep out. So one process can never let in what another keeps
// out, and two processes given different patterns do not delete and add
// each other's notes in turn: the one with fewer is refused, and a
// pattern dropped by a typo in a config file costs no index. Obsidian's
// excluded files are not held to that: changing them in Obsidian is an
// everyday act, every run reads the one setting in the vault (Indexer.Index
// reads it again), and the index follows it, taking in what a removed
// filter lets back. A setting that cannot be read or is not valid is refused with an
// *ObsidianUnknownError when the vault was indexed with one: unknown
// is not none. A vault recorded before its rules were (exclude NULL)
// takes the rules it is given. `jarvis index` and `jarvis mcp` check
// before they start, every index run checks again, and doctor's
// freshness check reports what they would meet.
func CheckVaults(ctx context.Context, db store.Conn, vaults []config.Vault) error {
	for _, v := range vaults {
		if err := checkVault(ctx, db, v); err != nil {
			return err
		}
	}
	return nil
}

// checkVault is CheckVaults for one vault.
func checkVault(ctx context.Context, db store.Conn, v config.Vault) error {
	var path string
	var rules sql.NullString
	err := db.QueryRowContext(ctx, `SELECT path, exclude FROM vaults WHERE name = ?`, v.Name).Scan(&path, &rules)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("read vault %q: %w", v.Name, err)
	}
	key := vault.RulesKey(v.Exclude)
	given, _ := configRules(key)
	stored, obsidian := configRules(rules.String)
	if !vault.SameFolder(path, v.Path) || (rules.Valid && !vault.RulesCover(given, stored)) {
		recorded := rules.String
		if !rules.Valid {
			recorded = key
		}
		return &BindingError{Vault: v.Name, StoredPath: path, StoredRules: recorded, Path: v.Path, Rules: key}
	}
	if v.ObsidianUnknown != "" && obsidian {
		return &ObsidianUnknownError{Vault: v.Name, Path: v.ObsidianUnknown, Unreadable: v.ObsidianUnreadable, Stored: rules.String}
	}
	return nil
}

// configRules is the rules key (vault.RulesKey) without the filters of
// Obsidian's excluded files: the patterns a config file gives, which a run
// must hold all of; obsidian is whether the key held any such filter. A
// key that is not such a list is kept as it is.
func configRules(key string) (rules string, obsidian bool) {
	var pats []string
	if json.Unmarshal([]byte(key), &pats) != nil {
		return key, false
	}
	kept := slices.DeleteFunc(slices.Clone(pats), func(pat string) bool {
		_, ok := vault.ObsidianFilter(pat)
		return ok
	})
	if len(kept) == len(pats) {
		return key, false
	}
	return vault.RulesKey(kept), true
}

func (ix *Indexer) loadFiles(ctx context.Context, vaultID int64) (map[string]*existing, error) {
	return loadFiles(ctx, ix.db, vaultID)
}

func loadFiles(ctx context.Context, db store.Conn, vaultID int64) (map[string]*existing, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT id, path, kind, size, mtime_ns, coalesce(created_ns, 0), hash, EXISTS (SELECT 1 FROM search_notes n WHERE n.file_id = f.id)
		FROM files f WHERE vault_id = ?`, vaultID)
	if err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	defer rows.Close()
	known := map[string]*existing{}
	for rows.Next() {
		var e existing
		var p, kind string
		if err := rows.Scan(&e.id, &p, &kind, &e.size, &e.mtime, &e.created, &e.hash, &e.searchable); err != nil {
			return nil, fmt.Errorf("load files: %w", err)
		}
		e.note, e.path = kind == "note", p
		known[p] = &e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	return known, nil
}

// finish records the time of the run and reads what the vault now holds.
func (ix *Indexer) finish(ctx context.Context, vaultID int64, res *Result) error {
	if _, err := ix.db.ExecContext(ctx, `UPDATE vaults SET last_indexed_ms = ? WHERE id = ?`,
		time.Now().UnixMilli(), vaultID); err != nil {
		return fmt.Errorf("record index time: %w", err)
	}
	st, err := statsOf(ctx, ix.db, vaultID)
	if err != nil {
		return fmt.Errorf("count index: %w", err)
	}
	problems, err := readProblems(ctx, ix.db, res.Name)
	if err != nil {
		return fmt.Errorf("count index: %w", err)
	}
	res.Problems = problems.Counts()
	res.Warnings = res.Problems.Indexed + res.Problems.Skipped
	res.Notes, res.Attachments, res.Passages = st.Notes, st.Attachments, st.Passages
	res.Links, res.UnresolvedLinks = st.Links, st.UnresolvedLinks
	res.ResolvedLinks = res.Links - res.UnresolvedLinks
	return nil
}

// Clear removes everything indexed, for `jarvis index --rebuild`.
func (ix *Indexer) Clear(ctx context.Context) error {
	// Another jarvis's run must not plan from rows this deletes.
	unlock, err := ix.db.LockWriters(ctx)
	if err != nil {
		return fmt.Errorf("clear index: %w", err)
	}
	defer unlock()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("clear index: %w", err)
	}
	defer tx.Rollback()
	for _, table := range []string{"links", "external_links", "aliases", "tags", "headings", "blocks", "warnings", "files", "vaults", "anchors_pending"} {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+table); err != nil {
			return fmt.Errorf("clear index: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("clear index: %w", err)
	}
	return nil
}

// frontmatterJSON encodes frontmatter for the database, or NULL when empty.
func frontmatterJSON(fm map[string]any) sql.NullString {
	if len(fm) == 0 {
		return sql.NullString{}
	}
	b, err := json.Marshal(fm)
	if err != nil {
		return sql.NullString{}
	}
	return sql.NullString{String: string(b), Valid: true}
}
