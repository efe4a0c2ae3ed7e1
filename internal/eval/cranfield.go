// Package eval measures how well jarvis finds the right notes: on the
// Cranfield collection, whose relevance judgements no one here wrote, and
// on a query set written for the Obsidian Help vault. Its tests fail when
// a figure drops below the one recorded in testdata/baseline.json. Local
// models named in JARVIS_EVAL_MODEL are measured on the same sets and on
// STS-B, and reported without a baseline (see TestEvalModels).
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Doc is one Cranfield abstract.
type Doc struct {
	ID    int
	Title string
	Text  string
}

// Query is one query with the gain of each judged document: 5 minus the
// relevance grade, so grade 1 (most relevant) gains 4 and grade 4 gains 1.
type Query struct {
	ID    int
	Text  string
	Gains map[string]int // by note path
}

// Cranfield is the collection as notes: each abstract is a note named
// after its number, titled by its title.
type Cranfield struct {
	Docs    []Doc
	Queries []Query
}

// NotePath is the vault-relative path of the note holding document id.
func NotePath(id int) string { return fmt.Sprintf("cran-%04d.md", id) }

// LoadCranfield reads cran.all.1400, cran.qry and cranqrel from dir. In
// cranqrel, queries are numbered 1 to 225 in the order cran.qry lists
// them, not by their .I numbers.
func LoadCranfield(dir string) (*Cranfield, error) {
	docs, err := readFields(filepath.Join(dir, "cran.all.1400"))
	if err != nil {
		return nil, err
	}
	qs, err := readFields(filepath.Join(dir, "cran.qry"))
	if err != nil {
		return nil, err
	}
	c := &Cranfield{}
	for _, d := range docs {
		c.Docs = append(c.Docs, Doc{ID: d.id, Title: d.fields["T"], Text: d.fields["W"]})
	}
	for i, q := range qs {
		c.Queries = append(c.Queries, Query{ID: i + 1, Text: q.fields["W"], Gains: map[string]int{}})
	}
	f, err := os.Open(filepath.Join(dir, "cranqrel"))
	if err != nil {
		return nil, fmt.Errorf("read judgements: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		if len(parts) < 3 {
			continue
		}
		q, err1 := strconv.Atoi(parts[0])
		d, err2 := strconv.Atoi(parts[1])
		g, err3 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || err3 != nil || q < 1 || q > len(c.Queries) {
			return nil, fmt.Errorf("cranqrel: bad line %q", sc.Text())
		}
		if g >= 1 && g <= 4 {
			c.Queries[q-1].Gains[NotePath(d)] = 5 - g
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read judgements: %w", err)
	}
	return c, nil
}

type record struct {
	id     int
	fields map[string]string
}

// readFields parses the SMART format: ".I n" starts a record, ".X" starts
// field X, and the lines after it are its text.
func readFields(path string) ([]record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	var out []record
	var field string
	var buf []string
	flush := func() {
		if len(out) > 0 && field != "" {
			out[len(out)-1].fields[field] = strings.Join(strings.Fields(strings.Join(buf, " ")), " ")
		}
		buf = buf[:0]
	}
	// cran.qry has CRLF line ends, cran.all.1400 LF.
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, ".I "):
			flush()
			id, err := strconv.Atoi(strings.TrimSpace(line[3:]))
			if err != nil {
				return nil, fmt.Errorf("%s: bad record line %q", filepath.Base(path), line)
			}
			out = append(out, record{id: id, fields: map[string]string{}})
			field = ""
		case len(line) == 2 && line[0] == '.' && line[1] >= 'A' && line[1] <= 'Z':
			flush()
			field = line[1:]
		default:
			buf = append(buf, line)
		}
	}
	flush()
	return out, nil
}

// WriteVault writes every abstract as a note under dir: the title in the
// frontmatter, the abstract as the body.
func (c *Cranfield) WriteVault(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range c.Docs {
		title, _ := json.Marshal(d.Title) // a JSON string is a valid YAML scalar
		body := fmt.Sprintf("---\ntitle: %s\n---\n%s\n", title, d.Text)
		if err := os.WriteFile(filepath.Join(dir, NotePath(d.ID)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
