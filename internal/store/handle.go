package store

import (
	"context"
	"sync"
)

// Handle opens the database on first use and hands the same connection to
// every caller after that. A failure is not cached: the next call tries
// again, so a database fixed while jarvis runs is picked up.
type Handle struct {
	path string
	opts Options

	mu sync.Mutex
	db *DB
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
	h.db = db
	return db, nil
}

// Close closes the database if it was opened.
func (h *Handle) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.db == nil {
		return nil
	}
	err := h.db.Close()
	h.db = nil
	return err
}
