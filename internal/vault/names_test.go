package vault

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	const nfc, nfd = "Caf\u00e9", "Cafe\u0301"
	if got := PathForms(nfc); !slices.Equal(got, []string{nfc, nfc + ".md", nfd, nfd + ".md"}) {
		t.Errorf("PathForms(%q) = %q", nfc, got)
	}
	if got := PathForms("Plan.md"); !slices.Equal(got, []string{"Plan.md", "Plan.md.md"}) {
		t.Errorf("PathForms(Plan.md) = %q", got)
	}
	tests := []struct {
		path, key string
	}{
		{"Projects/Plan.md", "plan"},
		{"Projects/Plan.MD", "plan"},
		{"Attachments/Figure 1.PNG", "figure 1.png"},
		{"image.png.md", "image.png"},
		{"Notes/" + nfd + ".md", "caf\u00e9"},
		{"Notes/\u00dcBER.md", "\u00fcber"},
	}
	for _, tt := range tests {
		if got := NameKey(tt.path); got != tt.key {
			t.Errorf("NameKey(%q) = %q; want %q", tt.path, got, tt.key)
		}
	}
	if got := AliasKey("  Hand " + nfd + " "); got != "hand caf\u00e9" {
		t.Errorf("AliasKey = %q", got)
	}
}

func TestTagKey(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"case of an accented letter", "Été", "ÉTÉ", true},
		{"composed and decomposed", "\u00e9t\u00e9", "e\u0301te\u0301", true},
		{"nested", "Été/Plage", "été/PLAGE", true},
		{"Cyrillic", "Тег", "тег", true},
		{"Greek", "ΩΜΈΓΑ", "ωμέγα", true},
		{"capital sharp s", "STRAẞE", "straße", true},
		{"sharp s is not ss, as in Obsidian", "STRASSE", "straße", false},
		{"accent", "ete", "été", false},
	}
	for _, tt := range tests {
		if got := TagKey(tt.a) == TagKey(tt.b); got != tt.same {
			t.Errorf("%s: TagKey(%q) = %q, TagKey(%q) = %q; want same %v", tt.name, tt.a, TagKey(tt.a), tt.b, TagKey(tt.b), tt.same)
		}
	}
}
