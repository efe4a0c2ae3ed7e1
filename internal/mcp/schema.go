package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// inputSchema infers T's schema and lets edit add what struct tags cannot
// say: ranges, defaults and allowed values, which clients show and the SDK
// checks before a handler runs.
func inputSchema[T any](edit func(p map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	if edit != nil {
		edit(s.Properties)
	}
	return s
}

// addTool registers a tool (a write tool, by ToolWrites, only when some
// vault is writable), and keeps its input schema for the messages
// that say what an argument the SDK refused should have been (see
// friendlyArgumentErrors).
func addTool[In, Out any](t *tools, s *mcpsdk.Server, tool *mcpsdk.Tool, h mcpsdk.ToolHandlerFor[In, Out]) {
	if ToolWrites(tool.Name) && !t.writes() {
		return // a write tool is offered only when some vault is writable
	}
	if in, ok := tool.InputSchema.(*jsonschema.Schema); ok {
		t.inputs[tool.Name] = in
	}
	t.offered[tool.Name] = true
	if icon, ok := toolIcons[tool.Name]; ok && tool.Icons == nil {
		tool.Icons = []mcpsdk.Icon{icon}
	}
	mcpsdk.AddTool(s, tool, h)
}

// expected says what a value of schema s is, for a model to send instead:
// "an integer", "an array of strings". null, which an optional list's
// schema allows, is left unsaid: leaving the argument out says the same.
func expected(s *jsonschema.Schema) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if len(types) != 1 {
		return ""
	}
	if types[0] == "array" && s.Items != nil {
		if item := expected(s.Items); item != "" {
			return "an array of " + plural(item) + ", such as " + example(s.Items)
		}
		return "an array"
	}
	return withArticle(types[0])
}

// example is an array of one item of schema item as a model would write
// it, one that the schema accepts when pasted: ["a", "b"] for strings,
// [{"name": "...", "expression": "..."}] for objects. An object item has
// its required properties, in their order, and those of the item's first
// example (an edit's op needs its text); a property with allowed values
// shows the first, the example's, and the rest are named after it.
func example(item *jsonschema.Schema) string {
	if item.Type != "object" || len(item.Properties) == 0 {
		return `["a", "b"]`
	}
	names := item.PropertyOrder
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(item.Properties))
	}
	var given map[string]any
	if len(item.Examples) > 0 {
		given, _ = item.Examples[0].(map[string]any)
	}
	var fields, others []string
	for _, n := range names {
		v, ok := given[n]
		if !ok && !slices.Contains(item.Required, n) {
			continue
		}
		value := exampleValue(item.Properties[n])
		if ok {
			if data, err := json.Marshal(v); err == nil {
				value = string(data)
			}
		}
		fields = append(fields, fmt.Sprintf(`%q: %s`, n, value))
		if enum := item.Properties[n].Enum; len(enum) > 1 {
			var rest []string
			for _, e := range enum {
				if data, err := json.Marshal(e); err == nil && string(data) != value {
					rest = append(rest, fmt.Sprint(e))
				}
			}
			others = append(others, fmt.Sprintf("other values of %s: %s", n, words.List(rest)))
		}
	}
	s := "[{" + strings.Join(fields, ", ") + "}]"
	if len(others) > 0 {
		s += " (" + strings.Join(others, "; ") + ")"
	}
	return s
}

// exampleValue is a value of schema s as JSON, of its type: the first of
// its allowed values, "..." for text, 1 for a number, true, {} or [].
func exampleValue(s *jsonschema.Schema) string {
	if s == nil {
		return `"..."`
	}
	if len(s.Enum) > 0 {
		if data, err := json.Marshal(s.Enum[0]); err == nil {
			return string(data)
		}
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if len(types) == 0 {
		return `"..."`
	}
	switch types[0] {
	case "integer", "number":
		return "1"
	case "boolean":
		return "true"
	case "object":
		return "{}"
	case "array":
		return "[]"
	}
	return `"..."`
}

// plural turns "a string" into "strings", "an object" into "objects".
func plural(noun string) string {
	for _, article := range []string{"a ", "an "} {
		if n, ok := strings.CutPrefix(noun, article); ok && !strings.Contains(n, " ") {
			return n + "s"
		}
	}
	return noun
}

// outputSchema is inputSchema for a tool's answer: edit adds what tags
// cannot say, such as the most items a list holds, which the SDK checks on
// every answer.
func outputSchema[T any](edit func(p map[string]*jsonschema.Schema)) *jsonschema.Schema {
	return inputSchema[T](edit)
}

// maxItems bounds an array.
func maxItems(p *jsonschema.Schema, n int) {
	p.MaxItems = &n
}

// The longest string arguments, in characters. Every string, array and
// number of every tool's input is bounded, so that the SDK refuses an
// oversized argument before a handler sees it: a query is a few key words
// or one question, a path a vault-relative file path (as long as a path
// the scan takes), a name a vault name
// or a tag, a heading one heading or a path of them ("A > B").
const (
	maxQueryChars   = 1000
	maxPathChars    = vault.MaxPathChars
	maxNameChars    = 200
	maxHeadingChars = vault.MaxHeadingPath
)

func intRange(p *jsonschema.Schema, lo, hi, def int) {
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
	p.Default = mustJSON(def)
}

func floatRange(p *jsonschema.Schema, lo, hi float64) {
	p.Minimum, p.Maximum = &lo, &hi
}

// textLength bounds a string's length; a lo of 0 is left unstated.
func textLength(p *jsonschema.Schema, lo, hi int) {
	p.MaxLength = &hi
	if lo > 0 {
		p.MinLength = &lo
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
