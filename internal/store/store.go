// Package store opens the jarvis SQLite database and brings its schema up to
// date. It owns the connection settings and the migration table; the tables
// themselves belong to the packages that query them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/words"
	"github.com/jarvis-mcp/jarvis/migrations"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors callers branch on.
var (
	// ErrNewerSchema means the database was written by a newer jarvis.
	ErrNewerSchema = errors.New("database was created by a newer version of jarvis")
	// ErrNotDatabase means the file exists but SQLite cannot read it as a
	// database, or it fails validation. The file is left untouched.
	ErrNotDatabase = errors.New("file is not a usable jarvis database")
	// ErrNotJarvis means the path names something jarvis did not make: a
	// folder, a file that is not SQLite's, another program's SQLite
	// database. It is never damage: --rebuild would put an index in its
	// place.
	ErrNotJarvis = errors.New("not a jarvis index")
)

// foreignError is a path that names something other than a jarvis index;
// what says what it is instead, dir that it is a folder.
type foreignError struct {
	path, what string
	dir        bool
}

func (e *foreignError) Error() string {
	return fmt.Sprintf("database %s: %s: %s", e.path, ErrNotJarvis, e.what)
}

func (e *foreignError) Is(target error) bool { return target == ErrNotJarvis }

// notJarvisIfFolder is the error for a database path that names a folder,
// nil for anything else.
func notJarvisIfFolder(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return &foreignError{path: path, what: "it is a folder", dir: true}
	}
	return nil
}

// DB is an open jarvis database. It follows its path: when the file there
// is replaced (a rebuild in another process renames a fresh index into
// place), connections to the old file are closed as they come back to the
// pool and new ones open the new file; when the file is deleted, it goes
// on reading the deleted file and says so (Recheck) until the next writer
// makes a new one (see follow). Services keep the same *DB throughout.
type DB struct {
	*sql.DB
	// Path is the database file.
	Path string
	// OnWait, when set, is called once each time LockWriters finds the
	// lock held and starts waiting: a command can tell its user why it
	// pauses.
	OnWait func()

	// opts are the options it was opened with.
	opts Options
	// immutable is set when a read-only open told SQLite that nothing
	// changes the file (see openReadOnly); stamp is the file as it was then.
	immutable bool
	stamp     fileStamp
	// notWritable is why a database asked for writing was opened
	// read-only (Options.ReadOnlyIfNeeded); nil otherwise.
	notWritable error

	// gen counts the files opened at Path; a connection to an older one is
	// not used again (fileConn). Nil for a read-only database, which
	// follows nothing: doctor looks once.
	gen *atomic.Uint64
	// following keeps follow calls apart.
	following sync.Mutex
	mu        sync.Mutex
	// file is the file open now, as it was when opened; checked is when
	// follow last compared it with what Path names.
	file    os.FileInfo
	checked time.Time
	// away says why Path does not name the open file ("" when it does).
	away string
	// onChange is told when the file was replaced or deleted.
	onChange func(reopened bool)
}

// Options change how Open treats the database.
type Options struct {
	// ReadOnly opens an existing database as it is: no migration, no
	// write, and no file created beside it (-wal, -shm, -journal). doctor
	// uses it so that looking never changes anything.
	ReadOnly bool
	// ReadOnlyIfNeeded opens the database read-only, as ReadOnly does,
	// when this user may read it but not write it, rather than fail: a
	// search reads the index as it is. DB.NotWritable says why.
	ReadOnlyIfNeeded bool
	// rolledBack is set once openReadOnly has rolled back a hot journal,
	// so that it tries so once.
	rolledBack bool
	// Probe tells what this process may do with the database's files, to
	// tell a permission problem from a damaged database; nil asks the
	// system.
	Probe Probe
}

// dsn builds the connection string. Every pragma runs on every new pooled
// connection, so each one holds for all of them.
// fileURI is path as an SQLite URI filename. '?' and '#' would end the
// path and '%' start an escape, so each is escaped: a database under
// "my#notes/" must not open "my".
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}

