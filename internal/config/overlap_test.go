package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// TestOverlap configures vaults that would index the same notes, by flag
// and by config file, and some that would not.
func TestOverlap(t *testing.T) {
	home := t.TempDir()
	notes := filepath.Join(home, "Notes")
	work := filepath.Join(notes, "Work")
	other := filepath.Join(home, "Other")
	for _, d := range []string{work, other, filepath.Join(notes, ".hidden", "Deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(home, "Notes link")
	if err := os.Symlink(notes, link); err != nil {
		t.Fatal(err)
	}
	file := func(body string) string {
		p := filepath.Join(t.TempDir(), "config.yaml")
		write(t, p, body)
		return p
	}
	tests := []struct {
		name  string
		flags Flags
		// outer and inner name the overlapping vaults; "" when none.
		outer, inner string
	}{
		{"inner after outer", Flags{Vaults: []string{notes, work}}, "Notes", "Work"},
		{"inner before outer", Flags{Vaults: []string{work, notes}}, "Notes", "Work"},
		{"inner through a link to the outer", Flags{Vaults: []string{link, work}}, "Notes link", "Work"},
		{"inner reached through a link", Flags{Vaults: []string{notes, filepath.Join(link, "Work")}}, "Notes", "Work"},
		{"one folder and a link to it", Flags{Vaults: []string{notes, link}}, "Notes", "Notes link"},
		{"one folder under two names", Flags{ConfigFile: file("vaults:\n  - {name: a, path: " + notes + "}\n  - {name: b, path: " + notes + "/}\n")}, "a", "b"},
		{"one folder under two names, one not yet made", Flags{ConfigFile: file("vaults:\n  - {name: a, path: " + other + "/later}\n  - {name: b, path: " + other + "/x/../later}\n")}, "a", "b"},
		{"nested in the config file", Flags{ConfigFile: file("vaults:\n  - {name: all, path: " + notes + "}\n  - {name: job, path: " + work + "}\n")}, "all", "job"},
		{"inner excluded by its path", Flags{ConfigFile: file("vaults:\n  - {name: all, path: " + notes + ", exclude: [\"Work/**\"]}\n  - {name: job, path: " + work + "}\n")}, "", ""},
		{"inner excluded by its name", Flags{ConfigFile: file("vaults:\n  - {name: all, path: " + notes + ", exclude: [work]}\n  - {name: job, path: " + work + "}\n")}, "", ""},
		{"inner beneath a hidden folder", Flags{Vaults: []string{notes, filepath.Join(notes, ".hidden", "Deep")}}, "", ""},
		{"an exclude that leaves out something else", Flags{ConfigFile: file("vaults:\n  - {name: all, path: " + notes + ", exclude: [\"Work/*.md\"]}\n  - {name: job, path: " + work + "}\n")}, "all", "job"},
		{"side by side", Flags{Vaults: []string{notes, other}}, "", ""},
		{"a name that begins with the other's", Flags{Vaults: []string{notes, notes + " 2"}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.flags, fakeEnv(map[string]string{"HOME": home}))
			if err != nil {
				t.Fatal(err)
			}
			o := cfg.Overlap()
			if tt.outer == "" {
				if o != nil {
					t.Fatalf("Overlap = %v, want none", o)
				}
				return
			}
			if o == nil {
				t.Fatalf("no overlap found in %+v", cfg.Vaults)
			}
			if o.Outer.Name != tt.outer || o.Inner.Name != tt.inner {
				t.Fatalf("Overlap names %q in %q, want %q in %q", o.Inner.Name, o.Outer.Name, tt.inner, tt.outer)
			}
			msg := o.Error()
			for _, v := range []Vault{o.Outer, o.Inner} {
				if !strings.Contains(msg, `"`+v.Name+`"`) || !strings.Contains(msg, v.Path) {
					t.Errorf("message does not name vault %q at %s: %s", v.Name, v.Path, msg)
				}
			}
		})
	}
}

// TestOverlapFixWorks follows the fix an overlap prints, adding the
// exclude pattern it names to the outer vault in the config file: then
// the two vaults are accepted. The inner folder's name holds glob
// characters, which the pattern must take as plain text.
func TestOverlapFixWorks(t *testing.T) {
	home := t.TempDir()
	notes := filepath.Join(home, "Notes")
	inner := filepath.Join(notes, "Projects", "[2024] Work*")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(home, "config.yaml")
	write(t, cfgFile, "vaults:\n  - name: all\n    path: "+notes+"\n")
	flags := Flags{ConfigFile: cfgFile, Vaults: []string{"all", inner}}
	getenv := fakeEnv(map[string]string{"HOME": home})
	cfg, err := Load(flags, getenv)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Overlap()
	if o == nil {
		t.Fatal("no overlap found")
	}
	fix := o.Fix()
	quoted := strings.Index(fix, `add "`)
	if quoted < 0 || !strings.Contains(fix, "exclude list in "+cfgFile) {
		t.Fatalf("fix names no pattern to add to %s: %s", cfgFile, fix)
	}
	pattern := fix[quoted+len(`add "`):]
	pattern = pattern[:strings.Index(pattern, `" to`)]
	pattern = strings.ReplaceAll(pattern, `\\`, `\`) // as %q wrote it
	// The pattern written as a YAML single-quoted string, as a user
	// would, backslashes and all.
	write(t, cfgFile, "vaults:\n  - name: all\n    path: "+notes+"\n    exclude: ['"+pattern+"']\n")
	cfg, err = Load(flags, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Overlap(); o != nil {
		t.Fatalf("with exclude %q: %v", pattern, o)
	}

	// The pattern leaves out that folder alone, not its neighbours.
	sibling := filepath.Join(notes, "Projects", "[2024] Workshop")
	if err := os.MkdirAll(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(Flags{ConfigFile: cfgFile, Vaults: []string{"all", sibling}}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Overlap() == nil {
		t.Fatalf("exclude %q also leaves out %s", pattern, sibling)
	}
}

// TestDoctorReportsOverlap: the configuration check fails with the
// overlap and its fix, and the vaults are still checked one by one.
func TestDoctorReportsOverlap(t *testing.T) {
	home := t.TempDir()
	notes := filepath.Join(home, "Notes")
	work := filepath.Join(notes, "Work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(Flags{Vaults: []string{notes, work}}, fakeEnv(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	rep := health.Run(context.Background(), Checks(cfg, nil), time.Minute)
	var conf health.Result
	vaults := 0
	for _, r := range rep.Checks {
		switch {
		case r.Name == "configuration":
			conf = r
		case strings.HasPrefix(r.Name, "vault "):
			vaults++
		}
	}
	if conf.Status != health.Fail || !strings.Contains(conf.Detail, `vault "Work" (`+work+`) lies inside vault "Notes" (`+notes+`)`) ||
		!strings.Contains(conf.Fix, "the --vault flags") {
		t.Fatalf("configuration check: %+v", conf)
	}
	if vaults != 2 || rep.Status != health.Broken {
		t.Fatalf("report %s with %d vault checks: %+v", rep.Status, vaults, rep.Checks)
	}
}
