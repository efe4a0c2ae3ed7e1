package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	const rev = "5e552cc24432161c671ad3d0154c5eeb222cea1d"
	const at = "2026-11-24T05:11:36Z"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-compiler", Value: "gc"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at},
			{Key: "vcs.modified", Value: modified},
		}
	}
	info := func(mod string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/jarvis-mcp/jarvis", Version: mod}, Settings: settings}
	}
	for _, c := range []struct {
		name     string
		bi       *debug.BuildInfo
		want     string
		wantTime string
	}{
		{"tagged", info("v1.2.0", vcs("false")), "v1.2.0", ""},
		{"tagged, installed as a module", info("v1.2.0", nil), "v1.2.0", ""},
		{"tagged pre-release", info("v1.3.0-rc.1", vcs("false")), "v1.3.0-rc.1", ""},
		{"tagged with changes", info("v1.2.0+dirty", vcs("true")), "v1.2.0+dirty", ""},
		{"untagged clean", info("v0.0.0-20261124051136-5e552cc24432", vcs("false")), "5e552cc24432", at},
		{"untagged after a tag", info("v1.2.1-0.20261124051136-5e552cc24432", vcs("false")), "5e552cc24432", at},
		{"untagged dirty", info("v0.0.0-20261124051136-5e552cc24432+dirty", vcs("true")), "5e552cc24432-dirty", at},
		{"devel with a commit", info("(devel)", vcs("false")), "5e552cc24432", at},
		{"devel with a commit and changes", info("(devel)", vcs("true")), "5e552cc24432-dirty", at},
		{"untagged, installed as a module", info("v0.0.0-20261124051136-5e552cc24432", nil), "v0.0.0-20261124051136-5e552cc24432", ""},
		{"no version control information", info("(devel)", []debug.BuildSetting{{Key: "-compiler", Value: "gc"}}), "unknown", ""},
		{"no build information", nil, "unknown", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, gotTime := versionFromBuildInfo(c.bi)
			if got != c.want || gotTime != c.wantTime {
				t.Fatalf("versionFromBuildInfo = %q, %q; want %q, %q", got, gotTime, c.want, c.wantTime)
			}
		})
	}
}

// TestVersionOfBuildFromGitCheckout builds jarvis as a user does from a
// clone and checks that `jarvis version` names the commit checked out.
func TestVersionOfBuildFromGitCheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("git is not on PATH, so Go records no commit in the build")
		}
		t.Fatal("git is not on PATH; CI needs it to check the version of a build")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(root, ".git")); err == nil && !st.IsDir() && os.Getenv("CI") == "" {
		// In a linked worktree .git is a file, and the go command only
		// recognises a .git folder as a repository
		// (https://github.com/golang/go/issues/58218): it records no commit.
		t.Skip("this checkout is a git worktree, in which Go records no commit; run this test in a clone")
	}
	gitOut := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	head := gitOut("rev-parse", "HEAD")
	want := "jarvis " + head[:12]
	// The go command calls a tree with any change git status shows,
	// untracked files included, modified.
	if gitOut("status", "--porcelain") != "" {
		want += "-dirty"
	}

	bin := filepath.Join(t.TempDir(), "jarvis")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// -buildvcs=true overrides a GOFLAGS=-buildvcs=false of the machine:
	// this test is about the build a user gets by default.
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/jarvis")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("jarvis version: %v\n%s", err, out)
	}
	if got := string(out); !strings.HasPrefix(got, want+" (commit of ") {
		t.Fatalf("jarvis version printed %q; want %q and the commit's time", got, want)
	}
}

// TestVersionOfBuildWithoutOneSaysHowToGetOne: a build that records no
// tag or commit says how to make one that does, rather than a bare
// "jarvis unknown".
func TestVersionOfBuildWithoutOneSaysHowToGetOne(t *testing.T) {
	old := buildInfoVersion
	buildInfoVersion = func() (string, string) { return versionFromBuildInfo(nil) }
	t.Cleanup(func() { buildInfoVersion = old })

	code, stdout, stderr := jarvis(t, nil, "version")
	if code != 0 || !strings.HasPrefix(stdout, "jarvis unknown (") || !strings.Contains(stdout, "`"+installCommand+"`") {
		t.Fatalf("jarvis version: exit %d, %q %s; want \"jarvis unknown\" and the command that records the commit", code, stdout, stderr)
	}
}

// TestVersionSetAtBuildTimeWins: a version given with -ldflags "-X
// main.version=..." is what `jarvis version` prints and what the MCP
// server tells clients in its initialize answer.
func TestVersionSetAtBuildTimeWins(t *testing.T) {
	old := version
	version = "v1.2.3-test"
	t.Cleanup(func() { version = old })

	code, stdout, stderr := jarvis(t, nil, "version")
	if code != 0 || stdout != "jarvis v1.2.3-test\n" {
		t.Fatalf("jarvis version: exit %d, %q %s", code, stdout, stderr)
	}
	url, _ := startHTTP(t, nil)
	resp, body := post(t, url, initializeBody, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: HTTP %d: %s", resp.StatusCode, body)
	}
	// The answer is JSON, or one server-sent event holding it.
	if _, data, ok := strings.Cut(body, "data: "); ok {
		body = data
	}
	var answer struct {
		Result struct {
			ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.NewDecoder(strings.NewReader(body)).Decode(&answer); err != nil {
		t.Fatalf("initialize answer: %v: %s", err, body)
	}
	if got := answer.Result.ServerInfo; got.Name != "jarvis" || got.Version != "v1.2.3-test" {
		t.Fatalf("serverInfo = %+v; want jarvis v1.2.3-test", got)
	}
}
