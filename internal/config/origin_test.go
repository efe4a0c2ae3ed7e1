package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
)

// TestSettingErrorsNameTheirOrigin: a value jarvis cannot use is refused
// when the configuration is read, naming where it was given (the flag,
// the variable, or the config file's key), so that the user knows what
// to change; doctor's fix names the same.
func TestSettingErrorsNameTheirOrigin(t *testing.T) {
	home := t.TempDir()
	folder := filepath.Join(home, "folder")
	aFile := filepath.Join(home, "a-file")
	write(t, aFile, "x")
	write(t, filepath.Join(folder, "keep"), "")
	file := func(content string) string {
		p := filepath.Join(t.TempDir(), "config.yaml")
		write(t, p, content)
		return p
	}
	vault := filepath.Join(home, "v")
	tests := []struct {
		name   string
		flags  Flags
		env    map[string]string
		origin string // "FILE" stands for the config file's path
		detail string
	}{
		{"JARVIS_DB a folder", Flags{}, map[string]string{EnvDB: folder}, EnvDB, "names the folder " + folder},
		{"--db a folder", Flags{DB: folder}, nil, "--db", "names the folder " + folder},
		{"database key a folder", Flags{ConfigFile: file("database: " + folder + "\n")}, nil, "database in the config file FILE", "such as " + filepath.Join(folder, "jarvis.db")},
		{"JARVIS_EMBED_TIMEOUT not a duration", Flags{}, map[string]string{EnvEmbedTimeout: "fast"}, EnvEmbedTimeout, `is "fast", which is not a duration`},
		{"embedder.timeout not a duration", Flags{ConfigFile: file("embedder:\n  timeout: fast\n")}, nil, "embedder.timeout in the config file FILE", `is "fast", which is not a duration`},
		{"negative batch timeout", Flags{}, map[string]string{EnvEmbedBatchTimeout: "-5s"}, EnvEmbedBatchTimeout, "must be above 0"},
		{"zero run timeout", Flags{}, map[string]string{EnvEmbedRunTimeout: "0"}, EnvEmbedRunTimeout, "must be above 0"},
		{"JARVIS_MODELS a file", Flags{}, map[string]string{hub.EnvModels: aFile}, hub.EnvModels, "which is a file, not a folder"},
		{"JARVIS_EMBED_URL not a URL", Flags{}, map[string]string{EnvEmbedder: "ollama", EnvEmbedURL: "notaurl"}, EnvEmbedURL, `is "notaurl", which is not an http(s) URL`},
		{"embedder.url not a URL", Flags{ConfigFile: file("embedder:\n  provider: openai\n  url: localhost:1234\n")}, nil, "embedder.url in the config file FILE", "not an http(s) URL"},
		{"JARVIS_CONFIG missing", Flags{}, map[string]string{EnvConfig: filepath.Join(home, "nope.yaml")}, EnvConfig, "which does not exist"},
		{"JARVIS_EMBEDDER unknown", Flags{}, map[string]string{EnvEmbedder: "olama"}, EnvEmbedder, "no embedder jarvis knows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home}
			for k, v := range tt.env {
				env[k] = v
			}
			flags := tt.flags
			flags.Vaults = []string{vault}
			_, err := Load(flags, fakeEnv(env))
			var se *SettingError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v; want a setting error", err)
			}
			origin := strings.ReplaceAll(tt.origin, "FILE", flags.ConfigFile)
			if se.Origin != origin || !strings.HasPrefix(err.Error(), origin+" ") || !strings.Contains(se.Detail, tt.detail) {
				t.Errorf("err = %v (origin %q); want it to start with %q and say %q", err, se.Origin, origin, tt.detail)
			}
			if fix := LoadFix(err); !strings.Contains(fix, origin) {
				t.Errorf("fix %q; want it to name %q", fix, origin)
			}
		})
	}
}

// TestTimeoutsOneRule: the timeouts a run uses are read by the rule that
// checks them, so a value the check refuses is never used.
func TestTimeoutsOneRule(t *testing.T) {
	for _, s := range []string{"fast", "-5s", "0", "0s"} {
		if _, err := ParseTimeout(s); err == nil {
			t.Errorf("ParseTimeout(%q) accepted it", s)
		}
		if d := (Embedder{RunTimeout: s}).RunTimeoutDuration(7); d != 7 {
			t.Errorf("run timeout %q read as %v; want the default", s, d)
		}
	}
	if d, err := ParseTimeout("90s"); err != nil || d.Seconds() != 90 {
		t.Errorf("ParseTimeout(90s) = %v, %v", d, err)
	}
}

// TestUnreadableConfigFileGetsAFixThatMendsIt: a config file that cannot
// be read is said once by its path, with the reason alone, and the fix
// makes it readable; "change the config file as the message says" would
// mend nothing.
func TestUnreadableConfigFileGetsAFixThatMendsIt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	e := unreadableFile(p, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission})
	if got := e.Error(); got != "the config file "+p+" cannot be read by you (permission denied)" {
		t.Errorf("message %q", got)
	}
	if got := LoadFix(e); got != "make it readable by you, such as with `chmod u+r "+p+"`" {
		t.Errorf("fix %q", got)
	}
}

// TestNoHomeSaysWhatToGive: with HOME unset there is no default database
// folder, and the fix says what to give instead.
func TestNoHomeSaysWhatToGive(t *testing.T) {
	_, err := Load(Flags{}, func(string) string { return "" })
	if err == nil {
		t.Fatal("Load with no HOME and no --db: no error")
	}
	home := "HOME"
	if runtime.GOOS == "windows" {
		home = "LocalAppData"
	}
	if got, want := LoadFix(err), "give --db FILE or set JARVIS_DB (or "+home+")"; got != want {
		t.Errorf("fix = %q; want %q", got, want)
	}
	if !strings.Contains(err.Error(), home+" is not set") {
		t.Errorf("error = %q; want it to say %s is not set", err, home)
	}
}
