package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"modernc.org/sqlite"
)

// recheckEvery is how often the database looks whether its file was
// replaced or deleted, as connections are taken from the pool: one
// stat(2) a second at most.
const recheckEvery = time.Second

// remember makes file, just opened, the one Path is compared with.
func (db *DB) remember(file os.FileInfo) {
	// On Windows, SameFile reads a file's identity on first use, by path:
	// read it now, while the path names this file.
	os.SameFile(file, file)
	db.mu.Lock()
	db.file, db.checked, db.away = file, time.Now(), ""
	db.mu.Unlock()
}

// Recheck looks now whether Path still names the file the database has
// open, opens the file that took its place if another did, and says why
// the open file is not Path's, or "" when it is: the file was deleted and
// no other is there yet, or the one there cannot be opened. Meanwhile
// queries read the file that was open.
func (db *DB) Recheck(ctx context.Context) string {
	db.follow(ctx, false)
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.away
}

// recheckDue is Recheck at most once every recheckEvery, for each
// connection taken from the pool.
func (db *DB) recheckDue(ctx context.Context) {
	db.mu.Lock()
	due := db.file != nil && time.Since(db.checked) >= recheckEvery
	db.mu.Unlock()
	if due {
		db.follow(ctx, false)
	}
}

// follow opens the file Path names when it is not the open one: it is
// checked and migrated as Open does, then the generation moves on, so that
// connections to the old file are closed and new ones open the new file.
// When Path names no file, create makes a new database there (a writer
// asks for it, under the writer lock: its index pass then fills it);
// otherwise the deleted file stays in use, and away says so.
func (db *DB) follow(ctx context.Context, create bool) {
	if db.gen == nil || !db.following.TryLock() {
		return // read-only, or another call is at it
	}
	defer db.following.Unlock()
	db.mu.Lock()
	open := db.file
	db.checked = time.Now()
	db.mu.Unlock()
	if open == nil {
		return // closed
	}
	now, err := os.Stat(db.Path)
	what := "replaced"
	switch {
	case err == nil && os.SameFile(open, now):
		db.setAway("")
		return
	case errors.Is(err, fs.ErrNotExist) && !create:
		if db.setAway(fmt.Sprintf("%s was deleted while jarvis had it open: answers come from the deleted file until the next index pass makes a new one", db.Path)) {
			db.changed(false)
		}
		return
	case errors.Is(err, fs.ErrNotExist):
		what = "deleted"
		// What a deleted database left beside it would be read as the
		// new file's: its -wal as committed pages, its -shm as the index
		// of that -wal.
		for _, suffix := range []string{"-wal", "-shm"} {
			if err := removeIfThere(beside(db.Path, suffix)); err != nil {
				db.setAway(fmt.Sprintf("%s was deleted while jarvis had it open, and a new one cannot be made: %v", db.Path, err))
				return
			}
		}
	case err != nil:
		db.setAway(fmt.Sprintf("%s cannot be looked at: %v", db.Path, err))
		return
	}
	file, err := db.prepareNext(ctx)
	if err != nil {
		db.setAway(fmt.Sprintf("%s was %s while jarvis had it open, and the file there now cannot be used: %v", db.Path, what, err))
		return
	}
	db.gen.Add(1)
	db.remember(file)
	db.SetMaxIdleConns(0) // closes the idle connections to the old file
	db.SetMaxIdleConns(defaultMaxIdle)
	db.changed(true)
}

// changed tells the function OnFileChange set that the file changed.
func (db *DB) changed(reopened bool) {
	db.mu.Lock()
	f := db.onChange
	db.mu.Unlock()
	if f != nil {
		// Apart: follow may run inside a query of the very service told.
		go f(reopened)
	}
}

// defaultMaxIdle is database/sql's own number of idle connections kept.
const defaultMaxIdle = 2

// prepareNext checks and migrates the file Path names now, or creates it,
// through connections of its own, and returns it as it was opened.
func (db *DB) prepareNext(ctx context.Context) (os.FileInfo, error) {
	if st, err := os.Stat(db.Path); err == nil {
		if err := checkHeader(db.Path, st.Size()); err != nil {
			return nil, err
		}
		if err := checkReadOnly(ctx, db.Path); err != nil {
			return nil, err
		}
	}
	pool, err := openPool(dsn(db.Path), nil)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	next := &DB{DB: pool, Path: db.Path, opts: db.opts}
	if err := next.PingContext(ctx); err != nil {
		return nil, explainAccess(db.Path, db.opts, sqliteError(db.Path, err))
	}
	if err := next.migrate(ctx); err != nil {
		return nil, explainAccess(db.Path, db.opts, err)
	}
	return os.Stat(db.Path)
}

// setAway records why Path does not name the open file, and reports
// whether that is news.
func (db *DB) setAway(why string) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	news := why != db.away
	db.away = why
	return news
}

// OnFileChange sets the function called, on a goroutine of its own, when
// the database file changes: reopened, when the database opened the file
// that took the place of its own (what a service keeps in memory of the
// old file, vectors, is then to be read again); not, when it found its
// file deleted (an index pass then makes a new one).
func (db *DB) OnFileChange(f func(reopened bool)) {
	db.mu.Lock()
	db.onChange = f
	db.mu.Unlock()
}

// Close closes the connections to the database file.
func (db *DB) Close() error {
	db.mu.Lock()
	db.file = nil // nothing to follow any more
	db.mu.Unlock()
	return db.DB.Close()
}

// openPool opens a connection pool on dsn whose connections follow db's
// file (nil: follow nothing).
func openPool(dsn string, db *DB) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(fileConnector{Connector: c, db: db}), nil
}

// fileConnector opens connections to the database file. SQLite is told
// to keep each connection's -wal and -shm when the last one closes (it
// would delete them by name, and once the file was replaced that name is
// the new file's); journal_size_limit empties the -wal instead (see dsn).
type fileConnector struct {
	driver.Connector
	db *DB
}

func (c fileConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var gen uint64
	if c.db != nil && c.db.gen != nil {
		// Read before the file is opened: a connection made while the
		// file changes counts as the old file's, and is not used again.
		gen = c.db.gen.Load()
	}
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	fc, ok2 := conn.(sqlite.FileControl)
	if !ok || !ok2 {
		conn.Close()
		return nil, errors.New("the SQLite driver's connections lack what jarvis uses")
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		conn.Close()
		return nil, fmt.Errorf("persistent WAL: %w", err)
	}
	if c.db == nil || c.db.gen == nil {
		return conn, nil
	}
	return &fileConn{sqliteConn: sc, db: c.db, gen: gen}, nil
}

// sqliteConn is what database/sql uses of a modernc.org/sqlite connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// fileConn is a connection to the file that was db's in generation gen.
// database/sql asks ResetSession before it uses a pooled connection again
// and IsValid before it puts one back: a connection to a file db no longer
// has open answers driver.ErrBadConn and false, and is closed.
type fileConn struct {
	sqliteConn
	db  *DB
	gen uint64
}

func (c *fileConn) ResetSession(ctx context.Context) error {
	c.db.recheckDue(ctx)
	if c.gen != c.db.gen.Load() {
		return driver.ErrBadConn
	}
	return c.sqliteConn.ResetSession(ctx)
}

func (c *fileConn) IsValid() bool {
	return c.gen == c.db.gen.Load() && c.sqliteConn.IsValid()
}
