package store

import "strings"

// InVaults is an SQL condition keeping the rows whose vault_id column (col,
// such as "f.vault_id") is one of the named vaults, with its arguments; ""
// when names is empty. Searches use it to stay within the vaults a process
// serves, as one database may hold others.
func InVaults(col string, names []string) (string, []any) {
	switch len(names) {
	case 0:
		return "", nil
	case 1:
		return col + " = (SELECT id FROM vaults WHERE name = ?)", []any{names[0]}
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	return col + " IN (SELECT id FROM vaults WHERE name IN (?" + strings.Repeat(", ?", len(names)-1) + "))", args
}
