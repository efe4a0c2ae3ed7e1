package hub

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PullOptions are the choices of one Pull.
type PullOptions struct {
	// Revision is the branch, tag or commit to download; empty means the
	// catalogue's pinned commit, or main for models not in the catalogue.
	Revision string
	// Progress, when not nil, is called as bytes arrive with the bytes of
	// the model's files present so far and their total.
	Progress func(done, total int64)
}

// PullResult says what Pull did.
type PullResult struct {
	Installed
	// AlreadyInstalled is true when the model was there at the revision
	// asked for, and nothing was downloaded.
	AlreadyInstalled bool
	// Downloaded is how many bytes came over the network in this pull; a
	// resumed download counts only what was missing.
	Downloaded int64
	// Note says what the pull did other than asked, for the user.
	Note string
}

// commitSHA matches a full commit id, the only kind of revision that
// cannot move.
var commitSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// plannedFile is a file to download with the hash it must have.
type plannedFile struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256,omitempty"`
	GitSHA1 string `json:"git_sha1,omitempty"`
}

// planFile is the staging folder's record of what its files are meant to
// be; a staging folder for another plan is started over.
const planFile = ".plan.json"

// Pull installs a model into the models folder dir: a catalogue name, or
// any owner/name on the hub whose files are in a layout jarvis runs. Every
// file goes to a staging folder first, resuming what an earlier pull left
// there; only when all are present and match the hashes the hub lists is
// the model moved into place, with a manifest. A file that does not match
// deletes the download and installs nothing.
func (c *Client) Pull(ctx context.Context, dir, name string, opts PullOptions) (PullResult, error) {
	known, isKnown := Lookup(name)
	if !isKnown && !isRepoName(name) {
		return PullResult{}, errorf(ErrUnknownModel, "%q is not a model jarvis knows (`jarvis model list` shows them) nor a Hugging Face repository as owner/name", name)
	}
	repo, display := name, name
	if isKnown {
		repo, display = known.Repo, known.Name
	}
	rev := opts.Revision
	if rev == "" {
		rev = known.Revision
	}
	if rev == "" {
		rev = "main"
	}
	folder := filepath.Join(dir, folderName(repo))
	what := "model " + display
	if rev != known.Revision {
		what += " at revision " + rev
	}

	if in, ok := readInstalled(folder); ok && !in.ByHand && commitSHA.MatchString(rev) && (in.Revision == rev || in.Commit == rev) {
		return PullResult{Installed: in, AlreadyInstalled: true}, nil
	}

	tree, err := c.listFiles(ctx, repo, rev, what)
	var note string
	if isKnown && opts.Revision == "" && errors.Is(err, ErrNotFound) {
		// The catalogue's commit is gone from the hub (a repository
		// rewritten, or a mirror that keeps only the branch): the current
		// main, its files checked against the hub's hashes as ever, is
		// better than no model.
		note = fmt.Sprintf("the hub has no commit %s of %s, the one jarvis pins; installed its current main instead", shortCommit(known.Revision), repo)
		rev, what = "main", what+" at revision main"
		tree, err = c.listFiles(ctx, repo, rev, what)
	}
	if err != nil {
		return PullResult{}, c.explain(err, display, repo, rev, folder, known.Layout)
	}
	byPath := make(map[string]treeEntry, len(tree))
	paths := make([]string, 0, len(tree))
	for _, e := range tree {
		byPath[e.Path] = e
		paths = append(paths, e.Path)
	}

	layout := known.Layout
	dims := known.Dimensions
	if !isKnown {
		var config []byte
		if _, ok := byPath["config.json"]; ok && !slices.Contains(paths, "0_StaticEmbedding/model.safetensors") {
			config, err = c.fetchSmall(ctx, repo, rev, "config.json", what)
			if err != nil {
				return PullResult{}, c.explain(err, display, repo, rev, folder, "")
			}
		}
		layout, err = DetectLayout(paths, config)
		if err != nil {
			return PullResult{}, fmt.Errorf("%s on the hub cannot be used: %w", repo, err)
		}
		dims = configDimensions(config)
	}
	files, err := layout.Files(paths)
	if err != nil {
		return PullResult{}, fmt.Errorf("%s at revision %s cannot be used: %w", repo, rev, err)
	}
	plan := make([]plannedFile, len(files))
	var total int64
	for i, p := range files {
		e := byPath[p]
		plan[i] = plannedFile{Path: p, Size: e.Size, GitSHA1: e.Oid}
		if e.LFS != nil {
			plan[i] = plannedFile{Path: p, Size: e.LFS.Size, SHA256: e.LFS.Oid}
		}
		if plan[i].SHA256 == "" && plan[i].GitSHA1 == "" {
			return PullResult{}, fmt.Errorf("the hub lists no hash for %s of %s, so its download cannot be checked", p, repo)
		}
		if plan[i].Size < 0 || plan[i].Size > maxModelBytes {
			return PullResult{}, fmt.Errorf("the hub lists %s of %s as %d bytes; jarvis runs models up to %d GB", p, repo, plan[i].Size, maxModelBytes>>30)
		}
		total += plan[i].Size
	}
	if total > maxModelBytes {
		return PullResult{}, fmt.Errorf("%s needs %d bytes of files; jarvis runs models up to %d GB", repo, total, maxModelBytes>>30)
	}

	if in, ok := readInstalled(folder); ok && !in.ByHand && sameFiles(in.Files, plan) {
		return PullResult{Installed: in, AlreadyInstalled: true, Note: note}, nil
	}

	unlock, err := lockModels(dir, display)
	if err != nil {
		return PullResult{}, err
	}
	defer unlock()
	staging := filepath.Join(dir, stagingDir, folderName(repo))
	if err := prepareStaging(staging, plan); err != nil {
		return PullResult{}, err
	}
	d := &download{c: c, repo: repo, rev: rev, what: what, total: total, progress: opts.Progress}
	for _, f := range plan {
		if err := d.file(ctx, staging, f); err != nil {
			if errors.Is(err, ErrHash) {
				os.RemoveAll(staging)
				cleanStagingRoot(dir)
			}
			return PullResult{Downloaded: d.downloaded}, c.explain(err, display, repo, rev, folder, layout)
		}
	}

	m := Manifest{
		Name: display, Repo: repo, Revision: rev, Commit: d.commit,
		Kind: layout.Kind(), Layout: layout, Dimensions: dims,
		QueryPrefix: known.QueryPrefix, PassagePrefix: known.PassagePrefix,
		Size: total, InstalledAt: time.Now().UTC().Truncate(time.Second),
	}
	for _, f := range plan {
		m.Files = append(m.Files, InstalledFile(f))
	}
	if err := install(dir, staging, folder, m); err != nil {
		return PullResult{Downloaded: d.downloaded}, err
	}
	return PullResult{Installed: Installed{Path: folder, Manifest: m}, Downloaded: d.downloaded, Note: note}, nil
}

