//go:build unix

package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// releaseVersion is the version the release test stamps.
const releaseVersion = "v0.0.0-ci"

// bundleManifest is what the release test reads of a bundle's
// manifest.json.
type bundleManifest struct {
	Version string `json:"version"`
	Server  struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcp_config"`
	} `json:"server"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Type     string `json:"type"`
		Multiple bool   `json:"multiple"`
	} `json:"user_config"`
}

// TestReleaseForThisPlatform runs scripts/release.sh for this machine's
// platform into a temporary folder, as CI does (all five platforms take
// minutes more), and takes its bundle as Claude Desktop does: unpacked by
// the mcpb tool, the manifest validated by it, the command worked out from
// the manifest by it for two vault folders, and started with HOME and PATH
// only. The server must be this release's version, serve both vaults and
// list the tools the manifest names. The archive holds the binary,
// executable, and SHA256SUMS the hashes of every file made.
func TestReleaseForThisPlatform(t *testing.T) {
	dir := interopDir(t)
	node := nodeBinary(t, dir)
	mcpbCLI := filepath.Join(dir, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js")
	if _, err := os.Stat(mcpbCLI); err != nil {
		sharedtest.Missing(t, "the release test needs @anthropic-ai/mcpb from `npm ci --prefix test/interop`", err)
	}
	for _, tool := range []string{"bash", "zip"} {
		if _, err := exec.LookPath(tool); err != nil {
			sharedtest.Missing(t, "scripts/release.sh needs "+tool, err)
		}
	}
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64":
	default:
		t.Skipf("no release is made for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	out := t.TempDir()
	// Made from a copy whose git refuses to answer, as git does in a
	// clone owned by another user ("dubious ownership", exit status 128),
	// with Go's default -buildvcs=auto whatever this machine's GOFLAGS
	// say: every go build of the script must then leave VCS stamping out.
	// The manifest writer's did not, and the release failed.
	clone := releaseCopy(t)
	cmd := exec.Command("bash", filepath.Join(clone, "scripts", "release.sh"), releaseVersion, out)
	cmd.Env = append(os.Environ(), "JARVIS_RELEASE_TARGETS="+runtime.GOOS+"/"+runtime.GOARCH, "GOFLAGS=-buildvcs=auto")
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, log)
	}
	name := "jarvis-" + releaseVersion + "-" + runtime.GOOS + "-" + runtime.GOARCH

	t.Run("SHA256SUMS", func(t *testing.T) {
		checkSums(t, out, []string{name + ".mcpb", name + ".tar.gz"})
	})

	t.Run("archive", func(t *testing.T) {
		modes := tarModes(t, filepath.Join(out, name+".tar.gz"))
		if m, ok := modes[name+"/jarvis"]; !ok || m&0o111 == 0 {
			t.Errorf("the archive's binary: present %v, mode %o; want it executable, in %s/", ok, m, name)
		}
		if _, ok := modes[name+"/README.md"]; !ok {
			t.Errorf("the archive lacks the README: %v", modes)
		}
	})

	// Unpacked as Claude Desktop unpacks it.
	unpacked := filepath.Join(t.TempDir(), "bundle")
	mcpbTool(t, node, dir, mcpbCLI, "unpack", filepath.Join(out, name+".mcpb"), unpacked)
	bin := filepath.Join(unpacked, "jarvis")
	if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("the unpacked bundle's binary is not executable: %v %v", st, err)
	}
	if got, err := exec.Command(bin, "version").Output(); err != nil || string(got) != "jarvis "+releaseVersion+"\n" {
		t.Fatalf("jarvis version = %q, %v; want jarvis %s", got, err, releaseVersion)
	}
	manifestFile := filepath.Join(unpacked, "manifest.json")
	mcpbTool(t, node, dir, mcpbCLI, "validate", manifestFile)
	m := readBundleManifest(t, manifestFile)
	if m.Server.Type != "binary" || m.Server.EntryPoint != "jarvis" || m.Server.MCPConfig.Command != "${__dirname}/jarvis" ||
		!slices.Equal(m.Compatibility.Platforms, []string{runtime.GOOS}) || m.Version != strings.TrimPrefix(releaseVersion, "v") {
		t.Errorf("manifest: %+v", m)
	}
	if v := m.UserConfig["vaults"]; v.Type != "directory" || !v.Multiple {
		t.Errorf("user_config.vaults = %+v; want a list of folders", v)
	}

	// The command, as the mcpb library works it out from the manifest for
	// a user who chose two folders and no embedder.
	vaultA, vaultB := filepath.Join(t.TempDir(), "Work notes"), filepath.Join(t.TempDir(), "Home")
	sharedtest.WriteFile(t, vaultA, "Plan.md", "# Plan\nShip the release.\n")
	sharedtest.WriteFile(t, vaultB, "Garden.md", "# Garden\nWater the tomatoes.\n")
	resolve := exec.Command(node, "--input-type=module", "-e", `
