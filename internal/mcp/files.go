package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Tools read vault files only through vault.Root, which opens a file
// beneath the vault folder and checks what it opened against the vault's
// rules, links followed included. These are the two ways they ask.

var (
	// errExcluded is a file the vault's rules keep out; keptOut words it
	// with the rule that applies.
	errExcluded = errors.New("that file is left out of jarvis, so it cannot be read; search-vault finds the notes that can")
	errOutside  = errors.New("the path leads outside the vault; give a path relative to the vault folder, such as Folder/Note.md")
)

// keptOut is how a tool says that a file is kept out by the vault's rules
// (err is vault.ErrLeftOut): errExcluded, naming the one rule that
// applies (vault.LeftOutWhy).
func keptOut(err error) error { return excludedError(vault.LeftOutWhy(err)) }

// excludedError is errExcluded with why the file is left out.
type excludedError string

func (e excludedError) Error() string {
	return fmt.Sprintf("that file is left out of jarvis %s, so it cannot be read; search-vault finds the notes that can", string(e))
}

func (e excludedError) Is(target error) bool { return target == errExcluded }

// excludedNote is keptOut for the note at rel in the vault named, which
// t.excluded keeps out: errExcluded alone when the vault is not served.
func (t *tools) excludedNote(vaultName, rel string) error {
	for _, v := range t.vaults {
		if v.Name != vaultName {
			continue
		}
		if rule, out := vault.LeftOutBy(rel, v.Exclude); out {
			return keptOut(&vault.LeftOutError{Rule: rule})
		}
	}
	return errExcluded
}

// outside is how a tool says that the path rel leads out of the vault
// (err is vault.ErrOutside): a path written outside gets errOutside, with
// the form to give; one written inside that a symbolic link leads out of
// is said to be that, as the path given was right.
func outside(rel string, err error) error {
	if errors.Is(err, vault.ErrLinkOutside) {
		return linkOutside(rel)
	}
	return errOutside
}

// linkOutside is a path inside the vault that a symbolic link on it leads
// out of. It is errOutside to callers that ask.
type linkOutside string

func (e linkOutside) Error() string {
	return fmt.Sprintf("%s is, or passes through, a symbolic link that leads outside the vault, where jarvis does not read; search-vault finds the notes that can be read", quoteArg(string(e)))
}

func (e linkOutside) Is(target error) bool { return target == errOutside }

// excluded reports whether the note at rel in the vault named is kept out
// of this server's answers: a vault it does not serve, or a path the
// vault's own rules keep out (vault.LeftOut, the rule of the scan and of
// every read). What a tool lists from the index passes through it, as the
// index may hold what other rules let in.
func (t *tools) excluded(vaultName, rel string) bool {
	for _, v := range t.vaults {
		if v.Name == vaultName {
			return vault.LeftOut(rel, v.Exclude)
		}
	}
	return true
}

// notePath returns the path of the note rel names in vault v, written with
// or without ".md" and in either Unicode normal form, when it exists. A
// path leading out of the vault is errOutside; one the vault keeps out is
// errExcluded.
func notePath(v config.Vault, rel string) (string, bool, error) {
	root, err := vault.OpenRoot(v.Path, v.Exclude)
	if err != nil {
		return "", false, nil // the vault check and list-vaults say why
	}
	for _, cand := range vault.PathForms(rel) {
		if !vault.IsNote(cand) {
			continue
		}
		_, _, err := root.Stat(cand)
		switch {
		case err == nil:
			return cand, true, nil
		case errors.Is(err, vault.ErrOutside):
			return "", false, outside(cand, err)
		case errors.Is(err, vault.ErrLeftOut):
			return "", false, keptOut(err)
		}
		// Not there, or a path no file can have (vault.ErrBadName): the
		// reference may still be a title or an alias, which the caller
		// looks up next.
	}
	return "", false, nil
}

// badName is how a tool says that a path given is one no file can have
// (vault.ErrBadName, which says why).
func badName(err error) error {
	return fmt.Errorf("%w; pass the vault-relative path that search results give", err)
}

// resolveOnDisk finds the note ref names without the index: in the files
// of each vault (the one named, or every one in turn), by the rules of
// link resolution, as a [[ref]] in a note at the vault root would. The
// index also knows aliases and titles; this knows paths and file names.
func resolveOnDisk(ctx context.Context, vaults []config.Vault, vaultName, ref string) (config.Vault, string, bool) {
	for _, v := range vaults {
		if vaultName != "" && v.Name != vaultName {
			continue
		}
		files, _, err := vault.Scan(ctx, v.Path, v.Exclude)
		if err != nil {
			continue
		}
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		if p, ok := vault.NewResolver(paths, nil).Resolve("", ref, false); ok && vault.IsNote(p) {
			return v, p, true
		}
	}
	return config.Vault{}, "", false
}

// readNote reads the note at rel in vault v, with the metadata of the file
// read, or an error worded for the model.
func readNote(v config.Vault, rel string) ([]byte, fs.FileInfo, error) {
	root, err := vault.OpenRoot(v.Path, v.Exclude)
	if err != nil {
		if why := index.FolderTrouble(v.Path); why != "" {
			return nil, nil, fmt.Errorf("vault %q cannot be read: %s", v.Name, why)
		}
		return nil, nil, fmt.Errorf("vault %q cannot be read (%s); list-vaults says more", v.Name, vault.ErrText(err))
	}
	data, info, warn, err := root.ReadNote(rel)
	if err != nil {
		return nil, nil, readFailure(v, rel, err)
	}
	if warn != "" {
		return nil, nil, &tooLargeError{rel: rel, warn: warn, size: info.Size()}
	}
	return data, info, nil
}

// readFailure words err, the failure to read the note at rel in vault v,
// for the model: what went wrong and what to do about it.
func readFailure(v config.Vault, rel string, err error) error {
	switch {
	case errors.Is(err, vault.ErrOutside):
		return outside(rel, err)
	case errors.Is(err, vault.ErrLeftOut):
		return keptOut(err)
	case errors.Is(err, vault.ErrBadName):
		return badName(err)
	case errors.Is(err, fs.ErrNotExist):
		return &readError{msg: fmt.Sprintf("note %s is gone from disk (renamed, moved or deleted?); search-vault finds notes by name", rel), err: err}
	case errors.Is(err, fs.ErrPermission):
		// Only the user's access fixes it, as doctor says.
		fix := index.ReadFix(filepath.Join(v.Path, filepath.FromSlash(rel)))
		return &readError{msg: fmt.Sprintf("note %s cannot be read (permission denied); run %s so that jarvis can read it", rel, fix), err: err}
	}
	return &readError{msg: fmt.Sprintf("note %s cannot be read (%s); search-vault finds notes by name", rel, vault.ErrText(err)), err: err}
}

// tooLargeError is a file over the size read-note reads (vault.MaxNoteSize),
// with its size, for readOther to say what the file is.
type tooLargeError struct {
	rel, warn string
	size      int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("note %s cannot be shown: %s", e.rel, e.warn)
}

// readError is a failed read worded for the model, still matching the
// cause (fs.ErrNotExist) for callers that answer a missing file their own
// way.
type readError struct {
	msg string
	err error
}

func (e *readError) Error() string { return e.msg }
func (e *readError) Unwrap() error { return e.err }