// lockFileName is the file in the models folder that one pull at a time
// holds a lock on, so two pulls never write the same staging folder.
const lockFileName = ".pull.lock"

// ErrBusy means another process is pulling into the same models folder.
var ErrBusy = errors.New("models folder busy")

// lockModels takes the models folder's pull lock, or fails at once with
// ErrBusy when another process holds it.
func lockModels(dir, display string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create models folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFileName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock models folder: %w", err)
	}
	ok, err := lockFile(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("lock models folder: %w", err)
		}
		return nil, errorf(ErrBusy, "another jarvis is pulling a model into %s; pull %s again when it has finished", dir, display)
	}
	return func() { f.Close() }, nil
}

// explain adds to an error what the person can do about it: when the hub
// cannot be reached, where to put the files by hand.
func (c *Client) explain(err error, display, repo, rev, folder string, layout Layout) error {
	if !errors.Is(err, ErrOffline) {
		return err
	}
	files := "the model files"
	if rule, ok := rules[layout]; ok {
		var names []string
		for _, alts := range rule.required {
			names = append(names, strings.Join(alts, " or "))
		}
		files = strings.Join(names, ", ")
	}
	return errorf(ErrOffline, "%w. To install %s by hand, download %s from the hub repository %s (revision %s) on a machine that can reach the hub and put them in %s; "+
		"or put the model's folder anywhere and give its path wherever a model name goes (--embedder /path/to/folder)", err, display, files, repo, rev, folder)
}