import { readFileSync } from "node:fs";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";
const [manifestFile, extensionPath, ...vaults] = process.argv.slice(1);
const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
const config = await getMcpConfigForManifest({ manifest, extensionPath, systemDirs: {}, userConfig: { vaults }, pathSeparator: "/" });
process.stdout.write(JSON.stringify(config));
`, manifestFile, unpacked, vaultA, vaultB)
	resolve.Dir = dir
	resolved, err := resolve.Output()
	if err != nil {
		t.Fatalf("resolve the manifest's command: %v", err)
	}
	var entry serverEntry
	if err := json.Unmarshal(resolved, &entry); err != nil {
		t.Fatalf("%v: %s", err, resolved)
	}
	server := exec.Command(entry.Command, entry.Args...)
	server.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	for k, v := range entry.Env {
		server.Env = append(server.Env, k+"="+v)
	}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: server}, nil)
	if err != nil {
		t.Fatalf("start %s: %v", resolved, err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ServerInfo.Version; v != releaseVersion {
		t.Errorf("the server says it is version %q; want %s", v, releaseVersion)
	}
	var vaults mcp.ListVaultsOutput
	if !callTool(t, cs, mcp.ToolListVaults, map[string]any{}, &vaults) {
		t.Fatal("list-vaults answered with an error")
	}
	var served []string
	for _, v := range vaults.Vaults {
		served = append(served, v.Path)
	}
	want := []string{vaultA, vaultB}
	slices.Sort(served)
	slices.Sort(want)
	if !slices.Equal(served, want) {
		t.Errorf("the bundle's server serves %q; want %q", served, want)
	}
	var listed, named []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, tool.Name)
	}
	for _, tool := range m.Tools {
		named = append(named, tool.Name)
	}
	slices.Sort(listed)
	slices.Sort(named)
	if !slices.Equal(listed, named) {
		t.Errorf("the manifest names the tools %q; the server lists %q", named, listed)
	}

	// The manifests of the other systems, from the same writer.
	writer := filepath.Join(t.TempDir(), "mcpbmanifest")
	if log, err := exec.Command("go", "build", "-buildvcs=false", "-o", writer, "../../scripts/mcpbmanifest").CombinedOutput(); err != nil {
		t.Fatalf("build scripts/mcpbmanifest: %v\n%s", err, log)
	}
	for goos, platform := range map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"} {
		text, err := exec.Command(writer, "-version", releaseVersion, "-os", goos).Output()
		if err != nil {
			t.Fatalf("mcpbmanifest -os %s: %v", goos, err)
		}
		file := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.WriteFile(file, text, 0o644); err != nil {
			t.Fatal(err)
		}
		mcpbTool(t, node, dir, mcpbCLI, "validate", file)
		other := readBundleManifest(t, file)
		if !slices.Equal(other.Compatibility.Platforms, []string{platform}) {
			t.Errorf("%s: platforms %q; want only %s", goos, other.Compatibility.Platforms, platform)
		}
	}
}

// releaseCopy copies what scripts/release.sh builds from into a temporary
// folder beside an empty .git, which Go takes for a repository and git
// refuses to read (exit status 128).
func releaseCopy(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	clone := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && slices.Contains([]string{"cmd", "internal", "migrations", "scripts"}, name):
			sharedtest.CopyTree(t, filepath.Join(root, name), filepath.Join(clone, name))
		case !e.IsDir() && (name == "go.mod" || name == "go.sum" || name == "README.md" || strings.HasPrefix(name, "LICENSE")):
			copyFile(t, filepath.Join(root, name), filepath.Join(clone, name))
		}
	}
	if err := os.Mkdir(filepath.Join(clone, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "status")
	git.Dir = clone
	if err := git.Run(); err == nil {
		t.Fatal("git reads the copy's empty .git; the test would not show a build that needs it")
	}
	return clone
}

func readBundleManifest(t *testing.T, file string) bundleManifest {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m bundleManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

// mcpbTool runs the mcpb command line tool (@anthropic-ai/mcpb) with args.
func mcpbTool(t *testing.T, node, dir, cli string, args ...string) {
	t.Helper()
	cmd := exec.Command(node, append([]string{cli}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// checkSums checks that SHA256SUMS in dir lists exactly the files want,
// each with its hash.
func checkSums(t *testing.T, dir string, want []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var listed []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if hex.EncodeToString(h[:]) != sum {
			t.Errorf("SHA256SUMS gives %s for %s; it is %x", sum, name, h)
		}
		listed = append(listed, name)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("SHA256SUMS lists %q; want %q", listed, want)
	}
}

// tarModes maps each file of a .tar.gz to its mode.
func tarModes(t *testing.T, file string) map[string]int64 {
	t.Helper()
	modes := map[string]int64{}
	tr := tar.NewReader(bytes.NewReader(embedtest.Gunzip(t, file)))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return modes
		}
		if err != nil {
			t.Fatal(err)
		}
		modes[h.Name] = h.Mode
	}
}
