package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// EnvModels names the environment variable that moves the models folder.
const EnvModels = "JARVIS_MODELS"

// ManifestFile is the name of the file, in each installed model's folder,
// that records what was installed.
const ManifestFile = "jarvis-model.json"

// stagingDir is the folder, inside the models folder, where downloads are
// kept until every file is verified; a partial file there is resumed.
const stagingDir = ".staging"

// defaultFile holds the name of the default model.
const defaultFile = "default"

var (
	// ErrNotInstalled means a known model, or an owner/name, has no folder
	// in the models folder yet.
	ErrNotInstalled = errors.New("model not installed")
	// ErrUnknownModel means a name is neither a catalogue model, an
	// owner/name on the hub, nor a model folder.
	ErrUnknownModel = errors.New("unknown model")
)

// ModelsDirError is a JARVIS_MODELS that names something other than a
// folder, such as a model file.
type ModelsDirError struct{ Path string }

// Detail says what is wrong, after the variable's name.
func (e *ModelsDirError) Detail() string {
	return fmt.Sprintf("names %s, which is a file, not a folder; give a folder for models, or unset it to use the default", e.Path)
}

func (e *ModelsDirError) Error() string { return EnvModels + " " + e.Detail() }

// Dir is the models folder: $JARVIS_MODELS when set, else jarvis/models in
// the user cache folder ($XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows). getenv is
// os.Getenv outside tests.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv(EnvModels); d != "" {
		if d == "~" || strings.HasPrefix(d, "~/") {
			if h := getenv("HOME"); h != "" {
				d = filepath.Join(h, d[1:])
			}
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(abs); err == nil && !st.IsDir() {
			return "", &ModelsDirError{Path: abs}
		}
		return abs, nil
	}
	var cache string
	switch runtime.GOOS {
	case "windows":
		cache = getenv("LocalAppData")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			cache = filepath.Join(h, "Library", "Caches")
		}
	default:
		cache = getenv("XDG_CACHE_HOME")
		if cache == "" {
			if h := getenv("HOME"); h != "" {
				cache = filepath.Join(h, ".cache")
			}
		}
	}
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("find the models folder: %w; set %s to a folder for models", err, EnvModels)
		}
		cache = c
	}
	return filepath.Join(cache, "jarvis", "models"), nil
}

// Manifest records what `jarvis model pull` installed in a model folder.
type Manifest struct {
	// Name is the catalogue name, or the repository for other models.
	Name string `json:"name"`
	Repo string `json:"repo"`
	// Revision is the revision asked for; Commit the commit the hub
	// served, when it said.
	Revision      string          `json:"revision"`
	Commit        string          `json:"commit,omitempty"`
	Kind          Kind            `json:"kind"`
	Layout        Layout          `json:"layout"`
	Dimensions    int             `json:"dimensions,omitempty"`
	QueryPrefix   string          `json:"query_prefix,omitempty"`
	PassagePrefix string          `json:"passage_prefix,omitempty"`
	Files         []InstalledFile `json:"files"`
	Size          int64           `json:"size"`
	InstalledAt   time.Time       `json:"installed_at"`
}

// InstalledFile is one verified file of an installed model.
type InstalledFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SHA256 is set for files the hub stores with LFS, GitSHA1 (the git
	// blob id) for the others: whichever the download was checked against.
	SHA256  string `json:"sha256,omitempty"`
	GitSHA1 string `json:"git_sha1,omitempty"`
}

// Installed is a model folder inside the models folder.
type Installed struct {
	// Path is the model's folder.
	Path string
	Manifest
	// ByHand is true for a folder with no manifest, put there by hand; its
	// Manifest holds only what the folder itself shows.
	ByHand bool
}

// folderName is the folder of a repository inside the models folder.
func folderName(repo string) string {
	return strings.ReplaceAll(repo, "/", "--")
}

// isRepoName reports whether s has the shape owner/name of a hub
// repository.
func isRepoName(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && validRepoPart(owner) && validRepoPart(name)
}

func validRepoPart(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 96 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// ReadManifest reads the manifest of an installed model folder.
func ReadManifest(modelDir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(modelDir, ManifestFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", filepath.Join(modelDir, ManifestFile), err)
	}
	return m, nil
}

// ListInstalled returns the models in the models folder dir, sorted by
// name. A folder without a manifest is listed when it holds a model in a
// layout jarvis runs (one downloaded by hand); anything else is skipped. A
// models folder that does not exist yet holds nothing.
func ListInstalled(dir string) ([]Installed, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read models folder: %w", err)
	}
	var out []Installed
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if in, ok := readInstalled(filepath.Join(dir, e.Name())); ok {
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b Installed) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out, nil
}

// readInstalled reads one model folder, with or without a manifest.
func readInstalled(p string) (Installed, bool) {
	m, err := ReadManifest(p)
	if err == nil {
		return Installed{Path: p, Manifest: m}, true
	}
	if !errors.Is(err, os.ErrNotExist) {
		return Installed{}, false
	}
	layout, err := LayoutOf(p)
	if err != nil {
		return Installed{}, false
	}
	repo := strings.Replace(filepath.Base(p), "--", "/", 1)
	m = Manifest{Name: repo, Repo: repo, Kind: layout.Kind(), Layout: layout}
	if known, ok := Lookup(repo); ok {
		m.Name, m.Repo, m.Dimensions = known.Name, known.Repo, known.Dimensions
		m.QueryPrefix, m.PassagePrefix = known.QueryPrefix, known.PassagePrefix
	}
	if st, err := os.Stat(p); err == nil {
		m.InstalledAt = st.ModTime()
	}
	return Installed{Path: p, Manifest: m, ByHand: true}, true
}