// fetchSmall downloads a small file (a config) into memory.
func (c *Client) fetchSmall(ctx context.Context, repo, rev, p, what string) ([]byte, error) {
	u := c.fileURL(repo, rev, p)
	var lastErr error
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if attempt > 0 {
			if err := c.wait(ctx, attempt); err != nil {
				return nil, err
			}
		}
		resp, err := c.get(ctx, u, nil)
		if err != nil {
			if !isTransient(err) {
				return nil, err
			}
			lastErr = err
			continue
		}
		b, err := func() ([]byte, error) {
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return nil, c.statusError(resp, what+" (file "+p+")", repo)
			}
			return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		}()
		if err == nil || !isTransient(err) {
			return b, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// sameFiles reports whether an installed model's files are those planned.
func sameFiles(have []InstalledFile, plan []plannedFile) bool {
	if len(have) != len(plan) {
		return false
	}
	for i := range plan {
		if InstalledFile(plan[i]) != have[i] {
			return false
		}
	}
	return true
}

// prepareStaging makes the staging folder for plan, keeping what an
// earlier pull of the same files left there and starting over otherwise.
func prepareStaging(staging string, plan []plannedFile) error {
	want, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	if have, err := os.ReadFile(filepath.Join(staging, planFile)); err != nil || !bytes.Equal(have, want) {
		if err := os.RemoveAll(staging); err != nil {
			return fmt.Errorf("clear staging folder: %w", err)
		}
	}
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return fmt.Errorf("create staging folder: %w", err)
	}
	return writeFileAtomic(filepath.Join(staging, planFile), want)
}

// cleanStagingRoot removes the staging root when nothing is left in it.
func cleanStagingRoot(dir string) {
	_ = os.Remove(filepath.Join(dir, stagingDir)) // fails, harmlessly, when not empty
}

