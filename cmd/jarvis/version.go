package main

import (
	"context"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// installCommand installs jarvis from a clone of its repository, as the
// README's Install section gives it and as messages that ask for an
// installed jarvis suggest it. -buildvcs=true records the commit, so that
// `jarvis version` names it, even where GOFLAGS=-buildvcs=false is set.
const installCommand = "CGO_ENABLED=0 go install -buildvcs=true ./cmd/jarvis"

// version, when set at build time with -ldflags "-X main.version=...", is
// reported as it is; otherwise the version comes from the build information
// the Go toolchain records in the binary.
var version string

// buildVersion is the version jarvis reports, in `jarvis version` and to
// MCP clients, and the time of its commit when it is a commit ("" when not).
func buildVersion() (string, string) {
	if version != "" {
		return version, ""
	}
	return buildInfoVersion()
}

// buildInfoVersion reads the build information once: it does not change
// while the process runs.
var buildInfoVersion = sync.OnceValues(func() (string, string) {
	bi, _ := debug.ReadBuildInfo()
	return versionFromBuildInfo(bi)
})

// unknownVersion is the version of a build that records none.
const unknownVersion = "unknown"

// pseudoVersion matches the versions the go command makes up for a commit
// that has no tag, such as v0.0.0-20261124051136-5e552cc24432: they carry a
// timestamp and 12 hex digits of the commit.
var pseudoVersion = regexp.MustCompile(`(^|[-.])\d{14}-[0-9a-f]{12}$`)

// versionFromBuildInfo names the build bi describes. A tagged module
// version (go install ...@v1.2.0, or a build at a tagged commit) is given as
// it is. A build from a git checkout gives the first 12 hex digits of its
// commit, with "-dirty" when the working tree had changes, and the commit's
// time; the pseudo-version Go derives for such a build says the same less
// plainly. A pseudo-version without version control information (go install
// of an untagged commit) is given as it is, since it names the commit too.
// "unknown" is left for builds that carry neither, such as one made with
// -buildvcs=false or in a git worktree, where Go records no commit.
func versionFromBuildInfo(bi *debug.BuildInfo) (v, commitTime string) {
	if bi == nil {
		return unknownVersion, ""
	}
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			commitTime = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	mod := bi.Main.Version
	tagged := mod != "" && mod != "(devel)" && !pseudoVersion.MatchString(strings.TrimSuffix(mod, "+dirty"))
	if tagged || (mod != "" && mod != "(devel)" && revision == "") {
		return mod, ""
	}
	if revision == "" {
		return unknownVersion, ""
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "-dirty"
	}
	return revision, commitTime
}

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("version", "jarvis version",
		`Print the version of jarvis: the release tag it was built from, or else
the commit (with -dirty when the working tree had changes) and its time.`, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	v, at := buildVersion()
	if at != "" {
		fmt.Fprintf(e.stdout, "jarvis %s (commit of %s)\n", v, at)
		return nil
	}
	if v == unknownVersion {
		// Said on the same line, so that a script reading the first
		// words still reads "jarvis unknown".
		fmt.Fprintf(e.stdout, "jarvis %s (this build records no release tag or commit; `%s` in a git clone, not a worktree, records the commit)\n", v, installCommand)
		return nil
	}
	fmt.Fprintf(e.stdout, "jarvis %s\n", v)
	return nil
}
