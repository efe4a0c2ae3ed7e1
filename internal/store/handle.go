package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// Handle opens the database on first use and hands the same connection to
// every caller after that. A failure is not cached: the next call tries
// again, so a database fixed while jarvis runs is picked up.
type Handle struct {
	path string
	opts Options

	mu sync.Mutex
	db *DB
	// onChange is given to the database once open (DB.OnFileChange).
	onChange func(reopened bool)
	// fail and lastErr stand in for the database while it cannot be
	// opened (see failing).
	fail    *sql.DB
	lastErr error
}

// NewHandle returns a Handle for the database at path. Nothing is opened yet.
func NewHandle(path string, opts Options) *Handle {
	return &Handle{path: path, opts: opts}
}

// Path is the database file.
func (h *Handle) Path() string { return h.path }

// DB opens the database if it is not open yet and returns it.
func (h *Handle) DB(ctx context.Context) (*DB, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.db != nil {
		return h.db, nil
	}
	db, err := Open(ctx, h.path, h.opts)
	if err != nil {
		return nil, err
	}
	db.OnFileChange(h.onChange)
	h.db = db
	return db, nil
}

// OnFileChange sets what the database, once open, calls when its file
// was replaced or deleted (DB.OnFileChange).
func (h *Handle) OnFileChange(f func(reopened bool)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onChange = f
	if h.db != nil {
		h.db.OnFileChange(f)
	}
}

// Recheck is DB.Recheck of the database if it is open, and "" if not.
func (h *Handle) Recheck(ctx context.Context) string {
	h.mu.Lock()
	db := h.db
	h.mu.Unlock()
	if db == nil {
		return ""
	}
	return db.Recheck(ctx)
}

// UpdateBlocked says what keeps this user from updating the database at
// h's path, in the words of the database access check ("/d is a folder
// you cannot create files in"), and its fix; both "" when nothing does.
// A fix that runs jarvis index puts this fix first (FirstUnblock): run
// alone, jarvis index would fail for the same cause.
func (h *Handle) UpdateBlocked() (why, fix string) {
	return Unusable(h.path, h.opts.Probe)
}

// Unusable says what keeps this user from using the database at path as
// jarvis does (AccessProblems), and its fix; both "" when nothing does.
func Unusable(path string, probe Probe) (why, fix string) {
	problems := AccessProblems(path, probe)
	if len(problems) == 0 {
		return "", ""
	}
	return describe(problems), AccessFix(problems)
}

// FirstUnblock is r, a result whose fix runs jarvis index, saying that
// the index cannot be updated and why, with the fix of that (the database
// access check's) before its own, when this user may not update the
// database at h's path; r as it is otherwise.
func (h *Handle) FirstUnblock(r health.Result) health.Result {
	if r.Status == health.OK || r.Fix == "" {
		return r
	}
	why, fix := h.UpdateBlocked()
	if why == "" {
		return r
	}
	r.Detail += "; the index cannot be updated: " + why
	r.Fix = fix + "; then " + r.Fix
	return r
}

// Close closes the database if it was opened.
func (h *Handle) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail != nil {
		h.fail.Close()
		h.fail = nil
	}
	if h.db == nil {
		return nil
	}
	err := h.db.Close()
	h.db = nil
	return err
}

// Conn is what services use of the database: an open *DB, or a *Handle,
// which opens it on the first call. Over a Handle a service can be built
// before the database is usable, and its calls fail, each saying why,
// until it is.
type Conn interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
	LockWriters(ctx context.Context) (func(), error)
}

var (
	_ Conn = (*DB)(nil)
	_ Conn = (*Handle)(nil)
)

// QueryContext runs a query on the database, opening it first if needed.
func (h *Handle) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	db, err := h.DB(ctx)
	if err != nil {
		return nil, err
	}
	return db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query for one row, opening the database first if
// needed; when it cannot be opened, the row's Scan says why.
func (h *Handle) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	db, err := h.DB(ctx)
	if err != nil {
		return h.failing(err).QueryRowContext(ctx, query, args...)
	}
	return db.QueryRowContext(ctx, query, args...)
}

// ExecContext runs a statement, opening the database first if needed.
func (h *Handle) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	db, err := h.DB(ctx)
	if err != nil {
		return nil, err
	}
	return db.ExecContext(ctx, query, args...)
}

// BeginTx starts a transaction, opening the database first if needed.
func (h *Handle) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	db, err := h.DB(ctx)
	if err != nil {
		return nil, err
	}
	return db.BeginTx(ctx, opts)
}

// LockWriters takes the database's writer lock (DB.LockWriters), opening
// the database first if needed.
func (h *Handle) LockWriters(ctx context.Context) (func(), error) {
	db, err := h.DB(ctx)
	if err != nil {
		return nil, err
	}
	return db.LockWriters(ctx)
}

// failing is a database whose every connection fails with the last error
// opening the real one gave: the only way to hand back a *sql.Row that
// carries an error.
func (h *Handle) failing(err error) *sql.DB {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastErr = err
	if h.fail == nil {
		h.fail = sql.OpenDB(failConnector{h})
	}
	return h.fail
}

type failConnector struct{ h *Handle }

func (c failConnector) Connect(context.Context) (driver.Conn, error) {
	c.h.mu.Lock()
	defer c.h.mu.Unlock()
	return nil, c.h.lastErr
}

func (c failConnector) Driver() driver.Driver { return failDriver{} }

type failDriver struct{}

func (failDriver) Open(string) (driver.Conn, error) {
	return nil, errors.New("the database is not open")
}
