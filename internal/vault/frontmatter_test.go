package vault

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestFrontmatterWarningsAreWords runs broken frontmatters through Parse:
// each warning names its line and says what to change, and none spells a
// Go value, a YAML tag or the library's own prefix.
func TestFrontmatterWarningsAreWords(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"template placeholder", "title: {{date}}", `invalid frontmatter YAML: line 2: {{date}} is read as a mapping; quote it ("{{date}}")`},
		{"placeholder as a key", "{{a}}: 1", `invalid frontmatter YAML: line 2: {{a}} is read as a mapping; quote it ("{{a}}")`},
		{"placeholder on a later line", "up: x\ncreated: {{date:YYYY-MM-DD}}", `invalid frontmatter YAML: line 3: {{date:YYYY-MM-DD}} is read as a mapping; quote it ("{{date:YYYY-MM-DD}}")`},
		{"list as a key", "? [a, b]\n: c", `invalid frontmatter YAML: line 2: [a, b] is read as a list; quote it ("[a, b]")`},
		{"nested mapping key", "a: {{b: 1}: 2}", `invalid frontmatter YAML: line 2: {{b: 1}: 2} is read as a mapping; quote it ("{{b: 1}: 2}")`},
		{"quotes in the value", `a: {{"b"}}`, `invalid frontmatter YAML: line 2: {{"b"}} is read as a mapping; quote it ('{{"b"}}')`},
		{"tagged number", "a: 1\nb: !!int x", `invalid frontmatter YAML: line 3: "x" is tagged as a whole number but is not one; remove the tag before it`},
		{"tagged date", "a: !!timestamp soon", `invalid frontmatter YAML: line 2: "soon" is tagged as a date but is not one; remove the tag before it`},
		{"bad base64", "a: !!binary zz!", "invalid frontmatter YAML: line 2: a value tagged as binary data is not valid base64; remove the tag before it"},
		{"bad merge", "<<: 1", "invalid frontmatter YAML: line 2: a merge (<<) takes a mapping or a list of mappings"},
		{"unknown anchor", "a: *nope", "invalid frontmatter YAML: unknown anchor 'nope' referenced"},
		{"duplicate key", "? a\n? a", `invalid frontmatter YAML: line 3: property "a" is given twice (first at line 2)`},
		{"unclosed list", "a: [b", "invalid frontmatter YAML: line 3: a list opened with [ is not closed with ]"},
		{"directive", "%YAML 1.1\n---\na: 1", "invalid frontmatter YAML: line 3: did not find expected <document start>"},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, p, "Note.md", []byte("---\n"+tt.yaml+"\n---\nbody"))
			if len(n.Warnings) != 1 || n.Warnings[0] != tt.want {
				t.Errorf("warnings %q, want %q", n.Warnings, tt.want)
			}
			for _, w := range n.Warnings {
				for _, bad := range []string{"map[", "interface {}", "[]interface", "yaml:", "!!"} {
					if strings.Contains(w, bad) {
						t.Errorf("warning %q holds %q", w, bad)
					}
				}
			}
			if n.Frontmatter != nil || n.Title != "Note" {
				t.Errorf("invalid frontmatter still used: %v, title %q", n.Frontmatter, n.Title)
			}
		})
	}
}

// TestFrontmatterErrorMatchesParse checks that a writer, which decodes the
// frontmatter itself, words its error as Parse's warning does.
func TestFrontmatterErrorMatchesParse(t *testing.T) {
	for _, y := range []string{"title: {{date}}\n", "a: !!int x\n", "a: [b\n"} {
		var v any
		err := yaml.Unmarshal([]byte(y), &v)
		if err == nil {
			t.Fatalf("%q decoded", y)
		}
		n := mustParse(t, NewParser(), "n.md", []byte("---\n"+y+"---\n"))
		if got := FrontmatterError([]byte(y), err); len(n.Warnings) != 1 || got != n.Warnings[0] {
			t.Errorf("FrontmatterError(%q) = %q, Parse warns %q", y, got, n.Warnings)
		}
	}
}
