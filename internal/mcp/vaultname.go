package mcp

import (
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// noVaultNamed refuses the vault name given, which none of vaults has:
// the one vault there is, or the one the name is a typo of, as a
// question; else every name. orEmpty, when a tool reads every vault
// without one, says so after a list of several.
func noVaultNamed(name string, vaults []config.Vault, orEmpty string) error {
	names := config.Names(vaults)
	msg := fmt.Sprintf("there is no vault named %s", quoteArg(name))
	switch near := words.Nearest(name, names, 2); {
	case len(names) == 0:
		return fmt.Errorf("%s: this server serves no vault", msg)
	case len(names) == 1:
		return fmt.Errorf("%s; did you mean %q? It is the only vault served", msg, names[0])
	case near != "":
		return fmt.Errorf("%s; did you mean %q? The vaults are %s%s", msg, near, words.Quoted(names), orEmpty)
	}
	return fmt.Errorf("%s; use one of %s%s", msg, words.QuotedOr(names), orEmpty)
}
