package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/reach"
)

// SettingError is a setting jarvis cannot use. It names where the value
// came from (the flag, the environment variable, or the config file and
// its key), since that is what the user has to change: a value set in
// the environment and forgotten is otherwise hard to find.
type SettingError struct {
	// Origin is where the value was given: "--db", "JARVIS_DB",
	// "embedder.timeout in the config file /home/ana/.config/jarvis/config.yaml",
	// or "the config file ..." for the file as a whole.
	Origin string
	// Detail follows Origin in the message: what is wrong with the value
	// and what to give instead ("is \"fast\", which is not a duration
	// such as 30s").
	Detail string
	// Remedy, when set, is the fix for a problem that changing the
	// setting would not mend (a config file that cannot be read).
	Remedy string
}

func (e *SettingError) Error() string { return e.Origin + " " + e.Detail }

// Fix is the one-line fix for doctor: change the setting where it was
// given, or the Remedy when there is one.
func (e *SettingError) Fix() string {
	if e.Remedy != "" {
		return e.Remedy
	}
	return "change " + e.Origin + " as the message says"
}

// LoadFix is the fix for a configuration that Load refused: the setting
// and where it was given, when err names one.
func LoadFix(err error) string {
	var se *SettingError
	if errors.As(err, &se) {
		return se.Fix()
	}
	return "correct the setting the message names"
}

// origin names where a setting came from: env when that variable is
// set, and otherwise key in the config file at file.
func origin(env, key, file string, getenv func(string) string) string {
	if env != "" && getenv(env) != "" {
		return env
	}
	return inFile(key, file)
}

// inFile names a config file key for a message.
func inFile(key, file string) string {
	if file == "" {
		return key + " in the config file"
	}
	return key + " in the config file " + file
}

// wholeFile names the config file as the origin of a problem that is not
// one setting's.
func wholeFile(file string) string {
	if file == "" {
		return "the config file"
	}
	return "the config file " + file
}

// dbOrigin names where the database path of cfg came from.
func dbOrigin(cfg Config) string {
	switch cfg.DBSource {
	case "flag":
		return "--db"
	case "env " + EnvDB:
		return EnvDB
	}
	return inFile("database", cfg.File)
}

// checkDBPath refuses a database path that names a folder: --db and its
// kin take the database file, and jarvis would otherwise fail later,
// naming the flag whatever set it.
func checkDBPath(cfg Config) error {
	if st, err := os.Stat(cfg.DBPath); err == nil && st.IsDir() {
		return &SettingError{Origin: dbOrigin(cfg),
			Detail: fmt.Sprintf("names the folder %s; give a file in it instead, such as %s", cfg.DBPath, filepath.Join(cfg.DBPath, "jarvis.db"))}
	}
	return nil
}

// ParseTimeout reads a time limit setting: a duration above 0, such as
// "30s" or "1h". It is the one rule for the embedder's timeouts, used
// when they are checked and when they are read.
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("is %q, which is not a duration", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("is %s, but a time limit must be above 0", s)
	}
	return d, nil
}

// checkEmbedder refuses embedder settings that cannot work, naming each
// where it was given (origin).
func checkEmbedder(e Embedder, file string, getenv func(string) string) error {
	for _, d := range []struct{ env, key, value, example string }{
		{EnvEmbedTimeout, "embedder.timeout", e.Timeout, "30s"},
		{EnvEmbedBatchTimeout, "embedder.batch_timeout", e.BatchTimeout, "3m"},
		{EnvEmbedRunTimeout, "embedder.run_timeout", e.RunTimeout, "1h"},
	} {
		if d.value == "" {
			continue
		}
		if _, err := ParseTimeout(d.value); err != nil {
			return &SettingError{Origin: origin(d.env, d.key, file, getenv), Detail: err.Error() + ": give one such as " + d.example}
		}
	}
	if (e.Provider == ProviderOllama || e.Provider == ProviderOpenAI) && e.URL != "" {
		if _, err := reach.ParseBaseURL(e.URL); err != nil {
			return &SettingError{Origin: origin(EnvEmbedURL, "embedder.url", file, getenv), Detail: err.Error()}
		}
	}
	var me *hub.ModelsDirError
	if _, err := hub.Dir(getenv); errors.As(err, &me) {
		return &SettingError{Origin: hub.EnvModels, Detail: me.Detail()}
	}
	return nil
}

// embedderOrigin names where the embedder's provider came from, by its
// Source.
func embedderOrigin(source, file string) string {
	switch source {
	case "flag":
		return "--embedder"
	case "env " + EnvEmbedder:
		return EnvEmbedder
	}
	return inFile("embedder.provider", file)
}

// fileError names the config file at p, and the key at fault when
// there is one, as the origin of a decoder's complaint.
func fileError(p string, err error) *SettingError {
	var se *shapeError
	switch {
	case errors.As(err, &se) && se.path != "":
		return &SettingError{Origin: inFile(se.path, p), Detail: se.detail, Remedy: se.fix(p)}
	case errors.As(err, &se):
		return &SettingError{Origin: wholeFile(p), Detail: se.detail, Remedy: se.fix(p)}
	}
	return &SettingError{Origin: wholeFile(p), Detail: "is " + err.Error()}
}
