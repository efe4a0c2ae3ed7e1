//go:build unix

package write

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A refusal says what is really the matter, for each way a write can be
// refused that a newcomer met: each case's words must be in the message,
// and none of its wrong ones.
func TestRefusalsSayWhatIsTheMatter(t *testing.T) {
	ctx := context.Background()
	const body = "# Z\n"
	cases := []struct {
		name  string
		setup func(t *testing.T, f journalFixture)
		req   Request
		want  []string
		not   []string
	}{
		{
			name: "a note that is a link out of the vault",
			setup: func(t *testing.T, f journalFixture) {
				outside := filepath.Join(t.TempDir(), "Secret.md")
				writeTree(t, filepath.Dir(outside), map[string]string{"Secret.md": body})
				symlink(t, outside, filepath.Join(f.dir, "Out.md"))
			},
			req:  Request{Tool: ToolDelete, Vault: "v", Path: "Out.md", ETag: ETag([]byte(body))},
			want: []string{"outside the vault", "writes only notes inside the vault"},
			not:  []string{"write the note it leads to"},
		},
		{
			name:  "a note that is a link to another note",
			setup: func(t *testing.T, f journalFixture) { symlink(t, "Z.md", filepath.Join(f.dir, "In.md")) },
			req:   Request{Tool: ToolEdit, Vault: "v", Path: "In.md", ETag: ETag([]byte(body)), Edits: []Edit{{Op: OpAppend, Text: "x"}}},
			want:  []string{`"In.md" is a symbolic link to "Z.md"; write that note instead`},
		},
		{
			name:  "a vault whose folder was deleted",
			setup: func(t *testing.T, f journalFixture) { os.RemoveAll(f.dir) },
			req:   Request{Tool: ToolCreate, Vault: "v", Path: "New.md", Content: "x"},
			want:  []string{"its folder " + "DIR" + " does not exist (it was deleted or renamed, or is on a disk that is not mounted)"},
			not:   []string{"lstat", "no such file"},
		},
		{
			name: "a trash that is a link",
			setup: func(t *testing.T, f journalFixture) {
				symlink(t, t.TempDir(), filepath.Join(f.dir, TrashDir))
			},
			req:  Request{Tool: ToolDelete, Vault: "v", Path: "Z.md", ETag: ETag([]byte(body))},
			want: []string{`trash folder ".trash" is a symbolic link`, "replace the link with a real folder"},
		},
		{
			name:  "a name in another Unicode form",
			setup: func(t *testing.T, f journalFixture) { writeTree(t, f.dir, map[string]string{"caf\u00e9.md": body}) },
			req:   Request{Tool: ToolCreate, Vault: "v", Path: "cafe\u0301.md", Content: "x"},
			want:  []string{"the same name in another Unicode form"},
			not:   []string{"differs only in case"},
		},
		{
			name:  "a name in other capitals",
			setup: func(t *testing.T, f journalFixture) {},
			req:   Request{Tool: ToolCreate, Vault: "v", Path: "z.md", Content: "x"},
			want:  []string{"a name that differs only in case"},
			not:   []string{"Unicode"},
		},
		{
			name:  "an etag never issued",
			setup: func(t *testing.T, f journalFixture) {},
			req:   Request{Tool: ToolEdit, Vault: "v", Path: "Z.md", ETag: strings.Repeat("ab", 16), Edits: []Edit{{Op: OpAppend, Text: "x"}}},
			want:  []string{"does not match the note as it is now", "or the etag is not one it had"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newJournalFixture(t, map[string]string{"Z.md": body})
			s := f.service(f.db)
			c.setup(t, f)
			_, err := s.Write(ctx, c.req)
			if err == nil {
				t.Fatal("the write was made")
			}
			msg := err.Error()
			for _, w := range c.want {
				if w = strings.ReplaceAll(w, "DIR", f.dir); !strings.Contains(msg, w) {
					t.Errorf("message %q does not say %q", msg, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(msg, w) {
					t.Errorf("message %q says %q", msg, w)
				}
			}
			if !errors.Is(err, ErrNotWritable) && !errors.Is(err, ErrExists) && !errors.Is(err, ErrStale) && c.name != "a vault whose folder was deleted" {
				t.Errorf("%v matches none of the package's refusals", err)
			}
		})
	}
}

func symlink(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}
