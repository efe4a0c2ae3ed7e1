package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
)

// ErrAccess means this user may not read or write the database's files or
// its folder. The database itself may be sound: a fresh index would not
// help, a change of permissions or owner would.
var ErrAccess = errors.New("the database cannot be used by this user")

// FileAccess is what this process may do with one file or folder.
type FileAccess struct {
	Exists bool
	IsDir  bool
	// Read and Write say whether this process may read and write it; for a
	// folder, Write means it may create and remove files in it.
	Read, Write bool
	// Owner is the user id that owns it; -1 where the system has none
	// (Windows).
	Owner int
}

// Probe looks at one path. ProbeFile asks the system; a test running as
// root, whom the system lets do anything, passes one of its own.
type Probe func(path string) (FileAccess, error)

// AccessProblem is one file or folder of the database that this user may
// not use as jarvis needs to.
type AccessProblem struct {
	Path string
	// Why is a sentence such as "cannot be written by you (owned by user 0)".
	Why string
	// Fix is the command that gives this user the access it lacks.
	Fix string

	// cmd is Fix's command without the path, for AccessFix to give one
	// command for every path that needs it; "" when Fix is no command.
	cmd string
	// read is whether this user may read it.
	read bool
	// missing is the folder, under Path, that would have to be made for
	// a database not created yet; "" when none.
	missing string
	// from is where the default database folder came from, when the
	// database is the default one and Path is that folder or lies in the
	// folder the setting names; its zero value otherwise.
	from config.DataOrigin
	// dataDir is the default database folder, when from is set.
	dataDir string
}

func (p AccessProblem) String() string {
	if p.from.Var != "" {
		said := "the default database folder " + p.dataDir + " comes from " + p.from.Var + "=" + p.from.Value
		if p.Path == p.from.Value {
			return said + ", which you cannot write"
		}
		return said + ", and " + p.Path + " " + p.Why
	}
	if p.missing != "" {
		return "the folder " + p.missing + " does not exist, and " + p.Path + " " + p.Why
	}
	return p.Path + " " + p.Why
}

// AccessProblems lists what keeps this user from using the database at
// dbPath as jarvis does: reading and writing the file and its -wal, -shm
// and .lock companions, and creating files in its folder (SQLite makes
// the -wal and -shm there; --rebuild makes a fresh database there). For a
// database not created yet, the nearest existing folder must be writable.
// Where dbPath is a symbolic link, or lies in a folder that is one, these
// are the real file's and its real folder's (config.RealPath), where
// SQLite makes its files. probe nil asks the system. It is the one access
// check: opening, doctor and the explanation of an error all ask it.
func AccessProblems(dbPath string, probe Probe) []AccessProblem {
	if probe == nil {
		probe = ProbeFile
	}
	from, _ := config.DefaultDBFrom(dbPath, getenv)
	return accessProblems(config.RealPath(dbPath), probe, currentUser(), from)
}

// getenv reads the environment, which names the default database folder.
var getenv = os.Getenv

// accessProblems lists the problems of the database at the real path
// dbPath; from is where it came from when it is the default database. A
// folder that the setting from names, or one inside it, is the user's
// own data folder: one whose mode a fix may change.
func accessProblems(dbPath string, probe Probe, me int, from config.DataOrigin) []AccessProblem {
	var out []AccessProblem
	add := func(path string, fa FileAccess, err error, fixable bool) {
		mine := from.Var != "" && fa.IsDir && config.Inside(path, config.RealPath(from.Value))
		if p, ok := diagnose(path, fa, err, me, fixable || mine); ok {
			if mine {
				p.from, p.dataDir = from, filepath.Dir(dbPath)
			}
			out = append(out, p)
		}
	}
	fa, err := probe(dbPath)
	if err == nil && !fa.Exists {
		// Not created yet: the nearest folder that exists must let jarvis
		// create the missing folders and the file.
		dir, missing := filepath.Dir(dbPath), ""
		for {
			d, derr := probe(dir)
			if derr != nil || d.Exists {
				n := len(out)
				add(dir, d, derr, missing == "" && onlyJarvisFiles(dir, dbPath))
				if len(out) > n {
					out[n].missing = missing
				}
				return out
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return out
			}
			dir, missing = parent, dir
		}
	}
	dir := filepath.Dir(dbPath)
	d, derr := probe(dir)
	add(dir, d, derr, onlyJarvisFiles(dir, dbPath))
	add(dbPath, fa, err, true)
	for _, suffix := range []string{"-wal", "-shm", ".lock"} {
		if fa, err := probe(dbPath + suffix); err != nil || fa.Exists {
			add(dbPath+suffix, fa, err, true)
		}
	}
	return out
}

// onlyJarvisFiles reports whether dir, the database's folder, holds
// nothing but the database at dbPath and the files jarvis makes beside it
// (its -wal, -shm, -journal and .lock, a rebuild's file, the backups of
// --rebuild): the one folder whose owner or mode a fix may change. A
// folder that holds anything else is not jarvis's to change (/, /usr, a
// shared folder), nor is one that cannot be listed.
func onlyJarvisFiles(dir, dbPath string) bool {
	if filepath.Dir(dbPath) != dir {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	base := filepath.Base(dbPath)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base)
		if !ok {
			return false
		}
		switch {
		case rest == "", rest == "-wal", rest == "-shm", rest == "-journal", rest == ".lock",
			strings.HasPrefix(rest, freshSuffix), strings.HasPrefix(rest, ".broken-"), strings.HasPrefix(rest, ".newer-"):
		default:
			return false
		}
	}
	return true
}

