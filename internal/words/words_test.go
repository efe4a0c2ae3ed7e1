package words

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"none", Count(0, "note"), "0 notes"},
		{"one", Count(1, "character"), "1 character"},
		{"two", Count(2, "character"), "2 characters"},
		{"one with its verb", CountAs(1, "note links", "notes link"), "1 note links"},
		{"many with their verb", CountAs(4, "note links", "notes link"), "4 notes link"},
		{"irregular", CountAs(2, "match", "matches"), "2 matches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"en"}, `"en"`},
		{"two", []string{"en", "vault-all"}, `"en" and "vault-all"`},
		{"three", []string{"a", "b", "c"}, `"a", "b" and "c"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quoted(tc.items); got != tc.want {
				t.Fatalf("Quoted(%q) = %q, want %q", tc.items, got, tc.want)
			}
		})
	}
}

func TestAgree(t *testing.T) {
	if got := Agree(1, "has", "have"); got != "has" {
		t.Errorf("Agree(1) = %q, want has", got)
	}
	for _, n := range []int{0, 2} {
		if got := Agree(n, "has", "have"); got != "have" {
			t.Errorf("Agree(%d) = %q, want have", n, got)
		}
	}
}

func TestLineRange(t *testing.T) {
	for _, tc := range []struct {
		start, end int
		want       string
	}{{13, 13, "line 13"}, {13, 15, "lines 13-15"}, {1, 2, "lines 1-2"}} {
		if got := LineRange(tc.start, tc.end); got != tc.want {
			t.Errorf("LineRange(%d, %d) = %q; want %q", tc.start, tc.end, got, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		lines []int
		want  string
	}{
		{[]int{3}, "line 3"},
		{[]int{3, 3}, "line 3 (2 links)"},
		{[]int{3, 7}, "lines 3, 7"},
		{[]int{7, 3, 7, 7}, "lines 7 (3 links), 3"},
	} {
		if got := Lines(tc.lines, "link"); got != tc.want {
			t.Errorf("Lines(%v) = %q; want %q", tc.lines, got, tc.want)
		}
	}
}

// TestListOrAndQuotedOr: the choices to pick one of join with "or", names
// quoted each, however many there are.
func TestListOrAndQuotedOr(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{ListOr(nil), ""},
		{ListOr([]string{"a"}), "a"},
		{ListOr([]string{"a", "b", "c"}), "a, b or c"},
		{QuotedOr([]string{"en", `say "and"`}), `"en" or "say \"and\""`},
		{Quoted([]string{"en", "work"}), `"en" and "work"`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
