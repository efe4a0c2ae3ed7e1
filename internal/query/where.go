package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/bases"
)

// ErrWhere marks an error in a search's where expression: one the caller
// can correct, not a failure of the index.
var ErrWhere = errors.New("where")

// WhereError is an error in a search's where expression (ErrWhere), with
// the expression's own words for it in Err.
type WhereError struct{ Err error }

func (e *WhereError) Error() string        { return fmt.Sprintf("%v: %v", ErrWhere, e.Err) }
func (e *WhereError) Unwrap() error        { return e.Err }
func (e *WhereError) Is(target error) bool { return target == ErrWhere }

// ParseWhere reads the where of a search: a Bases filter expression, as
// a view's filter is written.
func ParseWhere(expr string) (*bases.Filter, error) {
	x, err := bases.Parse(expr)
	if err != nil {
		return nil, &WhereError{err}
	}
	return &bases.Filter{Expr: x}, nil
}

// Where reads which notes of the named vaults pass a search's where
// filter, by the rule of a view's filter (Match), at the time now, over
// the files the process holds of each vault (Files), those that can pass
// (Vault.Candidates): the ids of the notes that pass. exclude holds each vault's exclude
// patterns. An expression that fails on every note is an error, as it
// is for a view.
func Where(ctx context.Context, db Querier, vaults []string, exclude map[string][]string, expr string, now time.Time) (map[int64]bool, error) {
	filter, err := ParseWhere(expr)
	if err != nil {
		return nil, err
	}
	ids := map[int64]bool{}
	var failed, tried int
	var firstErr error
	for _, name := range vaults {
		v, err := Files(ctx, db, name, exclude[name])
		if err != nil {
			return nil, err
		}
		env := &bases.Env{Now: now, Resolve: v.Resolve}
		tried += v.noteCount()
		for _, f := range v.Candidates(env, filter) {
			if !f.Note {
				continue // search results are notes
			}
			ok, err := Match(env, filter, f)
			switch {
			case err != nil:
				failed++
				if firstErr == nil {
					firstErr = err
				}
			case ok:
				ids[f.ID] = true
			}
		}
	}
	if tried > 0 && failed == tried {
		return nil, &WhereError{firstErr}
	}
	return ids, nil
}
