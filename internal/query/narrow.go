package query

import (
	"math/bits"
	"strings"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/bases"
)

// postings index a vault's files by what a filter's Need asks about
// (bases.Filter.Need): a note property's files by its plain values, the
// files of each tag and of each folder. Each is built the first time a
// filter asks and kept with the vault, which never changes.
type postings struct {
	mu      sync.Mutex
	props   map[string]*propertyFiles
	tags    map[string][]int32 // tag as the file holds it -> files
	folders map[string][]int32 // folder ("" for the root) -> files
	notes   int                // how many of the files are notes, once counted
	counted bool
}

// propertyFiles are the files that have one note property.
type propertyFiles struct {
	plain map[any][]int32 // plain value (bases.PlainProperty) -> files
	other []int32         // files whose value is not plain
}

// fileSet is a set of the vault's files by their place in Vault.Files;
// nil holds every file.
type fileSet []uint64

// Candidates are the files of the vault that can pass the filter, or
// fail on it, evaluated in env: every file whose index entries meet the
// filter's Need, in path order. Evaluating the filter on them alone
// gives what evaluating it on every file gives.
func (v *Vault) Candidates(env *bases.Env, f *bases.Filter) []*File {
	set := v.set(f.Need(env))
	if set == nil {
		return v.Files
	}
	n := 0
	for _, w := range set {
		n += bits.OnesCount64(w)
	}
	out := make([]*File, 0, n)
	for i, w := range set {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, v.Files[i*64+b])
			w &= w - 1
		}
	}
	return out
}

// set is the set of files that meet n.
func (v *Vault) set(n bases.Need) fileSet {
	switch n.Kind {
	case bases.NeedAnd:
		var out fileSet
		for _, s := range n.Subs {
			b := v.set(s)
			switch {
			case b == nil:
			case out == nil:
				out = b
			default:
				for i := range out {
					out[i] &= b[i]
				}
			}
		}
		return out
	case bases.NeedOr:
		out := v.emptySet()
		for _, s := range n.Subs {
			b := v.set(s)
			if b == nil {
				return nil
			}
			for i := range out {
				out[i] |= b[i]
			}
		}
		return out
	case bases.NeedProperty:
		p := v.property(n.Property)
		out := v.emptySet()
		out.add(p.other)
		for val, files := range p.plain {
			if n.Value == nil || n.Value(val) {
				out.add(files)
			}
		}
		return out
	case bases.NeedTag:
		out := v.emptySet()
		for tag, files := range v.tagFiles() {
			for _, want := range n.Tags {
				if bases.HasTag([]string{tag}, want) {
					out.add(files)
					break
				}
			}
		}
		return out
	case bases.NeedFolder:
		out := v.emptySet()
		for _, files := range v.folderFiles() {
			// Files of one folder are in the same folders: one of them
			// answers for all.
			if bases.InFolder(v.Files[files[0]].path, n.Folder) {
				out.add(files)
			}
		}
		return out
	}
	return nil
}

func (v *Vault) emptySet() fileSet {
	return make(fileSet, (len(v.Files)+63)/64)
}

func (s fileSet) add(files []int32) {
	for _, i := range files {
		s[i/64] |= 1 << (i % 64)
	}
}

// property returns the files that have the named note property, indexing
// them on first use.
func (v *Vault) property(name string) *propertyFiles {
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	if p, ok := v.index.props[name]; ok {
		return p
	}
	p := &propertyFiles{plain: map[any][]int32{}}
	for i, f := range v.Files {
		raw, ok := f.props[name]
		switch {
		case !ok:
		case bases.PlainProperty(raw):
			p.plain[raw] = append(p.plain[raw], int32(i))
		default:
			p.other = append(p.other, int32(i))
		}
	}
	if v.index.props == nil {
		v.index.props = map[string]*propertyFiles{}
	}
	v.index.props[name] = p
	return p
}

// tagFiles returns the files of each tag, indexing them on first use.
func (v *Vault) tagFiles() map[string][]int32 {
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	if v.index.tags == nil {
		v.index.tags = map[string][]int32{}
		for i, f := range v.Files {
			for _, t := range f.tags {
				v.index.tags[t] = append(v.index.tags[t], int32(i))
			}
		}
	}
	return v.index.tags
}

// folderFiles returns the files of each folder, indexing them on first
// use.
func (v *Vault) folderFiles() map[string][]int32 {
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	if v.index.folders == nil {
		v.index.folders = map[string][]int32{}
		for i, f := range v.Files {
			dir := ""
			if j := strings.LastIndexByte(f.path, '/'); j >= 0 {
				dir = f.path[:j]
			}
			v.index.folders[dir] = append(v.index.folders[dir], int32(i))
		}
	}
	return v.index.folders
}

// noteCount is how many of the vault's files are notes.
func (v *Vault) noteCount() int {
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	if !v.index.counted {
		v.index.counted = true
		for _, f := range v.Files {
			if f.Note {
				v.index.notes++
			}
		}
	}
	return v.index.notes
}
