package health

import (
	"os"
	"runtime"
	"strings"
)

// Invocation is the flags the user ran jarvis with that choose what it
// works on (--config, --vault, --db, --embedder), as given. Fixes name
// jarvis commands through it, so that a command pasted from a fix works on
// the same vaults and database as the run that printed it.
type Invocation []string

// Command is the jarvis command line sub, with the user's flags and then
// args, quoted for a shell and put in backquotes.
func (inv Invocation) Command(sub string, args ...string) string {
	words := append([]string{"jarvis", sub}, inv...)
	words = append(words, args...)
	for i, w := range words {
		words[i] = Quote(w)
	}
	return "`" + strings.Join(words, " ") + "`"
}

// Forget is the command that drops vault name from the index. It leaves
// out each --vault of inv whose folder is missing: index stops at a vault
// folder it cannot find, so the command would fail as pasted, and the
// forgetting needs no vault. It asks for no vectors (--no-embed): a
// command given to drop a vault must not fail for an embedder that is
// not installed or not running, and the next run makes them.
func (inv Invocation) Forget(name string) string {
	var kept Invocation
	for i := 0; i < len(inv); i++ {
		if inv[i] == "--vault" && i+1 < len(inv) {
			if info, err := os.Stat(inv[i+1]); err != nil || !info.IsDir() {
				i++
				continue
			}
		}
		kept = append(kept, inv[i])
	}
	return kept.Command("index", "--no-embed", "--forget", name)
}

// Quote makes s one word for the user's shell: as it is when that is safe,
// otherwise in single quotes (POSIX shells) or double quotes (Windows).
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
