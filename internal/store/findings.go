package store

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/words"
)

// areas names, in the reader's words, what each table of the index holds:
// the findings of an integrity check are said by the part of the index
// they damage, never by SQLite's names of tables, trees and pages. A table
// is named here or by a name it starts with and an underscore (FTS5 keeps
// note_fts_data, note_fts_idx beside note_fts).
var areas = map[string]string{
	"vaults":             "the list of vaults",
	"files":              "the list of notes and attachments",
	"aliases":            "the notes' aliases",
	"tags":               "the notes' tags",
	"headings":           "the notes' headings and block ids",
	"blocks":             "the notes' headings and block ids",
	"anchors_pending":    "the links",
	"links":              "the links",
	"external_links":     "the links",
	"backlink_counts":    "the links",
	"warnings":           "the index warnings",
	"search_notes":       "the keyword search index",
	"note_fts":           "the keyword search index",
	"name_fts":           "the keyword search index",
	"note_cjk":           "the keyword search index",
	"chunks":             "the passages of the notes",
	"chunk_changes":      "the passages of the notes",
	"embedders":          "the vectors for semantic search",
	"embedding_progress": "the vectors for semantic search",
	"vectors":            "the vectors for semantic search",
	"vectors_new":        "the vectors for semantic search",
	"writes":             "the record of changes made through jarvis",
	"write_files":        "the record of changes made through jarvis",
	"schema_migrations":  "the database's version record",
	"sqlite_schema":      "the database's list of tables",
	"sqlite_master":      "the database's list of tables",
	"sqlite_sequence":    "the database's list of tables",
}

// freeArea is where findings about pages no table uses land: the free
// list, and pages that belong to nothing.
const freeArea = "pages the index does not use"

// otherArea is where a finding lands that names nothing this package
// knows.
const otherArea = "other parts of the file"

// areaOf is the words for the table named, or for the table an index
// named belongs to (tables maps an index to its table).
func areaOf(name string, tables map[string]string) string {
	if t, ok := tables[name]; ok && t != "" {
		name = t
	} else if rest, ok := strings.CutPrefix(name, "sqlite_autoindex_"); ok {
		// An index SQLite made for a UNIQUE column: sqlite_autoindex_files_1.
		if i := strings.LastIndexByte(rest, '_'); i > 0 {
			name = rest[:i]
		}
	}
	for n := name; n != ""; {
		if a, ok := areas[n]; ok {
			return a
		}
		i := strings.LastIndexByte(n, '_')
		if i <= 0 {
			break
		}
		n = n[:i]
	}
	return otherArea
}

// The shapes of the lines of PRAGMA integrity_check and quick_check that
// say where a finding is: in a tree (a table or an index, by the page it
// starts on), in an index or a column by name, or in the pages no table
// uses.
var (
	treeFinding   = regexp.MustCompile(`^Tree (\d+) page \d+`)
	indexFinding  = regexp.MustCompile(`(?:missing from index|wrong # of entries in index|non-unique entry in index) (\S+)`)
	columnFinding = regexp.MustCompile(`(?:NULL|TEXT|NUMERIC|INTEGER|REAL|BLOB) value in ([^.\s]+)\.|CHECK constraint failed in (\S+)`)
	ftsFinding    = regexp.MustCompile(`FTS5 table (?:\w+\.)?(\w+)`)
	freeFinding   = regexp.MustCompile(`^(?:Freelist:|Page \d+:? (?:is )?never used|Pointer map page|\d+ of \d+ pages missing)`)
)

// findingLines splits what a check listed into its findings, one a line,
// without SQLite's heading ("*** in database main ***") and its closing
// "database disk image is malformed", which says nothing of where.
func findingLines(problems []string) []string {
	var out []string
	for _, p := range problems {
		for _, line := range strings.Split(p, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "*** ") || line == "database disk image is malformed" {
				continue
			}
			out = append(out, line)
		}
	}
	return out
}

// Findings says in words for a reader what an integrity or quick check
// found: in how many places the file is damaged, and in which parts of
// the index, as "it is damaged in 3 places: 2 in the list of notes and
// attachments and 1 in the list of vaults". trees maps the first page of
// each table and index to its name, and tables each index to its table
// (both read from the file; either may be empty when that cannot be
// read). It is the one place findings become words: doctor and
// health-status say them so, and the raw lines go to the debug log only.
func Findings(problems []string, trees map[int]string, tables map[string]string) string {
	count := map[string]int{}
	total := 0
	for _, line := range findingLines(problems) {
		area := otherArea
		switch {
		case freeFinding.MatchString(line):
			area = freeArea
		case treeFinding.MatchString(line):
			n, _ := strconv.Atoi(treeFinding.FindStringSubmatch(line)[1])
			if name, ok := trees[n]; ok {
				area = areaOf(name, tables)
			}
		case indexFinding.MatchString(line):
			area = areaOf(indexFinding.FindStringSubmatch(line)[1], tables)
		case columnFinding.MatchString(line):
			m := columnFinding.FindStringSubmatch(line)
			area = areaOf(m[1]+m[2], tables)
		case ftsFinding.MatchString(line):
			area = areaOf(ftsFinding.FindStringSubmatch(line)[1], tables)
		}
		count[area]++
		total++
	}
	if total == 0 {
		return "it is damaged, in a way the check does not pin to a place"
	}
	names := make([]string, 0, len(count))
	for a := range count {
		names = append(names, a)
	}
	// The most damaged part first; pages no table uses last, since no
	// indexed data is lost there.
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if (a == freeArea) != (b == freeArea) {
			return b == freeArea
		}
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		return a < b
	})
	head := "it is damaged in " + words.Count(total, "place")
	if total >= checkLimit {
		// The check stops listing at its limit: there may be more.
		head = "it is damaged in at least " + words.Count(total, "place")
	}
	if len(names) == 1 {
		in := "all in "
		switch total {
		case 1:
			in = "in "
		case 2:
			in = "both in "
		}
		if names[0] == freeArea {
			return head + ", " + in + freeArea + " (nothing indexed is lost, but the file is not sound)"
		}
		return head + ", " + in + names[0]
	}
	parts := make([]string, len(names))
	for i, a := range names {
		parts[i] = strconv.Itoa(count[a]) + " in " + a
	}
	return head + ": " + words.List(parts)
}

// readTrees reads, from the file db has open, the name of the table or
// index that starts on each page, and the table of each index, for
// Findings. What cannot be read is left out.
func readTrees(ctx context.Context, db *DB) (trees map[int]string, tables map[string]string) {
	trees, tables = map[int]string{1: "sqlite_schema"}, map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT name, tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0`)
	if err != nil {
		return trees, tables
	}
	defer rows.Close()
	for rows.Next() {
		var name, table string
		var root int
		if rows.Scan(&name, &table, &root) != nil {
			return trees, tables
		}
		trees[root] = name
		if table != name {
			tables[name] = table
		}
	}
	return trees, tables
}