func dsn(path string) string {
	q := url.Values{}
	// WAL lets the MCP server keep answering reads while an index run writes.
	q.Add("_pragma", "journal_mode(WAL)")
	// Links, headings and tags are deleted with their note through ON DELETE
	// CASCADE, which SQLite only honours with foreign keys switched on.
	q.Add("_pragma", "foreign_keys(1)")
	// A second jarvis process (an index run beside a running server) waits
	// for the write lock for up to 10 s instead of failing at once.
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(busyTimeout)+")")
	// In WAL mode NORMAL loses at most the last transactions on power loss
	// and never corrupts the database; FULL would fsync every commit.
	q.Add("_pragma", "synchronous(NORMAL)")
	// Temporary tables and statement journals (FTS5 writes many) stay in
	// memory instead of temp files.
	q.Add("_pragma", "temp_store(MEMORY)")
	// A 4 MB page cache per connection (the default is 2 MB). The server
	// holds a connection per request under way, up to about twenty under
	// load: at 16 MB each the caches alone took 250 MB of a 10k-note
	// server's memory. Index runs and graph walks measured within noise of
	// the 16 MB cache, the operating system's file cache doing the rest.
	q.Add("_pragma", "cache_size(-4096)")
	// Connections keep the -wal file when they close (persistWAL); this
	// empties it then, and after a checkpoint keeps at most 64 MB of it on
	// disk, where a large index run would leave gigabytes.
	q.Add("_pragma", "journal_size_limit(67108864)")
	// No memory map: every connection mapped up to 64 MB of the file, and
	// each map counts as resident memory of its own (about 290 MB under
	// load), for reads about 5% faster.
	q.Add("_pragma", "mmap_size(0)")
	// Write transactions take the write lock when they begin, so two
	// writers never deadlock upgrading a read lock.
	q.Set("_txlock", "immediate")
	return fileURI(path) + "?" + q.Encode()
}

// Open opens the database at path, creating it and its folder when missing,
// and applies pending migrations. A file that is not a readable database is
// reported with ErrNotDatabase and never modified; files this user may not
// read or write are reported with ErrAccess, before SQLite opens anything
// for writing: a write that fails leaves -wal and -shm files behind, made
// with the database's read-only mode, which a fix of the file alone would
// not cover.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("no database path given")
	}
	if opts.ReadOnly {
		return openReadOnly(ctx, path, opts)
	}
	if problems := AccessProblems(path, opts.Probe); len(problems) > 0 {
		why := accessError(path, problems)
		if !opts.ReadOnlyIfNeeded || !readable(path, problems) || !exists(path) {
			return nil, why
		}
		db, err := openReadOnly(ctx, path, opts)
		if err != nil {
			return nil, err
		}
		db.notWritable = why
		return db, nil
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return nil, notJarvisIfFolder(path)
		}
		if err := checkHeader(path, st.Size()); err != nil {
			return nil, explainAccess(path, opts, err)
		}
		if err := checkReadOnly(ctx, path); err != nil {
			return nil, explainAccess(path, opts, err)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, explainAccess(path, opts, fmt.Errorf("create database folder: %w", err))
		}
	} else {
		return nil, explainAccess(path, opts, fmt.Errorf("database %s: %w", path, err))
	}

	db := &DB{Path: path, opts: opts, gen: new(atomic.Uint64)}
	sqldb, err := openPool(dsn(path), db)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.DB = sqldb
	if err := db.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, explainAccess(path, opts, sqliteError(path, err))
	}
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, explainAccess(path, opts, err)
	}
	// The file as SQLite opened it: stat after the open, so that a file
	// put in place meanwhile is the one remembered, then found replaced
	// and opened by the next check.
	file, err := os.Stat(path)
	if err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	db.remember(file)
	return db, nil
}

// openReadOnly opens an existing database for reading without creating
// anything beside it. SQLite in WAL mode makes -wal and -shm files even for
// a read-only connection, unless told the file is immutable; that is safe
// only while no -wal (or hot -journal) holds committed pages the main file
// lacks. So: immutable when there is none; otherwise an ordinary read-only
// connection, which uses the files that are already there.
func openReadOnly(ctx context.Context, path string, opts Options) (*DB, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("database %s: %w", path, fs.ErrNotExist)
	case err != nil:
		return nil, explainAccess(path, opts, fmt.Errorf("database %s: %w", path, err))
	case st.IsDir():
		return nil, notJarvisIfFolder(path)
	}
	if err := checkHeader(path, st.Size()); err != nil {
		return nil, explainAccess(path, opts, err)
	}
	immutable := !nonEmpty(beside(path, "-wal")) && !nonEmpty(beside(path, "-journal"))
	q := url.Values{}
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	// A writer holding the lock makes a reader wait, as in dsn.
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(busyTimeout)+")")
	// Belt and braces: even a statement that would write is refused.
	q.Add("_pragma", "query_only(1)")
	sqldb, err := sql.Open("sqlite", fileURI(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db := &DB{DB: sqldb, Path: path, opts: opts, immutable: immutable, stamp: stampOf(path)}
	pingErr := db.PingContext(ctx)
	err = pingErr
	if err == nil {
		var current int
		current, _, err = db.Version(ctx)
		if err == nil && current == 0 {
			// As Open refuses to migrate it (see checkForeignTables).
			err = db.checkForeignTables(ctx)
		}
	}
	if code, ok := sqliteCode(err); ok && code == sqlite3.SQLITE_READONLY_ROLLBACK && !opts.rolledBack &&
		len(AccessProblems(path, opts.Probe)) == 0 {
		// A hot journal, left by a process that died mid-write: this
		// user may write, so it is rolled back (checkReadOnly) and the
		// database, as it was before that write, is opened again.
		sqldb.Close()
		if rerr := rollBack(ctx, path); rerr != nil {
			return nil, explainAccess(path, opts, sqliteError(path, rerr))
		}
		opts.rolledBack = true
		return openReadOnly(ctx, path, opts)
	}
	if err != nil {
		sqldb.Close()
		if pingErr != nil {
			err = sqliteError(path, err)
		}
		return nil, explainAccess(path, opts, err)
	}
	return db, nil
}

// NotWritable is why a database asked for writing was opened read-only,
// this user being allowed to read it only (Options.ReadOnlyIfNeeded): an
// *Error of KindAccess. Nil when it was opened for writing, or asked for
// reading.
func (db *DB) NotWritable() error { return db.notWritable }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// nonEmpty reports whether path exists and holds something.
func nonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}

