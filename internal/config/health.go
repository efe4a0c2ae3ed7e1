package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Checks are the configuration's contributions to doctor: where the settings
// came from, that no two vaults index the same notes (Config.Overlap), and
// that every vault folder exists and can be read. readFix is the command
// that lets this user read a file or folder (index.ReadFix), for an
// Obsidian settings file that cannot be read.
func Checks(cfg Config, readFix func(path string) string) []health.Check {
	return []health.Check{
		{Name: "configuration", Order: 10, Gates: true, Run: func(context.Context) []health.Result {
			file := "no config file"
			if cfg.File != "" {
				file = "config file " + cfg.File
			}
			if len(cfg.Vaults) == 0 {
				// index --rebuild takes the vaults the database holds.
				return []health.Result{{Status: health.Fail,
					Detail:        fmt.Sprintf("no vault configured (%s)", file),
					Fix:           cfg.NoVaultFix(os.Getenv),
					SparesRebuild: true}}
			}
			if o := cfg.Overlap(); o != nil {
				return []health.Result{{Status: health.Fail, Detail: o.Detail(), Fix: o.Fix()}}
			}
			names := make([]string, len(cfg.Vaults))
			for i, v := range cfg.Vaults {
				names[i] = v.Name
			}
			return []health.Result{{Status: health.OK, Detail: fmt.Sprintf("%s; vaults %s from %s; database %s from %s",
				file, strings.Join(names, ", "), cfg.VaultSource, cfg.DBPath, cfg.DBSource)}}
		}},
		{Name: "vault", Order: 20, Gates: true, Run: func(context.Context) []health.Result {
			var out []health.Result
			for _, v := range cfg.Vaults {
				out = append(out, vaultResult(v, cfg.VaultOrigin(), readFix))
			}
			return out
		}},
	}
}

// vaultResult is the vault check of v; origin is where the vaults were
// given (Config.VaultOrigin), which a missing folder's fix names; readFix
// is as for Checks.
func vaultResult(v Vault, origin string, readFix func(path string) string) health.Result {
	r := health.Result{Name: "vault " + v.Name, Status: health.OK, Detail: v.Path}
	if why, fix := v.Unreadable(); why != "" {
		r.Status, r.Detail, r.Fix = health.Fail, why, fix
		if os.IsNotExist(v.statErr()) {
			r.Fix = "check the path given with " + origin + ": correct it if it is mistyped, or put the folder back if it was moved"
		}
		return r
	}
	if len(v.Exclude) > 0 {
		r.Detail += " (with " + vault.ExcludeWords(v.Exclude) + ")"
	}
	if v.ObsidianProblem != "" {
		r.Status = health.Warn
		r.Detail += "; " + v.ObsidianProblem
		r.Fix = "correct the excluded files in Obsidian (Settings → Files and links → Excluded files), or " + vault.AppSettingsFile + " in the vault"
		if v.ObsidianUnreadable {
			// Nothing in the setting is wrong: jarvis may not read it.
			r.Fix = "run " + readFix(v.ObsidianUnknown)
		}
	}
	return r
}

func (v Vault) statErr() error {
	_, err := os.Stat(v.Path)
	return err
}

// Unreadable says why the vault's folder cannot be read, and what to do,
// or "" when it can. The vault check reports it; the checks that need the
// folder say they were not made.
func (v Vault) Unreadable() (why, fix string) {
	st, err := os.Stat(v.Path)
	switch {
	case os.IsNotExist(err):
		return fmt.Sprintf("%s does not exist", v.Path), "check the path given with --vault, " + EnvVault + " or the config file"
	case err != nil:
		return err.Error(), "check the permissions of the vault folder"
	case !st.IsDir():
		return fmt.Sprintf("%s is a file, not a folder", v.Path), "give the vault's folder, the one that holds .obsidian/"
	}
	// One entry is enough to know the folder can be listed; health-status
	// asks on every call, and a vault may hold thousands of files at its
	// top.
	f, err := os.Open(v.Path)
	if err == nil {
		_, err = f.ReadDir(1)
		f.Close()
		if errors.Is(err, io.EOF) { // empty
			err = nil
		}
	}
	if err != nil {
		return fmt.Sprintf("%s cannot be read: %v", v.Path, err), "check the permissions of the vault folder"
	}
	return "", ""
}
