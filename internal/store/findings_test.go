package store

import (
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestCheckFindingsInAFewWords: what PRAGMA integrity_check lists for a
// file with broken pages (many lines in one row, under a heading) is said
// as a count of pages, and other findings as the check words them, a few
// at most.
func TestCheckFindingsInAFewWords(t *testing.T) {
	var rows []string
	row := "*** in database main ***\n"
	for p := 298; p > 200; p-- {
		row += "Tree 25 page " + strconv.Itoa(p) + ": btreeInitPage() returns error code 11\n"
	}
	rows = append(rows, row, "Tree 5 page 238: btreeInitPage() returns error code 11",
		"row 12 missing from index notes_path", "wrong # of entries in index notes_path",
		"row 13 missing from index notes_path", "row 14 missing from index notes_path")
	got := checkFindings(rows)
	for _, want := range []string{"98 pages of it cannot be read", "row 12 missing from index notes_path", "and 1 other finding"} {
		if !strings.Contains(got, want) {
			t.Errorf("checkFindings = %q, lacks %q", got, want)
		}
	}
	if strings.Contains(got, "btreeInitPage") || strings.Contains(got, "***") || strings.Count(got, ";") > 4 {
		t.Errorf("checkFindings = %q: the check's raw lines", got)
	}
	sharedtest.CheckWords(t, "checkFindings", got)
	if got := checkFindings([]string{"Tree 2 page 7: btreeInitPage() returns error code 11"}); got != "1 page of it cannot be read" {
		t.Errorf("one page: %q", got)
	}
}
