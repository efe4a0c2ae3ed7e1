package bases

import (
	"strconv"
	"strings"
)

// Property is a view's property (a column, a sort or group key) as the
// filter reads the same text.
type Property struct {
	Expr *Expr
	// Path is the note property it reads, key by key ("zotero", "key" for
	// zotero.key or note["zotero"]["key"]); nil when it reads a file
	// field, a formula or something computed.
	Path []string
}

// ParseProperty reads a property as a view names it, the one rule for
// columns, sort and group keys: "file.name" and "formula.price" as
// written; text that a filter reads as a property (status, note.status,
// zotero.key, note["date-added"]) as the filter reads it; any other text
// ("due date", "date-added", which a filter would take for a
// subtraction) as the name of a note property, whatever characters it
// holds, with a leading "note." taken off.
func ParseProperty(id string) (Property, error) {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(id, "file.") || strings.HasPrefix(id, "formula.") || strings.HasPrefix(id, "this.") {
		x, err := Parse(id)
		return Property{Expr: x}, err
	}
	if x, err := Parse(id); err == nil {
		if path, ok := notePath(x.root); ok && len(path) > 0 {
			return Property{Expr: x, Path: path}, nil
		}
	}
	name := strings.TrimPrefix(id, "note.")
	x, err := Parse("note[" + strconv.Quote(name) + "]")
	if err != nil {
		return Property{}, err
	}
	return Property{Expr: x, Path: []string{name}}, nil
}

// notePath is the keys a chain of names and quoted indexes reads from the
// note's properties ("zotero.key", `note["date-added"]`); false for
// anything else. A bare name that means something other than a property
// (file, note, this, formula) is not a path.
func notePath(n node) ([]string, bool) {
	switch n := n.(type) {
	case *identNode:
		switch n.name {
		case "note":
			return []string{}, true
		case "file", "this", "formula":
			return nil, false
		}
		return []string{n.name}, true
	case *memberNode:
		p, ok := notePath(n.x)
		if !ok {
			return nil, false
		}
		return append(p, n.name), true
	case *indexNode:
		lit, ok := n.index.(*litNode)
		if !ok {
			return nil, false
		}
		s, ok := lit.v.(String)
		if !ok {
			return nil, false
		}
		p, ok := notePath(n.x)
		if !ok {
			return nil, false
		}
		return append(p, string(s)), true
	}
	return nil, false
}
