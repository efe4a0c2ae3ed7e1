package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// watchTree adds a watch to dir and to every folder below it that the
// indexer reads. When listFiles is true (dir is new) it also returns the
// vault-relative paths of the files found, and leaves out folders watched
// already, whose files were listed when their watch was added. A watch is
// added before its folder is listed, so a file is either listed or reported
// by the watch, or both.
func (w *Watcher) watchTree(vs *vaultState, dir string, listFiles bool) []string {
	var files []string
	// fs.WalkDir over os.DirFS enters dir even when it is a symbolic link
	// to a folder, as a vault folder may be; links below it are not
	// followed.
	_ = fs.WalkDir(os.DirFS(dir), ".", func(sub string, d fs.DirEntry, err error) error {
		p := filepath.Join(dir, filepath.FromSlash(sub))
		if err != nil {
			// Gone or unreadable since the event: the indexer meets the
			// same and reports it.
			w.log.Debug("cannot read vault folder", "vault", vs.name, "path", p, "err", err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, ok := vs.rel(p)
		if !ok {
			return nil
		}
		if !d.IsDir() {
			if listFiles && !vs.filter.skipFile(rel) {
				files = append(files, rel)
			}
			return nil
		}
		if p != dir && vs.filter.skipFolder(rel) {
			return fs.SkipDir
		}
		if w.watched[p] {
			if listFiles {
				return fs.SkipDir
			}
			return nil
		}
		w.watch(vs, p)
		return nil
	})
	return files
}

// watch adds a watch to one folder. A folder that hits the system's limit is
// remembered for the Fallback retries; one that vanished meanwhile is not.
func (w *Watcher) watch(vs *vaultState, dir string) {
	var err error
	if w.opts.failWatch != nil {
		err = w.opts.failWatch(dir)
	}
	if err == nil {
		err = w.fw.Add(dir)
	}
	switch {
	case err == nil:
		w.watched[dir] = true
		delete(w.unwatched, dir)
	case errors.Is(err, fs.ErrNotExist):
	case limitReached(err):
		w.unwatched[dir] = true
		if !w.limitHit {
			w.limitHit = true
			w.limitErr = err
		}
		if w.limitWarned {
			w.log.Debug("cannot watch folder", "vault", vs.name, "path", dir, "err", err)
		} else if w.started.Load() {
			w.warnLimit()
		}
	default:
		w.log.Warn("cannot watch folder; changes in it are seen at the next start",
			"vault", vs.name, "path", dir, "err", err)
	}
}

// limitReached reports whether adding a watch failed on a system limit:
// inotify's watch count on Linux, or open files where every watch holds a
// file descriptor (kqueue on macOS and the BSDs).
func limitReached(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// limitAdvice says how to raise the limit that err hit.
func limitAdvice(err error) string {
	if errors.Is(err, syscall.ENOSPC) {
		return "raise fs.inotify.max_user_watches, for example with `sudo sysctl fs.inotify.max_user_watches=524288` " +
			"(and a line in /etc/sysctl.d/ to keep it), then restart jarvis"
	}
	return "raise the limit on open files (ulimit -n, or launchctl limit maxfiles on macOS), then restart jarvis"
}

// warnLimit logs, once per Watcher, that some folders are not watched and
// what to do about it.
func (w *Watcher) warnLimit() {
	w.limitWarned = true
	seen := "at the next start"
	if w.opts.Fallback > 0 {
		seen = "by a full rescan every " + w.opts.Fallback.String()
	}
	w.log.Warn("the system's limit on file watches is reached: "+limitAdvice(w.limitErr),
		"unwatched_folders", len(w.unwatched), "changes_there_are_seen", seen, "err", w.limitErr)
}

// forget drops the watches of a folder that was removed or renamed and of
// every folder below it. Watches the kernel dropped already only make
// fsnotify's Remove return an error, which is of no interest.
func (w *Watcher) forget(name string) {
	if !w.watched[name] && !w.unwatched[name] {
		return
	}
	prefix := name + string(filepath.Separator)
	for p := range w.watched {
		if p == name || strings.HasPrefix(p, prefix) {
			delete(w.watched, p)
			_ = w.fw.Remove(p)
		}
	}
	for p := range w.unwatched {
		if p == name || strings.HasPrefix(p, prefix) {
			delete(w.unwatched, p)
		}
	}
}