// findInstalled finds the folder of a model in dir by catalogue name,
// repository or folder name, ignoring case.
func findInstalled(dir, name string) (Installed, bool) {
	want := name
	if m, ok := Lookup(name); ok {
		want = m.Repo
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Installed{}, false
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if strings.EqualFold(e.Name(), folderName(want)) || strings.EqualFold(e.Name(), name) {
			return readInstalled(filepath.Join(dir, e.Name()))
		}
	}
	return Installed{}, false
}

// Resolve turns what a person gave as a model into the folder to load it
// from. A path to a model folder works anywhere a name does: an absolute
// path or one starting with ./ or ../ is always taken as a path, and any
// other existing folder that is not an installed model's name is too. A
// catalogue name or an owner/name resolves to its folder in the models
// folder dir; a model not installed yet is ErrNotInstalled, with the
// command that installs it.
func Resolve(dir, nameOrPath string) (string, error) {
	if nameOrPath == "" {
		return "", errorf(ErrUnknownModel, "no model given")
	}
	if explicitPath(nameOrPath) {
		return modelFolder(nameOrPath)
	}
	if in, ok := findInstalled(dir, nameOrPath); ok {
		return in.Path, nil
	}
	if st, err := os.Stat(nameOrPath); err == nil && st.IsDir() {
		return modelFolder(nameOrPath)
	}
	repo := nameOrPath
	if m, ok := Lookup(nameOrPath); ok {
		repo = m.Repo
	}
	if isRepoName(repo) {
		// A folder there that is not a model (files missing, copied by
		// hand) is reported as such, not as a model never installed.
		if _, err := os.Stat(filepath.Join(dir, folderName(repo))); err == nil {
			_, err := modelFolder(filepath.Join(dir, folderName(repo)))
			return "", err
		}
	}
	if m, ok := Lookup(nameOrPath); ok {
		return "", errorf(ErrNotInstalled, "model %s is not installed: run `jarvis model pull %s` (it downloads about %d MB into %s)",
			m.Name, m.Name, (m.Size+mb/2)/mb, dir)
	}
	if isRepoName(nameOrPath) {
		return "", errorf(ErrNotInstalled, "model %s is not installed: run `jarvis model pull %s`, or put its files in %s",
			nameOrPath, nameOrPath, filepath.Join(dir, folderName(nameOrPath)))
	}
	return "", errorf(ErrUnknownModel, "%q is not a model jarvis knows (`jarvis model list` shows them), a Hugging Face repository as owner/name, or a model folder",
		nameOrPath)
}

// explicitPath reports whether s can only be meant as a path.
func explicitPath(s string) bool {
	return filepath.IsAbs(s) || s == "." || s == ".." ||
		strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, `.\`) || strings.HasPrefix(s, `..\`)
}

// modelFolder checks that p is a folder holding a model jarvis can run and
// returns it made absolute.
func modelFolder(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("model folder %s: %w", abs, err)
	}
	if !st.IsDir() {
		return "", errorf(ErrUnknownModel, "model folder %s is a file; give the folder that holds the model's files", abs)
	}
	if _, err := LayoutOf(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// Remove deletes an installed model, found by catalogue name, repository
// or folder name, and any download of it left half-done. It returns the
// folder removed. When the model was the default, the default is cleared.
func Remove(dir, name string) (string, error) {
	in, ok := findInstalled(dir, name)
	if !ok {
		return "", errorf(ErrNotInstalled, "model %s is not installed in %s (`jarvis model list` shows what is)", name, dir)
	}
	if err := os.RemoveAll(in.Path); err != nil {
		return "", fmt.Errorf("remove model %s: %w", name, err)
	}
	_ = os.RemoveAll(filepath.Join(dir, stagingDir, filepath.Base(in.Path)))
	if def, ok := Default(dir); ok && (strings.EqualFold(def, in.Name) || strings.EqualFold(def, in.Repo) || strings.EqualFold(def, name)) {
		if err := os.Remove(filepath.Join(dir, defaultFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return in.Path, fmt.Errorf("clear the default model: %w", err)
		}
	}
	return in.Path, nil
}

// SetDefault records name as the model to use when no embedder is
// configured.
func SetDefault(dir, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "\n\r") {
		return errorf(ErrUnknownModel, "default model %q is not a model name", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create models folder: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, defaultFile), []byte(name+"\n"))
}

// Default is the model recorded by SetDefault, if any.
func Default(dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, defaultFile))
	if err != nil {
		return "", false
	}
	name := strings.TrimSpace(string(b))
	return name, name != ""
}

// writeFileAtomic writes data to a temporary file beside p and renames it
// over p, so a reader sees the old content or the new, never a mix.
func writeFileAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// Verify checks an installed model's files against the sizes and hashes
// its manifest recorded when it was pulled, so that a file changed or cut
// short since is found before it gives wrong vectors. A folder put there
// by hand has no manifest and nothing to check against; Verify says so
// with ErrNotInstalled.
func Verify(modelDir string) error {
	man, err := ReadManifest(modelDir)
	if err != nil {
		return errorf(ErrNotInstalled, "%s has no manifest to check its files against (it was not pulled with jarvis model pull)", modelDir)
	}
	for _, f := range man.Files {
		p := filepath.Join(modelDir, filepath.FromSlash(f.Path))
		if err := verify(p, plannedFile(f)); err != nil {
			return fmt.Errorf("model file %s: %w", p, err)
		}
	}
	return nil
}

// IsRepoName reports whether s is written as a hub repository, owner/name.
func IsRepoName(s string) bool { return isRepoName(s) }
