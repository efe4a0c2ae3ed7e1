// Package store opens the jarvis SQLite database and brings its schema up to
// date. It owns the connection settings and the migration table; the tables
// themselves belong to the packages that query them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/migrations"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// Sentinel errors callers branch on.
var (
	// ErrNewerSchema means the database was written by a newer jarvis.
	ErrNewerSchema = errors.New("database was created by a newer version of jarvis")
	// ErrNotDatabase means the file exists but SQLite cannot read it as a
	// database, or it fails validation. The file is left untouched.
	ErrNotDatabase = errors.New("file is not a usable jarvis database")
)

// DB is an open jarvis database.
type DB struct {
	*sql.DB
	// Path is the database file.
	Path string
	// OnWait, when set, is called once each time LockWriters finds the
	// lock held and starts waiting: a command can tell its user why it
	// pauses.
	OnWait func()
}

// Options change how Open treats the database.
type Options struct {
	// NoMigrate opens the database as it is, without applying migrations.
	// doctor uses it so that looking never changes anything.
	NoMigrate bool
}

// dsn builds the connection string. Every pragma runs on every new pooled
// connection, so each one holds for all of them.
func dsn(path string) string {
	q := url.Values{}
	// WAL lets the MCP server keep answering reads while an index run writes.
	q.Add("_pragma", "journal_mode(WAL)")
	// Links, headings and tags are deleted with their note through ON DELETE
	// CASCADE, which SQLite only honours with foreign keys switched on.
	q.Add("_pragma", "foreign_keys(1)")
	// A second jarvis process (an index run beside a running server) waits
	// for the write lock for up to 10 s instead of failing at once.
	q.Add("_pragma", "busy_timeout(10000)")
	// In WAL mode NORMAL loses at most the last transactions on power loss
	// and never corrupts the database; FULL would fsync every commit.
	q.Add("_pragma", "synchronous(NORMAL)")
	// Temporary tables and statement journals (FTS5 writes many) stay in
	// memory instead of temp files.
	q.Add("_pragma", "temp_store(MEMORY)")
	// A 16 MB page cache per connection (the default is 2 MB): an index run
	// rewrites the same FTS5 and link pages many times, and a graph walk
	// reads the link index over and over; both ran a third slower with the
	// default. A few connections stay well inside jarvis's memory budget.
	q.Add("_pragma", "cache_size(-16384)")
	// Up to 64 MB of the file is read through a memory map, sparing a copy
	// of each page into the cache: graph walks ran 25% faster. The bound
	// keeps the mapped pages, which count as resident memory, small.
	q.Add("_pragma", "mmap_size(67108864)")
	// Write transactions take the write lock when they begin, so two
	// writers never deadlock upgrading a read lock.
	q.Set("_txlock", "immediate")
	return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
}

// Open opens the database at path, creating it and its folder when missing,
// and applies pending migrations. A file that is not a readable database is
// reported with ErrNotDatabase and never modified.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("no database path given")
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("database %s: %w: it is a directory", path, ErrNotDatabase)
		}
		if err := checkHeader(path, st.Size()); err != nil {
			return nil, err
		}
		if err := checkReadOnly(ctx, path); err != nil {
			return nil, err
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if opts.NoMigrate {
			return nil, fmt.Errorf("database %s: %w", path, fs.ErrNotExist)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("create database folder: %w", err)
		}
	} else {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}

	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db := &DB{DB: sqldb, Path: path}
	if err := db.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("database %s: %w: %v", path, ErrNotDatabase, err)
	}
	if !opts.NoMigrate {
		if err := db.migrate(ctx); err != nil {
			sqldb.Close()
			return nil, err
		}
	} else if _, _, err := db.Version(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

// checkHeader refuses a non-empty file that does not start with the SQLite
// magic string, before SQLite gets a chance to touch it.
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
	if n, _ := f.Read(head); n < 16 || string(head) != "SQLite format 3\x00" {
		return fmt.Errorf("database %s: %w: it does not start with the SQLite header", path, ErrNotDatabase)
	}
	return nil
}

// checkReadOnly looks into an existing file through a read-only connection
// before any pragma can write to it (switching to WAL rewrites the header): it
// must be readable by SQLite, and if it holds tables, they must be jarvis's.
func checkReadOnly(ctx context.Context, path string) error {
	ro, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("database %s: %w: %v", path, ErrNotDatabase, err)
	}
	defer ro.Close()
	var tables, ours int
	err = ro.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE name NOT LIKE 'sqlite_%'),
		count(*) FILTER (WHERE name = 'schema_migrations')
		FROM sqlite_master WHERE type = 'table'`).Scan(&tables, &ours)
	if err != nil {
		return fmt.Errorf("database %s: %w: %v", path, ErrNotDatabase, err)
	}
	if tables > 0 && ours == 0 {
		return fmt.Errorf("database %s: %w: it holds %d tables that jarvis did not create", path, ErrNotDatabase, tables)
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
		return 0, latest, fmt.Errorf("database %s: %w: %v", db.Path, ErrNotDatabase, err)
	}
	if n == 0 {
		return 0, latest, nil
	}
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return 0, latest, fmt.Errorf("database %s: %w: %v", db.Path, ErrNotDatabase, err)
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
		return fmt.Errorf("database %s: %w: %v", db.Path, ErrNotDatabase, err)
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
// destroy someone's data.
func (db *DB) checkForeignTables(ctx context.Context) error {
	var n int
	if err := db.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).Scan(&n); err != nil {
		return fmt.Errorf("database %s: %w: %v", db.Path, ErrNotDatabase, err)
	}
	if n > 0 {
		return fmt.Errorf("database %s: %w: it holds %d tables that jarvis did not create", db.Path, ErrNotDatabase, n)
	}
	return nil
}

func (db *DB) apply(ctx context.Context, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
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
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
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

// MoveAside renames the database file and its WAL and shared-memory files to
// a timestamped backup next to it, so a fresh database can be started without
// losing the old one. It returns the backup path of the main file.
func MoveAside(path string, now time.Time) (string, error) {
	backup := path + ".broken-" + now.UTC().Format("20060102T150405Z")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("move database aside: %w", err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, backup+suffix)
		if err != nil && !(suffix != "" && errors.Is(err, fs.ErrNotExist)) {
			return "", fmt.Errorf("move database aside: %w", err)
		}
	}
	return backup, nil
}