// diagnose decides whether one existing path keeps this user (uid me, or
// -1 where the system has no user ids) from using it, and how to give the
// access back: chmod when the user owns it, chown when someone else does
// (typically root, after a `sudo jarvis index`). Only a path jarvis made
// (fixable) gets such a command: for any other folder the fix is another
// --db.
func diagnose(path string, fa FileAccess, err error, me int, fixable bool) (AccessProblem, bool) {
	p := AccessProblem{Path: path, read: fa.Read || fa.IsDir}
	if err != nil {
		if !errors.Is(err, fs.ErrPermission) {
			return p, false // not a question of permissions; opening says more
		}
		p.Why = "cannot be looked at by you: a folder above it cannot be searched"
		p.Fix = "give yourself access to the folders above " + health.Quote(path) + ", or choose another --db"
		return p, true
	}
	if !fa.Exists {
		return p, false
	}
	if fa.IsDir && !fa.Write {
		p.Why = "is a folder you cannot create files in"
	} else if !fa.IsDir {
		switch {
		case !fa.Read && !fa.Write:
			p.Why = "can be neither read nor written by you"
		case !fa.Read:
			p.Why = "cannot be read by you"
		case !fa.Write:
			p.Why = "is read-only for you"
		default:
			return p, false
		}
	} else {
		return p, false
	}
	if owner := ownedByOther(fa, me); owner != "" {
		p.Why += fmt.Sprintf(" (it belongs to %s, not to you)", owner)
	}
	switch {
	case !fixable:
		p.Fix = chooseAnother
		return p, true
	case fa.Owner < 0:
		p.cmd = "attrib -r"
	case me >= 0 && fa.Owner != me:
		p.cmd = "sudo chown $USER"
	case fa.IsDir:
		p.cmd = "chmod u+rwx"
	default:
		p.cmd = "chmod u+rw"
	}
	p.Fix = "`" + p.cmd + " " + health.Quote(path) + "`"
	return p, true
}

// OwnedByOther names the user who owns a file of another user than this
// process's (fa from ProbeFile), such as "root", for a fix that changes
// its owner rather than its mode, which only its owner may; "" when the
// file is this user's or the system cannot tell.
func OwnedByOther(fa FileAccess) string { return ownedByOther(fa, currentUser()) }

func ownedByOther(fa FileAccess, me int) string {
	if me >= 0 && fa.Owner >= 0 && fa.Owner != me {
		return ownerName(fa.Owner)
	}
	return ""
}

// ownerName is the name of the user with id uid, such as "root", where
// the system can tell it, and "user id 1001" where it cannot.
func ownerName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return fmt.Sprintf("user id %d", uid)
}

// accessError is the error for problems found: ErrAccess, explained with
// what is wrong with each path and the one command that fixes them.
func accessError(dbPath string, problems []AccessProblem) error {
	return &Error{err: ErrAccess, Explanation: Explanation{Kind: KindAccess,
		Why: describe(problems), Fix: AccessFix(problems), Readable: readable(dbPath, problems)}}
}

func describe(problems []AccessProblem) string {
	why := make([]string, len(problems))
	for i, p := range problems {
		why[i] = p.String()
	}
	return strings.Join(why, "; ")
}

// AccessFix is one line saying what to run for problems, or to choose
// another database. The paths that need the same command share it, and
// the commands are joined with && into one, to paste once: a fix that
// names the file but not its -wal would need a second round.
func AccessFix(problems []AccessProblem) string {
	var cmds, other []string
	paths := map[string][]string{}
	for _, p := range problems {
		if p.cmd == "" {
			if !slices.Contains(other, p.Fix) {
				other = append(other, p.Fix)
			}
			continue
		}
		if _, ok := paths[p.cmd]; !ok {
			cmds = append(cmds, p.cmd)
		}
		paths[p.cmd] = append(paths[p.cmd], health.Quote(p.Path))
	}
	// chown first: a chmod of a file another user owns fails.
	slices.SortStableFunc(cmds, func(a, b string) int {
		return cmpBool(!strings.Contains(a, "chown"), !strings.Contains(b, "chown"))
	})
	if len(other) > 0 {
		// A path jarvis may not change: a command for the others would
		// not be enough, and each such fix offers another --db itself.
		return strings.Join(other, "; ")
	}
	var lines []string
	for _, c := range cmds {
		lines = append(lines, c+" "+strings.Join(paths[c], " "))
	}
	for _, p := range problems {
		if p.from.Override != "" {
			return "run `" + strings.Join(lines, " && ") + "`, set " + p.from.Override + " to a folder you may write, or give --db"
		}
	}
	return "run `" + strings.Join(lines, " && ") + "`, or choose another database with --db"
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// statAccess fills in what os.Stat tells; the system-specific probes add
// the rest.
func statAccess(path string) (FileAccess, os.FileInfo, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return FileAccess{Owner: -1}, nil, nil
	}
	if err != nil {
		return FileAccess{Owner: -1}, nil, err
	}
	return FileAccess{Exists: true, IsDir: st.IsDir(), Owner: -1}, st, nil
}
