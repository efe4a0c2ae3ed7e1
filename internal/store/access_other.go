//go:build !unix

package store

// ProbeFile asks the system what this process may do with path. Without
// user ids to compare, a file is read-only when its read-only attribute is
// set; Windows ignores that attribute on folders.
func ProbeFile(path string) (FileAccess, error) {
	fa, st, err := statAccess(path)
	if err != nil || !fa.Exists {
		return fa, err
	}
	fa.Read = true
	fa.Write = fa.IsDir || st.Mode().Perm()&0o200 != 0
	return fa, nil
}

func currentUser() int { return -1 }