// fileStamp is what tells that a file was changed.
type fileStamp struct {
	size    int64
	modTime time.Time
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{st.Size(), st.ModTime()}
}

// ChangedSinceOpen reports whether another process may have written to a
// database opened immutable since it was opened: then what was read may
// mix old and new pages, and a damage found is not to be believed.
func (db *DB) ChangedSinceOpen() bool {
	if !db.immutable {
		return false
	}
	return stampOf(db.Path) != db.stamp || nonEmpty(beside(db.Path, "-wal")) || nonEmpty(beside(db.Path, "-journal"))
}

// sqliteError names what SQLite said about the file at path, as Classify
// reads it: a file or folder that cannot be opened or written is
// fs.ErrPermission, for explainAccess to look at; a lock held too long or
// a full disk is what it is; anything else means the file is not a usable
// database (ErrNotDatabase). The SQLite error stays in the chain.
func sqliteError(path string, err error) error {
	switch Classify(err) {
	case KindAccess:
		return fmt.Errorf("database %s: %w: %w", path, fs.ErrPermission, err)
	case KindBusy, KindDiskFull, KindNewer:
		return fmt.Errorf("database %s: %w", path, err)
	}
	return fmt.Errorf("database %s: %w: %w", path, ErrNotDatabase, err)
}

// permissionOr marks an SQLite error that comes from a file or folder that
// cannot be opened or written with fs.ErrPermission, and leaves any other
// as it is.
func permissionOr(err error) error {
	if e := sqliteError("", err); errors.Is(e, fs.ErrPermission) {
		return fmt.Errorf("%w: %w", fs.ErrPermission, err)
	}
	return err
}

// explainAccess turns a permission error into ErrAccess, with what is wrong
// and how to fix it, when looking at the database's files finds the
// problem. A permission problem is never reported as a damaged database:
// --rebuild would move a sound index aside.
func explainAccess(path string, opts Options, err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	if problems := AccessProblems(path, opts.Probe); len(problems) > 0 {
		return accessError(path, problems)
	}
	return err
}

// checkHeader refuses a non-empty file that does not start with the SQLite
// magic string, before SQLite gets a chance to touch it. Such a file is a
// damaged jarvis index when its start is all zero bytes (a header wiped
// by a crash of the disk) or jarvis's writer lock lies beside it (jarvis
// wrote there), and someone else's file otherwise (ErrNotJarvis).
func checkHeader(path string, size int64) error {
	if size == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("database %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	if n == 16 && string(head) == "SQLite format 3\x00" {
		return nil
	}
	if zeros(head[:n]) || exists(lockPath(path)) {
		return fmt.Errorf("database %s: %w: it does not start with the SQLite header", path, ErrNotDatabase)
	}
	return &foreignError{path: path, what: "it is not an SQLite file at all"}
}

func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return len(b) > 0
}

// foreignTables is the error for a database that holds n tables jarvis
// did not create, and no record of jarvis's migrations.
func foreignTables(path string, n int) error {
	return &foreignError{path: path, what: fmt.Sprintf("it is another program's SQLite database (it holds %s that jarvis did not create)",
		words.Count(n, "table"))}
}

