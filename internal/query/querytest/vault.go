// Package querytest writes the vault the tests of Bases queries run over
// (package query, the query-notes tool, `jarvis query`): projects with
// typed properties, people they link to, daily notes, an attachment,
// several .base files and a note embedding two base blocks.
package querytest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Now is the day the tests run on: a Saturday; "this week" is up to
// Friday 2026-12-04.
var Now = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

// Files are the vault's files by path.
var Files = map[string]string{
	"Projects/Apollo.md": `---
status: active
due: 2026-12-02
priority: 2
owner: "[[Ada]]"
tags: [project, work]
---
# Apollo
Launch plan. See [[Grace]].
`,
	"Projects/Borealis.md": `---
status: active
due: 2026-12-10
priority: 1
tags: [project]
---
# Borealis
Northern lights survey.
`,
	"Projects/Cygnus.md": `---
status: done
due: 2026-11-20
priority: 3
owner: "[[Grace]]"
tags: [project]
---
# Cygnus
Finished.
`,
	"Projects/Draco.md": `---
status: active
due: 2026-11-30
priority: 1
owner: "[[Grace]]"
tags: [project, work]
---
# Draco
Due first. ![[diagram.png]]
`,
	"People/Ada.md": `---
role: engineer
---
# Ada
`,
	"People/Grace.md": `---
role: admiral
---
# Grace
`,
	"Daily/2026-11-26.md": `---
mood: 3
---
Worked on [[Apollo]].
`,
	"Daily/2026-11-27.md": `---
mood: 5
---
Worked on [[Draco]] and [[Apollo]]. #win
`,
	"Daily/2026-11-28.md": `---
mood: 4
---
Planned [[Borealis]].
`,
	"Attachments/diagram.png": "\x89PNG\r\n\x1a\nnot really a picture",
	"Bases/Projects.base": `filters:
  and:
    - file.inFolder("Projects")
formulas:
  days_left: (due - today()) / 86400000
properties:
  formula.days_left:
    displayName: Days left
  note.due:
    displayName: Due
views:
  - type: table
    name: Active by due date
    filters: status == "active"
    order: [file.name, due, priority, formula.days_left]
    sort:
      - property: due
        direction: ASC
  - type: table
    name: Top priority
    order: [file.name, priority, due]
    sort:
      - property: priority
        direction: ASC
      - property: due
        direction: DESC
    limit: 2
  - type: table
    name: By status
    order: [file.name, priority]
    sort:
      - property: file.name
    groupBy:
      property: status
      direction: ASC
    summaries:
      priority: Average
`,
	"Bases/Daily.base": `filters: file.inFolder("Daily")
views:
  - type: table
    name: Moods
    order: [file.name, mood]
    sort:
      - property: file.name
        direction: DESC
    summaries:
      mood: Sum
`,
	"Bases/Files.base": `filters:
  or:
    - file.ext == "png"
    - file.hasTag("win")
views:
  - type: table
    name: Pictures and wins
    order: [file.path, file.ext]
    sort:
      - property: file.path
`,
	"Dashboard.md": `---
focus: active
---
# Dashboard

Projects with the status in focus:

` + "```base" + `
filters:
  and:
    - file.inFolder("Projects")
    - status == this.focus
views:
  - type: table
    name: Focus
    order: [file.name, status]
    sort:
      - property: priority
      - property: file.name
` + "```" + `

People owning projects:

` + "```base" + `
filters: file.backlinks.length > 0 && file.inFolder("People")
views:
  - type: table
    name: Owners
    order: [file.name, role]
    sort:
      - property: file.name
` + "```" + `
`,
}

// Write writes the vault into dir.
func Write(tb testing.TB, dir string) {
	tb.Helper()
	for rel, body := range Files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
