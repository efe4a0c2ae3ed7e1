package live

import (
	"context"
	"errors"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
)

// TestRetrySyncOnlyAfterAFailure: a pass whose vector sync fails still
// leaves the index ready; RetrySync then tries the sync again, and once it
// has succeeded does nothing more.
func TestRetrySyncOnlyAfterAFailure(t *testing.T) {
	ctx := context.Background()
	indexed, synced := 0, 0
	failing := true
	l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) {
			indexed++
			return index.Result{}, nil
		},
		func(context.Context, <-chan struct{}, func(int, int)) error {
			synced++
			if failing {
				return errors.New("embedder down")
			}
			return nil
		}, nil)

	if err := l.All(ctx); err != nil {
		t.Fatalf("a pass whose sync failed: %v; want no error, the index is current", err)
	}
	if st := l.State(); st.State != index.StateReady || indexed != 1 || synced != 1 {
		t.Fatalf("after the pass: %+v, %d index runs, %d syncs", st, indexed, synced)
	}
	l.RetrySync(ctx) // still failing
	failing = false
	l.RetrySync(ctx) // succeeds
	l.RetrySync(ctx) // nothing to do
	if synced != 3 || indexed != 1 {
		t.Fatalf("%d syncs and %d index runs after three retries; want 3 and 1", synced, indexed)
	}
}