// checkReadOnly looks into an existing file through a read-only connection
// before any pragma can write to it (switching to WAL rewrites the header): it
// must be readable by SQLite, and if it holds tables, they must be jarvis's.
func checkReadOnly(ctx context.Context, path string) error {
	err := lookReadOnly(ctx, path)
	if code, ok := sqliteCode(err); ok && code == sqlite3.SQLITE_READONLY_ROLLBACK {
		// A hot journal: a process died inside a write made in
		// rollback-journal mode (switching a new file to WAL is one).
		// A read-only connection cannot roll it back; any writer does,
		// and this user may write (Open checked), so one does here,
		// changing nothing else, and the look is taken again.
		if rerr := rollBack(ctx, path); rerr != nil {
			return sqliteError(path, rerr)
		}
		err = lookReadOnly(ctx, path)
	}
	return err
}

// rollBack rolls back the hot journal of the database at path by reading
// it through a connection that may write: SQLite does that before the
// first read. No pragma is set, so nothing else in the file changes.
func rollBack(ctx context.Context, path string) error {
	rw, err := sql.Open("sqlite", fileURI(path)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer rw.Close()
	var n int
	return rw.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n)
}

// lookReadOnly is checkReadOnly's look at the file, through a read-only
// connection.
func lookReadOnly(ctx context.Context, path string) error {
	ro, err := sql.Open("sqlite", fileURI(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return sqliteError(path, err)
	}
	defer ro.Close()
	var tables, ours int
	err = ro.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE name NOT LIKE 'sqlite_%'),
		count(*) FILTER (WHERE name = 'schema_migrations')
		FROM sqlite_master WHERE type = 'table'`).Scan(&tables, &ours)
	if err != nil {
		// Not every failure here is damage: a folder this user cannot
		// write (SQLite's read-only directory error) is a permission.
		return sqliteError(path, err)
	}
	if tables > 0 && ours == 0 {
		return foreignTables(path, tables)
	}
	return nil
}

// migration is one embedded SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded files in version order.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must start with a positive number and '_'", name)
		}
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(name, ".sql"), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := range out {
		if out[i].version != i+1 {
			return nil, fmt.Errorf("migration %q: expected version %d", out[i].name, i+1)
		}
	}
	return out, nil
}

// LatestVersion is the schema version this build of jarvis writes.
func LatestVersion() int {
	ms, err := loadMigrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

const createMigrationTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL
)`

// Version reports the schema version of the database and the latest one this
// build knows. A database without the migration table is at version 0.
func (db *DB) Version(ctx context.Context) (current, latest int, err error) {
	latest = LatestVersion()
	var n int
	err = db.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n)
	if err != nil {
		return 0, latest, sqliteError(db.Path, err)
	}
	if n == 0 {
		return 0, latest, nil
	}
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return 0, latest, sqliteError(db.Path, err)
	}
	return current, latest, nil
}

// migrate applies every migration newer than the database, each in its own
// transaction together with its row in schema_migrations.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	current, latest, err := db.Version(ctx)
	if err != nil {
		return err
	}
	if current > latest {
		return fmt.Errorf("database %s is at schema version %d but this jarvis knows only up to %d: %w; upgrade jarvis or use another --db",
			db.Path, current, latest, ErrNewerSchema)
	}
	if current == 0 {
		if err := db.checkForeignTables(ctx); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, createMigrationTable); err != nil {
		return sqliteError(db.Path, err)
	}
	for _, m := range ms[current:] {
		if err := db.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// checkForeignTables refuses to migrate a database that holds tables but no
// migration record: it belongs to something else, and writing into it could
// destroy someone's data. An empty schema_migrations is jarvis's own: a run
// stopped between creating it and committing the first migration leaves
// it so.
func (db *DB) checkForeignTables(ctx context.Context) error {
	var n int
	if err := db.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations'`).Scan(&n); err != nil {
		return sqliteError(db.Path, err)
	}
	if n > 0 {
		return foreignTables(db.Path, n)
	}
	return nil
}

func (db *DB) apply(ctx context.Context, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, permissionOr(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, permissionOr(err))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns the problems it
// lists, or nil when the database is sound.
func (db *DB) IntegrityCheck(ctx context.Context) ([]string, error) {
	return db.check(ctx, "integrity_check")
}

// QuickCheck runs PRAGMA quick_check: IntegrityCheck without comparing each
// index with its table, in a fraction of the time and memory.
func (db *DB) QuickCheck(ctx context.Context) ([]string, error) {
	return db.check(ctx, "quick_check")
}

// checkLimit is how many findings a check lists at most (SQLite's own
// default, stated here so that Findings knows when the list was cut):
// a check that reached it found at least that many.
const checkLimit = 100

func (db *DB) check(ctx context.Context, pragma string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `PRAGMA `+pragma+`(`+strconv.Itoa(checkLimit)+`)`)
	if err != nil {
		return nil, fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("integrity check: %w", err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("integrity check: %w", err)
	}
	return problems, nil
}
