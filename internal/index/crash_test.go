package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// indexChild indexes the vault named in spec ("vault|db") in this process,
// for the crash test to kill.
func indexChild(spec string) int {
	root, dbPath, _ := strings.Cut(spec, "|")
	ctx := context.Background()
	db, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	ix := New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := ix.Index(ctx, config.Vault{Name: "gen", Path: root}, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestKillDuringIndex kills `index` with SIGKILL at several moments of a
// large vault's first index, each time resuming on the same database. After
// every kill the database passes its integrity check; once a run completes,
// the database holds exactly what a clean index of the vault holds.
func TestKillDuringIndex(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	root := filepath.Join(t.TempDir(), "vault")
	notes := 5000
	if raceEnabled {
		notes = 1000 // indexed ten times slower, it is still killed mid-way
	}
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: notes, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "killed.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	killed := 0
	for _, delay := range []time.Duration{50, 250, 450, 700, 1000, 1400} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "JARVIS_INDEX_CHILD="+root+"|"+dbPath)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				killed++
			} else {
				t.Fatalf("child failed on its own: %v\n%s", err, stderr.String())
			}
		}
		db, err := store.Open(context.Background(), dbPath, store.Options{})
		if err != nil {
			t.Fatalf("after a kill at %dms the database does not open: %v", delay, err)
		}
		problems, err := db.IntegrityCheck(context.Background())
		db.Close()
		if err != nil || problems != nil {
			t.Fatalf("after a kill at %dms: integrity %v, %v", delay, problems, err)
		}
	}
	if killed < 3 {
		t.Fatalf("only %d of 6 runs were killed mid-way; the vault indexes too fast for this test's delays", killed)
	}

	t.Logf("%d of 6 runs killed mid-way", killed)
	resumed, _ := testIndexer(t, dbPath)
	res := mustIndex(t, resumed, "gen", root)
	if res.Notes != notes {
		t.Fatalf("resumed run: %+v", res)
	}
	fresh, _ := testIndexer(t, filepath.Join(t.TempDir(), "fresh.db"))
	mustIndex(t, fresh, "gen", root)
	if a, b := dump(t, resumed.db.(*store.DB).DB), dump(t, fresh.db.(*store.DB).DB); a != b {
		t.Fatalf("database after kills differs from a clean index:\n%s", firstDiff(a, b))
	}
}
