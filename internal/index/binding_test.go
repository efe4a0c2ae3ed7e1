package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// TestVaultIsBoundToOneFolderAndRules: a vault name in a database keeps
// the folder and the exclude patterns it was indexed under. The same
// folder through a symbolic link with the same patterns (written another
// way) is the same vault; other patterns, as a config that does not apply
// to a linked path gives, or another folder are refused with a message
// naming both and the fix, until the vault is forgotten.
func TestVaultIsBoundToOneFolderAndRules(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	folder := filepath.Join(dir, "vault")
	other := filepath.Join(dir, "other")
	for _, f := range []string{filepath.Join(folder, "Secret"), other} {
		if err := os.MkdirAll(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(folder, "Public.md"), filepath.Join(folder, "Secret", "Plan.md"), filepath.Join(other, "Else.md")} {
		if err := os.WriteFile(f, []byte("# Note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(folder, linked); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	ix, _ := testIndexer(t, filepath.Join(dir, "j.db"))
	bound := config.Vault{Name: "v", Path: folder, Exclude: []string{"Secret/**"}}
	if _, err := ix.Index(ctx, bound, nil); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		v       config.Vault
		refused bool
	}{
		{"the same", bound, false},
		{"through a link, the same patterns written another way", config.Vault{Name: "v", Path: linked, Exclude: []string{"/secret/**", "Secret/**"}}, false},
		{"through a link without the patterns", config.Vault{Name: "v", Path: linked}, true},
		{"the same folder with other patterns", config.Vault{Name: "v", Path: folder, Exclude: []string{"Archive/**"}}, true},
		{"another folder", config.Vault{Name: "v", Path: other, Exclude: []string{"Secret/**"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stored string
			if err := ix.db.QueryRowContext(ctx, `SELECT path FROM vaults WHERE name = 'v'`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			err := CheckVaults(ctx, ix.db, []config.Vault{tc.v})
			_, indexErr := ix.Index(ctx, tc.v, nil)
			if !tc.refused {
				if err != nil || indexErr != nil {
					t.Fatalf("refused: %v; %v", err, indexErr)
				}
				return
			}
			for _, err := range []error{err, indexErr} {
				var be *BindingError
				if !errors.Is(err, ErrVaultRebound) || !errors.As(err, &be) {
					t.Fatalf("not refused: %v", err)
				}
				msg := err.Error()
				for _, want := range []string{`vault "v"`, "from " + stored, "gives it " + tc.v.Path, "`jarvis index --no-embed --forget v`"} {
					if !strings.Contains(msg, want) {
						t.Errorf("the message does not say %q: %s", want, msg)
					}
				}
			}
		})
	}
	// The excluded note was never indexed, by any run refused or not.
	var n int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE path LIKE 'Secret/%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d excluded notes indexed (%v)", n, err)
	}

	// A pattern added is taken: the run removes what it keeps out, and the
	// patterns without it are from then on refused, whoever gives them.
	tighter := config.Vault{Name: "v", Path: folder, Exclude: []string{"Secret/**", "Public.md"}}
	if err := CheckVaults(ctx, ix.db, []config.Vault{tighter}); err != nil {
		t.Fatalf("a pattern added is refused: %v", err)
	}
	if _, err := ix.Index(ctx, tighter, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE path = 'Public.md'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the note a pattern added keeps out is still indexed (%d, %v)", n, err)
	}
	err := CheckVaults(ctx, ix.db, []config.Vault{bound})
	if _, indexErr := ix.Index(ctx, bound, nil); !errors.Is(err, ErrVaultRebound) || !errors.Is(indexErr, ErrVaultRebound) {
		t.Fatalf("fewer patterns than stored were not refused: %v; %v", err, indexErr)
	}
	if msg := err.Error(); !strings.Contains(msg, "would let in notes") || !strings.Contains(msg, `exclude patterns "Public.md" and "Secret/**", but`) {
		t.Fatalf("the refusal does not say why: %s", msg)
	}

	// Forgotten, the name takes the new folder and rules.
	if _, err := ix.Forget(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	moved := config.Vault{Name: "v", Path: other}
	if _, err := ix.Index(ctx, moved, nil); err != nil {
		t.Fatalf("after --forget: %v", err)
	}

	// A vault recorded before its rules were takes those it is given.
	if _, err := ix.db.ExecContext(ctx, `UPDATE vaults SET exclude = NULL`); err != nil {
		t.Fatal(err)
	}
	moved.Exclude = []string{"Drafts/**"}
	if _, err := ix.Index(ctx, moved, nil); err != nil {
		t.Fatalf("rules not recorded yet: %v", err)
	}
	if err := CheckVaults(ctx, ix.db, []config.Vault{{Name: "v", Path: other}}); !errors.Is(err, ErrVaultRebound) {
		t.Fatalf("the rules recorded are not held to: %v", err)
	}
}
