//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// nobody is the user id a test running as root hands its files to and runs
// jarvis as, so that permission bits apply.
const nobody = 65534

// user runs jarvis and shell commands as a user that permission bits
// apply to: this process when it is not root; when it is (as in CI), whom
// the system lets do anything, a child process running as nobody.
type user struct {
	t    *testing.T
	exe  string // the test binary, where nobody may run it; "" when not root
	home string
}

// newUser returns the user and a folder for its files.
func newUser(t *testing.T) (*user, string) {
	base := t.TempDir()
	u := &user{t: t, home: filepath.Join(base, "home")}
	if err := os.MkdirAll(u.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return u, base
	}
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	u.exe = filepath.Join(base, "jarvis.test")
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(u.exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	u.own(u.home)
	return u, base
}

// own hands a folder and everything in it to the user.
func (u *user) own(root string) {
	if u.exe == "" {
		return
	}
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		u.t.Fatal(err)
	}
}

func (u *user) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = []string{"HOME=" + u.home, "PATH=" + os.Getenv("PATH")}
	if u.exe != "" {
		cmd.Env = append(cmd.Env, "USER=nobody")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	return cmd
}

// jarvis runs one jarvis command line as the user.
func (u *user) jarvis(args ...string) (code int, stdout, stderr string) {
	u.t.Helper()
	if u.exe == "" {
		return jarvis(u.t, nil, args...)
	}
	cmd := u.command(u.exe)
	cmd.Env = append(cmd.Env, "JARVIS_TEST_ARGS="+strings.Join(args, "\x1f"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		u.t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// sh runs a command printed by a fix through the shell, as the user.
func (u *user) sh(command string) {
	u.t.Helper()
	if out, err := u.command("sh", "-c", command).CombinedOutput(); err != nil {
		u.t.Fatalf("%s: %v: %s", command, err, out)
	}
}

// TestDoctorTellsPermissionsFromDamage takes away the user's write access
// to the database's folder, then to the file: doctor says so and prints a
// chmod that, run as printed, makes it healthy again; it never offers
// --rebuild, and --rebuild moves nothing aside.
func TestDoctorTellsPermissionsFromDamage(t *testing.T) {
	u, base := newUser(t)
	vault := filepath.Join(base, "vault")
	sharedtest.WriteFile(t, vault, "A.md", "# A\n[[B]]\n")
	sharedtest.WriteFile(t, vault, "B.md", "# B\n")
	dir := filepath.Join(base, "data dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	u.own(base)
	db := filepath.Join(dir, "j.db")
	flags := []string{"--vault", vault, "--db", db}
	if code, _, stderr := u.jarvis(append([]string{"index"}, flags...)...); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	files := names(t, dir)

	doctor := func(t *testing.T, wantCode int, wantDetail string) string {
		t.Helper()
		code, stdout, _ := u.jarvis(append([]string{"doctor"}, flags...)...)
		if code != wantCode || !strings.Contains(stdout, wantDetail) {
			t.Fatalf("doctor: exit %d, want %d and %q:\n%s", code, wantCode, wantDetail, stdout)
		}
		if strings.Contains(stdout, "--rebuild") || strings.Contains(stdout, "not a usable jarvis database") {
			t.Fatalf("doctor takes a permission problem for damage:\n%s", stdout)
		}
		return stdout
	}

	t.Run("folder not writable", func(t *testing.T) {
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
		stdout := doctor(t, 2, "is a folder you cannot create files in")
		fix := fixFor(t, stdout, "database access")
		if want := "chmod u+rwx '" + dir + "'"; fix != want {
			t.Fatalf("fix = %q; want %q", fix, want)
		}
		code, _, stderr := u.jarvis(append([]string{"index", "--rebuild"}, flags...)...)
		if code == 0 || !strings.Contains(stderr, "chmod u+rwx") {
			t.Fatalf("index --rebuild: exit %d: %s", code, stderr)
		}
		if got := names(t, dir); !slices.Equal(got, files) {
			t.Fatalf("after --rebuild the folder holds %v; before %v", got, files)
		}
		u.sh(fix)
		doctor(t, 0, "healthy")
	})

	t.Run("file read-only", func(t *testing.T) {
		os.Chmod(db, 0o444)
		defer os.Chmod(db, 0o644)
		stdout := doctor(t, 2, "is read-only for you")
		fix := fixFor(t, stdout, "database access")
		u.sh(fix)
		doctor(t, 0, "healthy")
	})

	if u.exe != "" {
		t.Run("file of another user", func(t *testing.T) {
			os.Lchown(db, 0, 0)
			defer os.Lchown(db, nobody, nobody)
			stdout := doctor(t, 2, "belongs to root, not to you")
			if fix := fixFor(t, stdout, "database access"); fix != "sudo chown $USER '"+db+"'" {
				t.Fatalf("fix = %q", fix)
			}
		})
	}
}
