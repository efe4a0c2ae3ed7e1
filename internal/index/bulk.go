package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// bulkRows is how many rows one INSERT statement carries. Fewer, larger
// statements cut the per-statement cost that dominates writing many small
// rows (links, tags, headings); 64 rows of 9 columns stay far below
// SQLite's limit on bound parameters.
const bulkRows = 64

// bulkInsert gathers rows for one table within a transaction and inserts
// them bulkRows at a time.
type bulkInsert struct {
	tx     *sql.Tx
	prefix string // "INSERT INTO t (a, b) VALUES "
	ncol   int
	vals   []any
	full   *sql.Stmt
}

func newBulkInsert(tx *sql.Tx, table string, cols ...string) *bulkInsert {
	return &bulkInsert{
		tx:     tx,
		prefix: "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ",
		ncol:   len(cols),
		vals:   make([]any, 0, bulkRows*len(cols)),
	}
}

func (b *bulkInsert) statement(rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", b.ncol), ", ") + ")"
	return b.prefix + strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
}

// add queues one row; its values must match the columns.
func (b *bulkInsert) add(ctx context.Context, row ...any) error {
	b.vals = append(b.vals, row...)
	if len(b.vals) < bulkRows*b.ncol {
		return nil
	}
	if b.full == nil {
		st, err := b.tx.PrepareContext(ctx, b.statement(bulkRows))
		if err != nil {
			return fmt.Errorf("prepare bulk insert: %w", err)
		}
		b.full = st
	}
	if _, err := b.full.ExecContext(ctx, b.vals...); err != nil {
		return err
	}
	b.vals = b.vals[:0]
	return nil
}

// flush inserts the queued rows and releases the statement.
func (b *bulkInsert) flush(ctx context.Context) error {
	if b.full != nil {
		defer b.full.Close()
		b.full = nil
	}
	if len(b.vals) == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.statement(len(b.vals)/b.ncol), b.vals...)
	b.vals = b.vals[:0]
	return err
}
