package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Notes are resources under jarvis://{vault}/{path}, the vault name and each
// path segment percent-encoded; the vault list is jarvis://vaults.
const (
	noteScheme    = "jarvis://"
	noteTemplate  = "jarvis://{vault}/{+path}"
	vaultsURI     = "jarvis://vaults"
	resourcesPage = 200
)

// NoteURI is the resource URI of a note.
func NoteURI(vaultName, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return noteScheme + url.PathEscape(vaultName) + "/" + strings.Join(segs, "/")
}

// parseNoteURI splits a note URI into vault and path.
func parseNoteURI(uri string) (string, string, bool) {
	rest, ok := strings.CutPrefix(uri, noteScheme)
	if !ok {
		return "", "", false
	}
	v, p, ok := strings.Cut(rest, "/")
	if !ok || v == "" || p == "" {
		return "", "", false
	}
	vu, err1 := url.PathUnescape(v)
	pu, err2 := url.PathUnescape(p)
	if err1 != nil || err2 != nil {
		return "", "", false
	}
	return vu, pu, true
}

func registerResources(s *mcpsdk.Server, t *tools) {
	s.AddResource(&mcpsdk.Resource{
		URI: vaultsURI, Name: "vaults", Title: "Vaults",
		Description: "The vaults jarvis serves, with their counts and index state (as list-vaults returns them)",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
		_, out, err := t.listVaults(ctx, nil, struct{}{})
		if err != nil {
			return nil, err
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: vaultsURI, MIMEType: "application/json", Text: string(data)}}}, nil
	})
	s.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		URITemplate: noteTemplate, Name: "note", Title: "Obsidian note",
		Description: "A note's Markdown, by vault name and vault-relative path",
		MIMEType:    "text/markdown",
	}, t.readNoteResource)
	s.AddReceivingMiddleware(t.listNoteResources)
}

func (t *tools) readNoteResource(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
	uri := req.Params.URI
	name, rel, ok := parseNoteURI(uri)
	if !ok {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	for _, v := range t.vaults {
		if v.Name != name {
			continue
		}
		if !vault.IsNote(rel) {
			return nil, mcpsdk.ResourceNotFoundError(uri)
		}
		// The path in either Unicode normal form, as read-note takes it.
		var data []byte
		var err error
		for _, form := range vault.NameForms(rel) {
			if data, _, err = readNote(v, form); !errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, errOutside), errors.Is(err, errExcluded), errors.Is(err, vault.ErrNotRegular):
			return nil, mcpsdk.ResourceNotFoundError(uri)
		case err != nil:
			return nil, err
		}
		// A resource is the note whole or nothing: cut, it would not be
		// the note. read-note pages through a longer one.
		if len(data) > maxResourceBytes {
			return nil, fmt.Errorf("note %s is %d KB, more than the %d KB a resource read returns; read it in pages with the read-note tool (offset and max_chars)", quoteArg(rel), len(data)>>10, maxResourceBytes>>10)
		}
		return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: noteText(data)}}}, nil
	}
	return nil, mcpsdk.ResourceNotFoundError(uri)
}

// listNoteResources answers resources/list itself: the vault list, then
// every indexed note in pages, read from the index rather than held as
// thousands of registered resources.
func (t *tools) listNoteResources(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		var cursor string
		if r, ok := req.(*mcpsdk.ListResourcesRequest); ok && r.Params != nil {
			cursor = r.Params.Cursor
		}
		res := &mcpsdk.ListResourcesResult{Resources: []*mcpsdk.Resource{}, Cacheable: cacheHint(req)}
		var after index.NoteName
		if cursor == "" {
			res.Resources = append(res.Resources, &mcpsdk.Resource{URI: vaultsURI, Name: "vaults", Title: "Vaults", MIMEType: "application/json"})
		} else {
			var err error
			if after, err = decodeCursor(cursor); err != nil {
				return nil, err
			}
		}
		notes, err := t.listNotes(ctx, after, resourcesPage+1)
		if err != nil {
			return nil, err
		}
		if len(notes) > resourcesPage {
			notes = notes[:resourcesPage]
			res.NextCursor = encodeCursor(notes[len(notes)-1])
		}
		for _, n := range notes {
			if t.excluded(n.Vault, n.Path) {
				continue // the index holds it under other rules
			}
			res.Resources = append(res.Resources, &mcpsdk.Resource{
				URI: NoteURI(n.Vault, n.Path), Name: n.Path, Title: clip(n.Title, maxTitleChars), MIMEType: "text/markdown",
				Description: "note in vault " + n.Vault,
			})
		}
		return res, nil
	}
}

// listNotes pages through notes from the index, or from the disk when the
// index is unavailable.
func (t *tools) listNotes(ctx context.Context, after index.NoteName, n int) ([]index.NoteName, error) {
	if t.notes != nil {
		if notes, err := t.notes.List(ctx, after, n); err == nil {
			return notes, nil
		}
	}
	var out []index.NoteName
	for _, v := range t.vaults {
		if v.Name < after.Vault {
			continue
		}
		files, _, err := vault.Scan(ctx, v.Path, v.Exclude)
		if err != nil {
			continue
		}
		for _, f := range files {
			if !f.Note || (v.Name == after.Vault && f.Path <= after.Path) {
				continue
			}
			out = append(out, index.NoteName{Vault: v.Name, Path: f.Path, Title: vault.TitleFromPath(f.Path)})
			if len(out) == n {
				return out, nil
			}
		}
	}
	return out, nil
}

func encodeCursor(n index.NoteName) string {
	return base64.RawURLEncoding.EncodeToString([]byte(n.Vault + "\x00" + n.Path))
}

func decodeCursor(c string) (index.NoteName, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return index.NoteName{}, errors.New("invalid cursor: pass the nextCursor of the previous page")
	}
	v, p, ok := strings.Cut(string(b), "\x00")
	if !ok {
		return index.NoteName{}, errors.New("invalid cursor: pass the nextCursor of the previous page")
	}
	return index.NoteName{Vault: v, Path: p}, nil
}
