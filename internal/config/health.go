package config

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// Checks are the configuration's contributions to doctor: where the settings
// came from, and that every vault folder exists and can be read.
func Checks(cfg Config) []health.Check {
	return []health.Check{
		{Name: "configuration", Order: 10, Run: func(context.Context) []health.Result {
			file := "no config file"
			if cfg.File != "" {
				file = "config file " + cfg.File
			}
			if len(cfg.Vaults) == 0 {
				dir, _ := ConfigDir(os.Getenv)
				return []health.Result{{Status: health.Fail,
					Detail: fmt.Sprintf("no vault configured (%s)", file),
					Fix:    fmt.Sprintf("pass --vault PATH, set %s, or list vaults in %s", EnvVault, dir+string(os.PathSeparator)+"config.yaml")}}
			}
			names := make([]string, len(cfg.Vaults))
			for i, v := range cfg.Vaults {
				names[i] = v.Name
			}
			return []health.Result{{Status: health.OK, Detail: fmt.Sprintf("%s; vaults %s from %s; database %s from %s",
				file, strings.Join(names, ", "), cfg.VaultSource, cfg.DBPath, cfg.DBSource)}}
		}},
		{Name: "vault", Order: 20, Run: func(context.Context) []health.Result {
			var out []health.Result
			for _, v := range cfg.Vaults {
				out = append(out, vaultResult(v))
			}
			return out
		}},
	}
}

func vaultResult(v Vault) health.Result {
	r := health.Result{Name: "vault " + v.Name}
	st, err := os.Stat(v.Path)
	switch {
	case os.IsNotExist(err):
		r.Status, r.Detail = health.Fail, fmt.Sprintf("%s does not exist", v.Path)
		r.Fix = "check the path given with --vault, " + EnvVault + " or the config file"
		return r
	case err != nil:
		r.Status, r.Detail = health.Fail, err.Error()
		r.Fix = "check the permissions of the vault folder"
		return r
	case !st.IsDir():
		r.Status, r.Detail = health.Fail, fmt.Sprintf("%s is a file, not a folder", v.Path)
		r.Fix = "give the vault's folder, the one that holds .obsidian/"
		return r
	}
	if _, err := os.ReadDir(v.Path); err != nil {
		r.Status, r.Detail = health.Fail, fmt.Sprintf("%s cannot be read: %v", v.Path, err)
		r.Fix = "check the permissions of the vault folder"
		return r
	}
	r.Status, r.Detail = health.OK, v.Path
	return r
}