// install writes the manifest and moves the verified staging folder into
// place, replacing an older install of the same repository.
func install(dir, staging, folder string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(staging, planFile)); err != nil {
		return fmt.Errorf("finish staging folder: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(staging, ManifestFile), append(b, '\n')); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	var old string
	if _, err := os.Lstat(folder); err == nil {
		old = filepath.Join(dir, stagingDir, filepath.Base(folder)+".old-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		if err := os.Rename(folder, old); err != nil {
			return fmt.Errorf("move the installed %s aside: %w", m.Name, err)
		}
	}
	if err := os.Rename(staging, folder); err != nil {
		if old != "" {
			_ = os.Rename(old, folder)
		}
		return fmt.Errorf("install %s: %w", m.Name, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	cleanStagingRoot(dir)
	return nil
}

// download is one pull's file downloads and their shared progress.
type download struct {
	c           *Client
	repo, rev   string
	what        string
	done, total int64
	downloaded  int64
	commit      string
	progress    func(done, total int64)
}

func (d *download) report() {
	if d.progress != nil {
		d.progress(d.done, d.total)
	}
}

// file brings one file into staging: kept when already there and right,
// else resumed from its .part file, retried when the connection breaks.
func (d *download) file(ctx context.Context, staging string, f plannedFile) error {
	dst := filepath.Join(staging, filepath.FromSlash(f.Path))
	part := dst + ".part"
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("create staging folder: %w", err)
	}
	base := d.done
	if err := verify(dst, f); err == nil {
		d.done = base + f.Size
		d.report()
		return nil
	}
	_ = os.Remove(dst)

	var lastErr error
	for attempt := 0; attempt <= d.c.Retries; attempt++ {
		if attempt > 0 {
			if err := d.c.wait(ctx, attempt); err != nil {
				return err
			}
		}
		err := d.fetch(ctx, part, f, base)
		if err == nil {
			lastErr = nil
			break
		}
		if !isTransient(err) {
			return err
		}
		lastErr = err
	}
	if lastErr != nil {
		return fmt.Errorf("download %s of %s: %w (after %d tries; run the pull again to resume)", f.Path, d.what, lastErr, d.c.Retries+1)
	}
	if err := verify(part, f); err != nil {
		_ = os.Remove(part)
		return fmt.Errorf("%s of %s: %w; nothing was installed, and the bad download was deleted", f.Path, d.what, err)
	}
	if err := os.Rename(part, dst); err != nil {
		return fmt.Errorf("stage %s: %w", f.Path, err)
	}
	d.done = base + f.Size
	return nil
}

// fetch makes one attempt at the bytes of f missing from part; base is
// the progress made before this file.
func (d *download) fetch(ctx context.Context, part string, f plannedFile, base int64) error {
	have := int64(0)
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	if have > f.Size {
		have = 0
	}
	d.done = base + have
	d.report()
	if have == f.Size {
		return nil
	}
	header := http.Header{}
	if have > 0 {
		header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := d.c.get(ctx, d.c.fileURL(d.repo, d.rev, f.Path), header)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if d.commit == "" {
		d.commit = repoCommit(resp)
	}
	flags := os.O_WRONLY | os.O_CREATE
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0 && rangeStart(resp.Header.Get("Content-Range")) == have:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		// The server sent the whole file: start the part file over.
		have = 0
		d.done = base
		flags |= os.O_TRUNC
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		_ = os.Remove(part)
		return &transientError{fmt.Errorf("the hub refused to resume %s; starting it over", f.Path)}
	case resp.StatusCode == http.StatusPartialContent:
		_ = os.Remove(part)
		return &transientError{fmt.Errorf("the hub resumed %s at the wrong place; starting it over", f.Path)}
	default:
		return d.c.statusError(resp, fmt.Sprintf("%s (file %s)", d.what, f.Path), d.repo)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", part, err)
	}
	n, copyErr := io.Copy(out, io.LimitReader(&countingReader{r: resp.Body, d: d}, f.Size-have+1))
	closeErr := out.Close()
	if copyErr != nil {
		return copyErr
	}
	if closeErr != nil {
		return fmt.Errorf("write %s: %w", part, closeErr)
	}
	if have+n < f.Size {
		return &transientError{fmt.Errorf("the hub sent %d of %d bytes of %s", have+n, f.Size, f.Path)}
	}
	return nil
}

// repoCommit is the commit the hub says it served, from the response or
// from the redirect that led to it (the file storage does not repeat it).
func repoCommit(resp *http.Response) string {
	for r := resp; r != nil; {
		if c := r.Header.Get("X-Repo-Commit"); c != "" {
			return c
		}
		if r.Request == nil {
			break
		}
		r = r.Request.Response
	}
	return ""
}

// rangeStart is the first byte of a Content-Range of the form
// "bytes START-END/SIZE", or -1.
func rangeStart(h string) int64 {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return -1
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(start), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// countingReader counts bytes as they arrive, for progress.
type countingReader struct {
	r io.Reader
	d *download
}

func (cr *countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	if n > 0 {
		cr.d.done += int64(n)
		cr.d.downloaded += int64(n)
		cr.d.report()
	}
	return n, err
}

// maxModelBytes bounds what one pull downloads: the models jarvis runs on
// a CPU are well under it, and a listing claiming more is refused before a
// byte is written.
const maxModelBytes = 8 << 30

// verify checks the file at p against f's size and hash: the sha256 of the
// content for LFS files, the git blob id for the others.
func verify(p string, f plannedFile) error {
	file, err := os.Open(p)
	if err != nil {
		return err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return err
	}
	if st.Size() != f.Size {
		return errorf(ErrHash, "got %d bytes, the hub lists %d", st.Size(), f.Size)
	}
	var h hash.Hash
	want := f.SHA256
	if want != "" {
		h = sha256.New()
	} else {
		h = sha1.New()
		fmt.Fprintf(h, "blob %d\x00", f.Size)
		want = f.GitSHA1
	}
	if _, err := io.Copy(h, file); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, want) {
		return errorf(ErrHash, "its hash is %s, the hub lists %s", got, want)
	}
	return nil
}

func shortCommit(c string) string { return c[:min(len(c), 12)] }
