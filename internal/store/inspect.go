package store

import (
	"context"
)

// Inspection is what one look at the database file found. It is made
// through a connection opened for it alone and closed after: a connection
// that has served queries keeps pages in its cache, and a page damaged on
// disk since then (page 1 zeroed, a page overwritten) would pass.
type Inspection struct {
	// Check names the check that ran: "integrity check" or "quick check".
	Check string
	// OpenErr is why the file could not be opened to be looked at; nil
	// when it could (see Damaged for what it means).
	OpenErr error
	// Problems is what the check listed; Err is what stopped it.
	Problems []string
	Err      error
	// Stopped is set when the check did not finish, its context done: it
	// says nothing of the file.
	Stopped bool
	// Changed is set when another process wrote to the file while it was
	// looked at: then neither Problems nor Err prove anything.
	Changed bool
	// Schema is the file's schema version, when it could be read.
	Schema int
	// trees and tables name, when the check listed problems, the table
	// or index that starts on each page and the table of each index, for
	// Findings.
	trees  map[int]string
	tables map[string]string
}

// Findings says in words what the check listed (see Findings); "" when
// it listed nothing.
func (in Inspection) Findings() string {
	if len(in.Problems) == 0 {
		return ""
	}
	return Findings(in.Problems, in.trees, in.tables)
}

// Inspect opens the database at path read-only, without creating anything
// beside it, and runs PRAGMA integrity_check on it, or the faster
// quick_check when quick is set.
func Inspect(ctx context.Context, path string, opts Options, quick bool) Inspection {
	in := Inspection{Check: "integrity check"}
	pragma := "integrity_check"
	if quick {
		in.Check, pragma = "quick check", "quick_check"
	}
	opts.ReadOnly = true
	db, err := Open(ctx, path, opts)
	if err != nil {
		in.OpenErr = err
		return in
	}
	defer db.Close()
	in.Schema, _, _ = db.Version(ctx)
	in.Problems, in.Err = db.check(ctx, pragma)
	if len(in.Problems) > 0 {
		in.trees, in.tables = readTrees(ctx, db)
	}
	in.Stopped = in.Err != nil && ctx.Err() != nil
	in.Changed = (in.Err != nil || len(in.Problems) > 0) && db.ChangedSinceOpen()
	return in
}

// Damaged reports whether the file is not a usable index and only a fresh
// one helps: it is not an SQLite database, holds tables jarvis did not
// make, or fails its check. It is the one rule for damage: doctor and
// health-status offer `jarvis index --rebuild` for it, and --rebuild moves
// such a file aside rather than clearing it. A file this user may not
// read, a missing file, a check stopped before its end and a file written
// to while it was checked are not damaged.
func (in Inspection) Damaged() bool {
	switch {
	case in.OpenErr != nil:
		return Classify(in.OpenErr) == KindDamaged
	case in.Changed, in.Stopped:
		return false
	}
	return in.Err != nil || len(in.Problems) > 0
}
