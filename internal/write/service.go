package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Service carries out the write tools' requests over the vaults made
// writable: each request read, checked against its etag, recorded in the
// journal with the bytes it replaces, then applied through the vault's
// file layer all or nothing (ApplyJournalled: a write the journal cannot
// take is not made), and put in the index before it returns, so that
// every answer after it reflects it.
type Service struct {
	vaults  []config.Vault // the writable ones
	journal JournalDB
	parser  *vault.Parser
	reindex func(ctx context.Context, vault string) error
	log     *slog.Logger

	mu   sync.Mutex
	open map[string]*Vault
}

// NewService returns the write service over the writable vaults among
// vaults (config.Vault.Write), recording writes in journal and bringing
// the index up to date through reindex (the server's index pass of one
// vault) before a write returns.
func NewService(vaults []config.Vault, journal JournalDB, p *vault.Parser, reindex func(ctx context.Context, vault string) error, log *slog.Logger) *Service {
	var writable []config.Vault
	for _, v := range vaults {
		if v.Write {
			writable = append(writable, v)
		}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{vaults: writable, journal: journal, parser: p, reindex: reindex, log: log, open: map[string]*Vault{}}
}

// Writable names the vaults whose notes may be written.
func (s *Service) Writable() []string { return config.Names(s.vaults) }

// vault is the file layer of the writable vault named.
func (s *Service) vault(name string) (*Vault, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cv := range s.vaults {
		if cv.Name == name {
			// The folder is looked at on every write: it may have gone
			// since the vault was opened.
			if err := folderProblem(name, cv.Path); err != nil {
				delete(s.open, name)
				return nil, err
			}
			if v, ok := s.open[name]; ok {
				return v, nil
			}
			v, err := OpenVault(cv.Path, cv.Exclude)
			if err != nil {
				return nil, fmt.Errorf("vault %q cannot be written: %w", name, err)
			}
			s.open[name] = v
			return v, nil
		}
	}
	return nil, fmt.Errorf("vault %q is not writable", name)
}

// folderProblem is why the folder dir of the vault name cannot be
// written, as index.FolderTrouble says it; nil when it is there.
func folderProblem(name, dir string) error {
	if why := index.FolderTrouble(dir); why != "" {
		return fmt.Errorf("vault %q cannot be written: %s", name, why)
	}
	return nil
}

// Write carries out r.
func (s *Service) Write(ctx context.Context, r Request) (Result, error) {
	v, err := s.vault(r.Vault)
	if err != nil {
		return Result{}, err
	}
	ch, res, err := s.plan(ctx, v, r)
	if err != nil {
		return Result{}, err
	}
	res.Vault = r.Vault
	if r.By != "" {
		ch.Tool = r.By
	}
	if r.DryRun {
		return res, nil
	}
	applied, id, err := ApplyJournalled(ctx, s.journal, v, r.Vault, ch)
	if err != nil {
		return Result{}, err
	}
	for _, f := range applied.Files {
		switch {
		case r.Tool == ToolDelete && f.Path == r.Path:
			res.Trash, res.ETag = f.Final, ""
		case f.Final == res.Path:
			res.ETag = f.ETag
		}
	}
	res.Diff = ""
	res.Journal = id
	// Read your writes: every answer after this one sees the change.
	if s.reindex != nil {
		if err := s.reindex(ctx, r.Vault); err != nil && ctx.Err() == nil {
			s.log.Warn("the index was not brought up to date after a write", "vault", r.Vault, "err", err)
			res.Warnings = append(res.Warnings, "the note was written, but the index could not be brought up to date: searches may not show the change until the next index run")
		}
	}
	return res, nil
}

// plan works out the change r makes and the answer it gives, with the
// diff of every file it changes; nothing is written.
func (s *Service) plan(ctx context.Context, v *Vault, r Request) (Change, Result, error) {
	if v.IsFolder(ctx, r.Path) {
		return Change{}, Result{}, FolderError(r.Tool, r.Path, "")
	}
	if err := v.CheckPath(r.Path); err != nil {
		return Change{}, Result{}, err
	}
	res := Result{Path: r.Path}
	switch r.Tool {
	case ToolCreate:
		content := []byte(r.Content)
		if err := CheckSize(len(content)); err != nil {
			return Change{}, Result{}, err
		}
		if err := v.CheckNew(ctx, r.Path, ""); err != nil {
			return Change{}, Result{}, err
		}
		res.Diff = Diff(r.Path, nil, content)
		return Change{Tool: r.Tool, Files: []FileChange{{Path: r.Path, After: content}}}, res, nil
	}
	cur, etag, err := s.current(ctx, v, r)
	if err != nil {
		return Change{}, Result{}, err
	}
	res.ETag = etag
	switch r.Tool {
	case ToolEdit:
		if len(r.Edits) == 0 {
			return Change{}, Result{}, errors.New("no edits were given: pass edits, a list of edits to apply in order")
		}
		after, err := ApplyEdits(cur, r.Edits)
		if err != nil {
			return Change{}, Result{}, err
		}
		if bytes.Equal(after, cur) {
			return Change{}, Result{}, fmt.Errorf("%w: the edits leave %s as it is", ErrNoChange, r.Path)
		}
		res.Diff = Diff(r.Path, cur, after)
		res.Warnings = append(res.Warnings, dottedNames(r.Edits)...)
		res.Warnings = append(res.Warnings, kanbanWarnings(cur, r.Edits)...)
		return Change{Tool: r.Tool, Files: []FileChange{{Path: r.Path, Before: etag, After: after}}}, res, nil
	case ToolDelete:
		res.Diff = Diff(r.Path, cur, nil)
		return Change{Tool: r.Tool, Files: []FileChange{{Path: r.Path, Before: etag, Delete: true}}}, res, nil
	case ToolMove:
		return s.planMove(ctx, v, r, cur, etag, res)
	}
	return Change{}, Result{}, fmt.Errorf("unknown write %q", r.Tool)
}

// current reads the note r changes and checks it against the etag the
// caller read.
func (s *Service) current(ctx context.Context, v *Vault, r Request) ([]byte, string, error) {
	cur, etag, err := v.Read(ctx, r.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", &notFoundError{path: r.Path}
	}
	if err != nil {
		return nil, "", err
	}
	switch {
	case r.ETag == "":
		return nil, "", fmt.Errorf("%w: give the etag %s had when you read it (its etag now is %s), so that a change made since is not lost", ErrNoETag, r.Path, etag)
	case !IsETag(r.ETag):
		return nil, "", fmt.Errorf("%q %w (32 hexadecimal digits)", r.ETag, ErrBadETag)
	case r.ETag != etag:
		return nil, "", &MismatchError{Path: r.Path, Now: etag, Given: r.ETag, Of: s.noteWithETag(ctx, v, r.Vault, r.Path, r.ETag)}
	}
	return cur, etag, nil
}

// planMove is the change of a move: the note renamed, and every note
// whose links to it must change to keep leading to it.
func (s *Service) planMove(ctx context.Context, v *Vault, r Request, cur []byte, etag string, res Result) (Change, Result, error) {
	if folder, ok := strings.CutSuffix(strings.ReplaceAll(r.To, `\`, "/"), "/"); ok && strings.Trim(folder, "/") != "" {
		// A folder: the note goes into it under its own name.
		r.To = path.Join(folder, path.Base(r.Path))
	}
	if r.To == r.Path {
		return Change{}, Result{}, fmt.Errorf("%w: to is the note's own path, %s; give the new path", ErrNoChange, r.Path)
	}
	if v.IsFolder(ctx, r.To) {
		return Change{}, Result{}, FolderError(r.Tool, r.To, r.Path)
	}
	if err := v.CheckPath(r.To); err != nil {
		return Change{}, Result{}, err
	}
	if err := v.CheckNew(ctx, r.To, r.Path); err != nil {
		return Change{}, Result{}, err
	}
	m, err := s.vaultMove(ctx, v, r.Path, r.To)
	if err != nil {
		return Change{}, Result{}, err
	}
	rl, err := Relink(ctx, s.parser, m)
	if err != nil {
		return Change{}, Result{}, err
	}
	ch := Change{Tool: r.Tool}
	moved := false
	var diffs []string
	for _, fc := range rl.Files {
		if fc.Path == r.Path {
			fc.MoveTo, moved = r.To, true
			diffs = append(diffs, Diff(r.To, cur, fc.After))
		} else {
			res.Relinked = append(res.Relinked, fc.Path)
			old := noteData(m.Notes, fc.Path)
			diffs = append(diffs, Diff(fc.Path, old, fc.After))
		}
		ch.Files = append(ch.Files, fc)
	}
	if !moved {
		ch.Files = append([]FileChange{{Path: r.Path, Before: etag, MoveTo: r.To}}, ch.Files...)
	}
	for _, l := range rl.Stuck {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s line %d links to the note in a form that cannot be rewritten (a reference-style link or an escaped frontmatter value); it will no longer lead to it", l.Path, l.Line))
	}
	res.Path = r.To
	res.Diff = fmt.Sprintf("rename %s → %s\n", r.Path, r.To) + strings.Join(diffs, "")
	return ch, res, nil
}

// vaultMove reads what Relink needs of the vault: its files, every note's
// aliases and text.
func (s *Service) vaultMove(ctx context.Context, v *Vault, from, to string) (Move, error) {
	files, _, err := vault.Scan(ctx, v.Dir(), v.exclude)
	if err != nil {
		return Move{}, fmt.Errorf("list the vault's files: %w", err)
	}
	m := Move{From: from, To: to, Aliases: map[string][]string{}}
	for _, f := range files {
		m.Files = append(m.Files, f.Path)
		if !f.Note {
			continue
		}
		data, etag, err := v.Read(ctx, f.Path)
		if err != nil {
			if ctx.Err() != nil {
				return Move{}, ctx.Err()
			}
			continue // unreadable or gone since the scan: it links to nothing here
		}
		n, err := s.parser.Parse(ctx, f.Path, data)
		if err != nil {
			if ctx.Err() != nil {
				return Move{}, ctx.Err()
			}
		} else if len(n.Aliases) > 0 {
			m.Aliases[f.Path] = n.Aliases
		}
		m.Notes = append(m.Notes, NoteSource{Path: f.Path, Data: data, ETag: etag})
	}
	if !slices.Contains(m.Files, from) {
		m.Files = append(m.Files, from)
	}
	return m, nil
}

// noteData is the bytes of the note at p among notes.
func noteData(notes []NoteSource, p string) []byte {
	for _, n := range notes {
		if n.Path == p {
			return n.Data
		}
	}
	return nil
}

// noteWithETag is the note of vault v (named name), other than the one
// at not, whose etag is etag as it is on disk now: the note an etag given
// for another came from. The index finds the candidates; each is read to
// be sure. "" when there is none, or it cannot be told.
func (s *Service) noteWithETag(ctx context.Context, v *Vault, name, not, etag string) string {
	if s.journal == nil {
		return ""
	}
	paths, err := index.NotesByHash(ctx, s.journal, name, etag)
	if err != nil {
		return ""
	}
	for _, p := range paths {
		if p == not {
			continue
		}
		if _, now, err := v.Read(ctx, p); err == nil && now == etag {
			return p
		}
	}
	return ""
}

// MismatchError is a write refused because the etag given is not the
// note's etag now: the note changed since it was read, or the etag was
// never its own (made up, or another note's). It is an ErrStale, worded
// to be true either way.
type MismatchError struct {
	Path, Now, Given string
	// Of is the note whose etag, as it is now, Given is, when it is
	// another note's.
	Of string
}

func (e *MismatchError) Error() string {
	if e.Of != "" {
		return fmt.Sprintf("the etag given for %s, %s, is that of %s as it is now, not of %s (its etag now is %s)", PathText(e.Path), e.Given, PathText(e.Of), PathText(e.Path), e.Now)
	}
	return fmt.Sprintf("the etag given for %s, %s, does not match the note as it is now (its etag now is %s): the note changed since it was read, or the etag is not one it had", e.Path, e.Given, e.Now)
}

// Is makes a MismatchError an ErrStale.
func (e *MismatchError) Is(target error) bool { return target == ErrStale }
