// Package vaultgen writes deterministic, realistic Obsidian vaults for
// benchmarks and tests: a folder tree up to three levels deep, notes of
// skewed length with frontmatter, headings, lists, tables, callouts, code
// blocks, tags, block ids and every Obsidian link form, plus a few
// attachments.
//
// The same Options always produce byte-identical files, whatever the
// platform, word size or GOMAXPROCS: all choices come from math/rand/v2 PCG
// sources seeded from Options.Seed, all pools are ordered slices, and no
// decision uses floating point. Only file modification times differ between
// runs. Generating 10,000 notes (about 27 MB) takes around a second.
//
// Callers generate into a fresh directory, typically t.TempDir() or
// b.TempDir():
//
//	sum, err := vaultgen.Generate(b.TempDir(), vaultgen.Options{Notes: 10_000, Seed: 1})
//
// # What counts as a link
//
// Summary.Links counts every internal link written outside code:
// [[wikilinks]] in all their forms, ![[embeds]] of notes and attachments,
// Markdown links and images with a local destination, same-note links such
// as [[#Heading]], and [[links]] inside frontmatter values. Links inside
// fenced code and inline code, external URLs and the file references inside
// .canvas files are not counted.
//
// A link resolves when its target is a note (by base name, by vault path,
// with or without ".md", case-insensitively, or by one of the note's
// frontmatter aliases) or an attachment (by file name or vault path). Its
// heading or block subpath then always exists in the target. A base name
// shared by several notes (Index, Meeting notes, ...) is only ever linked by
// its full vault path, so resolution never depends on tie-breaking rules.
// Summary.BrokenLinks counts the links whose target does not exist at all.
package vaultgen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// Options describe the vault to generate. Zero values mean the defaults.
type Options struct {
	// Notes is the number of Markdown notes.
	Notes int
	// Seed selects the vault: the same Options give byte-identical output.
	Seed int64
	// Folders is the number of folders the notes are spread over, not
	// counting the Attachments folder. 0 means about 0.4*sqrt(Notes), so 40
	// for 10k notes and 12 for 1k; a negative value puts every note at the
	// vault root. It is capped by Notes and by the folder names available.
	Folders int
	// AttachmentRatio is the number of attachments (.png, .pdf, .canvas)
	// per note. 0 means 0.04; a negative value means none.
	AttachmentRatio float64
	// BrokenLinkRatio is the share of links whose target does not exist.
	// 0 means 0.05; a negative value means none. At most 1.
	BrokenLinkRatio float64
	// UnicodeRatio is the share of notes with a non-English name and text
	// (Chinese, Japanese, Russian, Arabic, accented Latin, emoji). 0 means
	// 0.06; a negative value means none. At most 1.
	UnicodeRatio float64
}

// Summary says what Generate wrote.
type Summary struct {
	Notes       int   // .md files
	Attachments int   // all other files
	Folders     int   // directories below the vault root
	Links       int   // internal links outside code, see the package comment
	BrokenLinks int   // links among Links whose target does not exist
	Bytes       int64 // total size of all files
}

// ErrDirNotEmpty is returned when the target directory already has entries:
// mixing a generated vault with other files would make Summary wrong.
var ErrDirNotEmpty = errors.New("directory is not empty")

// Generate writes a vault described by opts into dir, which must be empty
// or not exist yet.
func Generate(dir string, opts Options) (Summary, error) {
	cfg, err := opts.config()
	if err != nil {
		return Summary{}, fmt.Errorf("generate vault: %w", err)
	}
	if err := prepareDir(dir); err != nil {
		return Summary{}, fmt.Errorf("generate vault in %q: %w", dir, err)
	}
	g := newGenerator(cfg)
	g.plan()
	sum, err := g.write(dir)
	if err != nil {
		return sum, fmt.Errorf("generate vault in %q: %w", dir, err)
	}
	return sum, nil
}

func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return ErrDirNotEmpty
	}
	return nil
}

// config is Options with defaults applied and ratios turned into integers
// per ten thousand, so that no later decision depends on float rounding.
type config struct {
	notes   int
	seed    uint64
	folders int
	attach  int // attachments per 10,000 notes
	broken  int // broken links per 10,000 links
	unicode int // unicode notes per 10,000 notes
}

func (o Options) config() (config, error) {
	if o.Notes < 0 {
		return config{}, fmt.Errorf("note count %d is negative", o.Notes)
	}
	if o.BrokenLinkRatio > 1 {
		return config{}, fmt.Errorf("broken link ratio %v is above 1", o.BrokenLinkRatio)
	}
	if o.UnicodeRatio > 1 {
		return config{}, fmt.Errorf("unicode ratio %v is above 1", o.UnicodeRatio)
	}
	if math.IsNaN(o.AttachmentRatio) || math.IsInf(o.AttachmentRatio, 0) || o.AttachmentRatio > 100 {
		return config{}, fmt.Errorf("attachment ratio %v is not a sensible number", o.AttachmentRatio)
	}
	c := config{
		notes:   o.Notes,
		seed:    uint64(o.Seed),
		attach:  perMyriad(o.AttachmentRatio, 0.04),
		broken:  perMyriad(o.BrokenLinkRatio, 0.05),
		unicode: perMyriad(o.UnicodeRatio, 0.06),
	}
	switch {
	case o.Folders < 0:
		c.folders = 0
	case o.Folders == 0:
		c.folders = int(math.Sqrt(float64(o.Notes))) * 2 / 5
	default:
		c.folders = o.Folders
	}
	// Every folder holds at least one note and the root holds at least one.
	c.folders = max(0, min(c.folders, o.Notes-1))
	return c, nil
}

func perMyriad(ratio, def float64) int {
	switch {
	case ratio < 0 || math.IsNaN(ratio):
		return 0
	case ratio == 0:
		ratio = def
	}
	return int(math.Round(ratio * 10000))
}

// Random streams: the plan uses one source; each note body and each
// attachment has its own, so they can be written in parallel and still be
// identical from run to run.
const (
	streamPlan       = 0
	streamNote       = 1 << 40
	streamAttachment = 2 << 40
)

type role int

const (
	roleTopic role = iota
	roleDaily
	roleMeeting
	rolePerson
	roleBook
	roleIndex
	numRoles
)

type folderSpec struct {
	name string
	role role
	subs []string
}

// topFolders are the first level of the tree, in the order they are used:
// the first four always, the rest shuffled.
var topFolders = []folderSpec{
	{"Daily", roleDaily, []string{"2021", "2022", "2023", "2024"}},
	{"Projects", roleTopic, []string{"Website redesign", "Home renovation", "Thesis", "Garden", "Side business", "Mobile app", "Data pipeline", "Wedding", "Podcast", "Kitchen"}},
	{"Resources", roleTopic, []string{"Programming", "Cooking", "Design", "History", "Music", "Photography", "Productivity", "Science"}},
	{"People", rolePerson, []string{"Work", "Friends", "Family"}},
	{"Areas", roleTopic, []string{"Health", "Finance", "Career", "Home", "Learning", "Family", "Writing"}},
	{"Reading", roleBook, []string{"Books", "Articles", "Papers", "Highlights"}},
	{"Meetings", roleMeeting, []string{"2023", "2024", "One-on-ones", "Clients"}},
	{"Archive", roleTopic, []string{"2019", "2020", "2021", "2022", "Old projects"}},
	{"Inbox", roleTopic, nil},
	{"Travel", roleTopic, []string{"Japan 2023", "Portugal", "Iceland road trip", "Weekend trips"}},
	{"Recipes", roleTopic, []string{"Baking", "Dinners", "Fermentation", "Drinks"}},
	{"Zettelkasten", roleTopic, []string{"Literature notes", "Permanent notes", "Fleeting"}},
	{"Work", roleTopic, []string{"Onboarding", "Incidents", "Team", "Planning", "Vendors"}},
	{"Notizen", roleTopic, []string{"Küche", "Übersetzungen"}},
	{"日本語", roleTopic, []string{"読書", "旅行"}},
}

// deepFolders name the third level of the tree.
var deepFolders = []string{"Meetings", "Research", "Drafts", "Archive", "Notes", "Ideas", "Reviews", "Old"}

const attachmentsFolder = "Attachments"

type folder struct {
	path     string // slash-separated, "" for the root
	name     string
	depth    int // 0 for the root
	role     role
	year     int // for Daily and Meetings year folders, else 0
	spec     int // index in topFolders of the top-level ancestor, -1 for the root
	children []string
}

type frontmatterKind int

const (
	fmNone frontmatterKind = iota
	fmNormal
	fmEmpty
	fmInvalid
)

type heading struct {
	level int
	text  string
}

type block struct {
	id      string
	section int // index in note.headings whose section holds it; -1 for the intro
}

type note struct {
	name     string // base name without ".md"
	folder   int
	linkPath string // vault path without ".md": "Projects/Garden/Index"
	role     role
	lang     language
	dup      bool // the base name is shared, so links use linkPath
	date     time.Time
	topics   []int
	words    int
	h1       bool // headings[0] is the "# Title" line
	headings []heading
	blocks   []block
	aliases  []string
	title    string
	fm       frontmatterKind
	links    int // link budget of the body
	attach   []int
}

type attachmentKind int

const (
	kindPNG attachmentKind = iota
	kindPDF
	kindCanvas
)

type attachment struct {
	name     string // with extension
	folder   int
	kind     attachmentKind
	referrer int // note that links to it, or -1
	title    string
}

func (a attachment) path(g *generator) string { return joinPath(g.folders[a.folder].path, a.name) }

type brokenTarget struct {
	name   string // note name, or attachment file name with extension
	folder string // a real folder to put in front of the name for path links
	attach bool
}

type generator struct {
	cfg         config
	rng         *rand.Rand
	folders     []folder
	folderNotes [][]int
	notes       []note
	roleNotes   [numRoles][]int
	aliased     []int
	hubs        []int
	attachments []attachment
	broken      []brokenTarget
	taken       map[string]bool // lowercased note names, aliases, attachment and folder names
	dayCursor   map[int]int     // next day of the year for daily notes, by year
}

func newGenerator(cfg config) *generator {
	return &generator{
		cfg:       cfg,
		rng:       rand.New(rand.NewPCG(cfg.seed, streamPlan)),
		taken:     make(map[string]bool),
		dayCursor: make(map[int]int),
	}
}

func (g *generator) plan() {
	for _, d := range dupNames {
		g.taken[strings.ToLower(d)] = true
	}
	g.planFolders()
	g.planNotes()
	for i := range g.notes {
		g.planStructure(i)
	}
	g.planAliases()
	g.planAttachments()
	g.planBroken()
	g.hubs = g.rng.Perm(len(g.notes))
}

func (g *generator) planFolders() {
	g.folders = []folder{{role: roleTopic, spec: -1}}
	want := g.cfg.folders
	if want <= 0 {
		return
	}
	order := []int{0, 1, 2, 3}
	rest := make([]int, 0, len(topFolders)-4)
	for i := 4; i < len(topFolders); i++ {
		rest = append(rest, i)
	}
	g.rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	order = append(order, rest...)
	for _, i := range order[:min(len(topFolders), max(1, (want+2)/3))] {
		g.addFolder(0, topFolders[i].name)
	}
	for len(g.folders)-1 < want {
		// Parents at the first level are three times as likely as deeper ones.
		var cands []int
		for i := 1; i < len(g.folders); i++ {
			if g.folders[i].depth < 3 && len(g.freeSubfolders(i)) > 0 {
				cands = append(cands, i)
				if g.folders[i].depth == 1 {
					cands = append(cands, i, i)
				}
			}
		}
		if len(cands) == 0 {
			break
		}
		p := cands[g.rng.IntN(len(cands))]
		names := g.freeSubfolders(p)
		g.addFolder(p, names[g.rng.IntN(len(names))])
	}
}

func (g *generator) freeSubfolders(p int) []string {
	f := g.folders[p]
	pool := deepFolders
	if f.depth == 1 {
		pool = topFolders[f.spec].subs
	}
	var free []string
	for _, name := range pool {
		if !containsFold(f.children, name) {
			free = append(free, name)
		}
	}
	return free
}

func (g *generator) addFolder(parent int, name string) int {
	p := g.folders[parent]
	f := folder{
		path:  joinPath(p.path, name),
		name:  name,
		depth: p.depth + 1,
		role:  p.role,
		year:  p.year,
		spec:  p.spec,
	}
	if parent == 0 {
		for i, s := range topFolders {
			if s.name == name {
				f.spec, f.role = i, s.role
			}
		}
	}
	if y, err := strconv.Atoi(name); err == nil && (f.role == roleDaily || f.role == roleMeeting) {
		f.year = y
	}
	g.folders[parent].children = append(g.folders[parent].children, name)
	g.taken[strings.ToLower(name)] = true
	g.folders = append(g.folders, f)
	return len(g.folders) - 1
}

var roleWeight = [numRoles]int{roleTopic: 2, roleDaily: 4, roleMeeting: 3, rolePerson: 1, roleBook: 1}

func (g *generator) planNotes() {
	n := g.cfg.notes
	counts := make([]int, len(g.folders))
	if len(g.folders) == 1 {
		counts[0] = n
	} else {
		counts[0] = max(1, n*4/100)
		rest := n - counts[0]
		for i := 1; i < len(g.folders); i++ {
			counts[i] = 1
			rest--
		}
		weights := make([]int, len(g.folders))
		total := 0
		for i := 1; i < len(g.folders); i++ {
			weights[i] = roleWeight[g.folders[i].role] * (1 + g.rng.IntN(4))
			total += weights[i]
		}
		for ; rest > 0; rest-- {
			r := g.rng.IntN(total)
			for i := 1; i < len(weights); i++ {
				if r < weights[i] {
					counts[i]++
					break
				}
				r -= weights[i]
			}
		}
	}

	g.notes = make([]note, 0, n)
	g.folderNotes = make([][]int, len(g.folders))
	dupCount := make(map[string]int)
	for f := range g.folders {
		var fixed []string
		if f > 0 {
			// Every folder may repeat a common name; the first two always
			// have an Index, so any vault with two folders has duplicates.
			if f <= 2 {
				fixed = append(fixed, "Index")
			}
			if g.rng.IntN(100) < 30 {
				d := dupNames[g.rng.IntN(len(dupNames))]
				if !containsFold(fixed, d) {
					fixed = append(fixed, d)
				}
			}
		}
		for k := range counts[f] {
			i := len(g.notes)
			g.notes = append(g.notes, note{folder: f, role: g.folders[f].role})
			nt := &g.notes[i]
			if k < len(fixed) {
				nt.name = fixed[k]
				nt.role = roleTopic
				if fixed[k] == "Index" {
					nt.role = roleIndex
				}
				dupCount[strings.ToLower(fixed[k])]++
			} else {
				g.nameNote(nt)
			}
			nt.linkPath = joinPath(g.folders[f].path, nt.name)
			g.folderNotes[f] = append(g.folderNotes[f], i)
		}
	}
	for i := range g.notes {
		nt := &g.notes[i]
		nt.dup = dupCount[strings.ToLower(nt.name)] > 1
		g.roleNotes[nt.role] = append(g.roleNotes[nt.role], i)
	}
}

// nameNote gives a note a base name that no other note, alias, folder or
// attachment has, compared case-insensitively.
func (g *generator) nameNote(nt *note) {
	r := g.rng
	f := g.folders[nt.folder]
	if nt.role != roleDaily && nt.role != roleMeeting && r.IntN(10000) < g.cfg.unicode {
		nt.lang = language(1 + r.IntN(int(numLanguages)-1))
		pool := nativeNames[nt.lang]
		for try := 0; ; try++ {
			p := pool[r.IntN(len(pool))]
			name := p.native
			if try >= 3 {
				name += " " + strconv.Itoa(2+r.IntN(try*3))
			}
			if g.claim(name) {
				nt.name = name
				nt.topics = []int{skewed(r, len(topics))}
				return
			}
		}
	}
	switch nt.role {
	case roleDaily:
		// A year folder holds that year; a daily folder without a year
		// starts in 2025 and moves on to later years when full.
		years := []int{f.year}
		if f.year == 0 {
			years = []int{2025, 2026, 2027, 2028, 2029, 2030}
		}
		for _, year := range years {
			start := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
			for day := g.dayCursor[year]; ; day++ {
				d := start.AddDate(0, 0, day)
				if d.Year() != year {
					g.dayCursor[year] = day
					break
				}
				if g.claim(d.Format(time.DateOnly)) {
					nt.name, nt.date = d.Format(time.DateOnly), d
					// Skip a day now and then, as real diaries do.
					g.dayCursor[year] = day + 1 + r.IntN(5)/4
					return
				}
			}
		}
	case roleMeeting:
		year := f.year
		if year == 0 {
			year = 2025
		}
		for range 20 {
			d := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(365))
			kind := meetingTypes[r.IntN(len(meetingTypes))]
			if r.IntN(5) == 0 {
				kind = "1-1 with " + firstNames[r.IntN(len(firstNames))]
			}
			if name := d.Format(time.DateOnly) + " " + kind; g.claim(name) {
				nt.name, nt.date = name, d
				return
			}
		}
	case rolePerson:
		for range 20 {
			name := firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))]
			if g.claim(name) {
				nt.name = name
				return
			}
		}
	case roleBook:
		for range 20 {
			var name string
			switch r.IntN(4) {
			case 0:
				name = "The " + pick(r, bookAdjectives) + " " + pick(r, bookNouns)
			case 1:
				name = "The " + pick(r, bookNouns) + " of " + pick(r, bookNouns) + "s"
			case 2:
				name = "Book - " + pick(r, bookAdjectives) + " " + pick(r, bookNouns)
			default:
				name = pick(r, bookAdjectives) + " " + pick(r, bookNouns) + "s"
			}
			if g.claim(name) {
				nt.name = name
				nt.topics = []int{skewed(r, len(topics))}
				return
			}
		}
	}
	nt.role = roleTopic
	g.nameTopic(nt)
}

func (g *generator) nameTopic(nt *note) {
	r := g.rng
	for try := 0; ; try++ {
		t := r.IntN(len(topics))
		t2 := r.IntN(len(topics))
		topic := topics[t]
		var name string
		switch p := r.IntN(1000); {
		case p < 250:
			name = capitalize(topic)
		case p < 550:
			name = capitalize(topic) + " " + pick(r, nameSuffixes)
		case p < 630:
			name = "How to " + pick(r, howToVerbs) + " " + topic
		case p < 690:
			name = "Notes on " + topic
		case p < 740:
			name = "Why " + topic + " matters"
		case p < 790:
			name = capitalize(topic) + " vs " + topics[t2]
		case p < 850:
			name = capitalize(topic) + " (" + strconv.Itoa(2018+r.IntN(8)) + ")"
		case p < 890:
			name = capitalize(topic) + " & " + topics[t2]
		case p < 930:
			name = capitalize(topic) + " - " + pick(r, nameSuffixes)
		case p < 970:
			name = capitalize(topic) + " v" + strconv.Itoa(2+r.IntN(4))
		default:
			name = pick(r, firstNames) + "'s " + topic
		}
		if try >= 10 {
			name += " " + strconv.Itoa(2+r.IntN(try*2))
		}
		if g.claim(name) {
			nt.name = name
			nt.topics = []int{t, t2}
			return
		}
	}
}

// claim reserves name if it is a valid, unused file name.
func (g *generator) claim(name string) bool {
	key := strings.ToLower(name)
	if g.taken[key] || !validName(name) || !validName(name+".md") {
		return false
	}
	g.taken[key] = true
	return true
}

// planStructure decides everything about a note that other notes can link
// to (headings, block ids) and its size, before any body is written.
func (g *generator) planStructure(i int) {
	r := g.rng
	nt := &g.notes[i]
	for len(nt.topics) < 2 {
		nt.topics = append(nt.topics, skewed(r, len(topics)))
	}
	nt.words = wordCount(r)
	if nt.role == roleIndex {
		nt.words = min(nt.words, 250)
	}

	switch p := r.IntN(1000); {
	case p < 850:
		nt.fm = fmNormal
	case p < 860:
		nt.fm = fmEmpty
	case p < 863:
		nt.fm = fmInvalid
	}
	if nt.fm == fmNormal && r.IntN(100) < 20 {
		nt.title = nt.name
		if r.IntN(2) == 0 {
			nt.title += ": " + pick(r, []string{"what I learned", "a summary", "work in progress", "first pass", "notes"})
		}
	}

	if nt.words == 0 {
		return
	}
	var hpool []string
	switch nt.lang {
	case langChinese:
		hpool = headingsZH
	case langJapanese:
		hpool = headingsJA
	case langRussian:
		hpool = headingsRU
	case langArabic:
		hpool = headingsAR
	default:
		hpool = headingsEN
	}
	if nt.words > 40 && r.IntN(100) < 35 {
		nt.h1 = true
		nt.headings = append(nt.headings, heading{1, nt.name})
	}
	sections := 0
	if nt.words >= 80 {
		sections = min(nt.words/160+r.IntN(2), 24)
	}
	level := 1
	for range sections {
		switch {
		case level >= 2 && r.IntN(100) < 30:
			level = min(level+1, 4)
		case level > 2 && r.IntN(100) < 40:
		default:
			level = 2
		}
		var text string
		for try := 0; ; try++ {
			if nt.lang == langEnglish && r.IntN(100) < 15 {
				t := topics[nt.topics[r.IntN(len(nt.topics))]]
				text = pick(r, []string{"Notes on ", "More about ", "Thoughts on "}) + t
			} else {
				text = pick(r, hpool)
			}
			if try >= 5 {
				text += " " + strconv.Itoa(try)
			}
			if !hasHeading(nt.headings, text) {
				break
			}
		}
		nt.headings = append(nt.headings, heading{level, text})
	}

	if nt.words >= 60 && r.IntN(100) < 40 {
		first := 0
		if nt.h1 {
			first = 1
		}
		for range 1 + r.IntN(3) {
			var id string
			for {
				if r.IntN(10) < 7 {
					id = randomID(r, 6)
				} else {
					id = pick(r, []string{"key-finding", "decision", "quote", "summary", "todo", "definition"}) + "-" + strconv.Itoa(1+r.IntN(9))
				}
				if !hasBlock(nt.blocks, id) {
					break
				}
			}
			// The intro is one of the places a block can go, as likely as
			// any section.
			section := -1
			if n := len(nt.headings) - first; n > 0 {
				if k := r.IntN(n + 1); k < n {
					section = first + k
				}
			}
			nt.blocks = append(nt.blocks, block{id, section})
		}
	}

	switch {
	case nt.words < 60:
		nt.links = 1 + r.IntN(3)
	default:
		nt.links = min(5+r.IntN(8)+nt.words/500, 30)
	}
}

// wordCount draws a note length: most notes 100-800 words, some 2-5k, a few
// empty or tiny; about 400 on average.
func wordCount(r *rand.Rand) int {
	between := func(lo, hi int) int { return lo + r.IntN(hi-lo) }
	switch p := r.IntN(1000); {
	case p < 5:
		return 0
	case p < 50:
		return between(10, 100)
	case p < 930:
		b := [][2]int{{100, 150}, {150, 220}, {220, 320}, {320, 480}, {480, 800}}[r.IntN(5)]
		return between(b[0], b[1])
	case p < 980:
		return between(800, 2000)
	default:
		return between(2000, 5000)
	}
}

func (g *generator) planAliases() {
	r := g.rng
	for i := range g.notes {
		nt := &g.notes[i]
		if nt.fm != fmNormal || nt.dup || r.IntN(100) >= 25 {
			continue
		}
		var cands []string
		if nt.lang != langEnglish {
			for _, p := range nativeNames[nt.lang] {
				if strings.HasPrefix(nt.name, p.native) {
					cands = append(cands, p.english)
				}
			}
		}
		switch nt.role {
		case rolePerson:
			first, last, _ := strings.Cut(nt.name, " ")
			cands = append(cands, first+" "+string([]rune(last)[:1])+".", string([]rune(first)[:1])+". "+last)
		case roleTopic, roleBook:
			cands = append(cands, capitalize(topics[nt.topics[0]]))
			if a := acronym(nt.name); len(a) >= 3 {
				cands = append(cands, a)
			}
		}
		if len(cands) == 0 {
			cands = append(cands, nt.name+" (old)")
		}
		for _, c := range cands {
			if len(nt.aliases) < 3 && r.IntN(3) > 0 && g.claim(c) {
				nt.aliases = append(nt.aliases, c)
			}
		}
		if len(nt.aliases) > 0 {
			g.aliased = append(g.aliased, i)
		}
	}
}

func (g *generator) planAttachments() {
	r := g.rng
	count := g.cfg.notes * g.cfg.attach / 10000
	if count == 0 && g.cfg.attach > 0 && g.cfg.notes >= 10 {
		count = 1
	}
	if count == 0 {
		return
	}
	shared := 0
	if len(g.folders) > 1 {
		shared = g.addFolder(0, attachmentsFolder)
		g.folderNotes = append(g.folderNotes, nil)
	}
	stamp := time.Date(2022, 3, 1, 9, 0, 0, 0, time.UTC)
	for range count {
		a := attachment{referrer: -1, folder: shared}
		if r.IntN(10) < 9 {
			a.referrer = r.IntN(len(g.notes))
		}
		if a.referrer >= 0 && r.IntN(10) < 3 {
			a.folder = g.notes[a.referrer].folder
		}
		topic := capitalize(topics[skewed(r, len(topics))])
		switch p := r.IntN(100); {
		case p < 60:
			a.kind = kindPNG
		case p < 85:
			a.kind = kindPDF
		default:
			a.kind = kindCanvas
		}
		for try := 0; ; try++ {
			stamp = stamp.Add(time.Duration(1+r.IntN(200000)) * time.Second)
			var name string
			switch a.kind {
			case kindPNG:
				switch r.IntN(10) {
				case 0, 1, 2, 3, 4:
					name = "Pasted image " + stamp.Format("20060102150405") + ".png"
				case 5, 6:
					name = "Screenshot " + stamp.Format("2006-01-02") + " at " + stamp.Format("15.04.05") + ".png"
				default:
					name = strings.ToLower(strings.ReplaceAll(topic, " ", "-")) + "-diagram.png"
				}
			case kindPDF:
				switch r.IntN(4) {
				case 0:
					name = "Invoice " + stamp.Format("2006-01") + ".pdf"
				case 1:
					name = "Scan " + stamp.Format("2006-01-02") + ".pdf"
				default:
					name = topic + " paper.pdf"
				}
			default:
				name = topic + pick(r, []string{" map", " board", " overview"}) + ".canvas"
			}
			if try > 3 {
				name = strings.Replace(name, ".", " "+strconv.Itoa(try)+".", 1)
			}
			if g.claim(name) {
				a.name, a.title = name, topic
				break
			}
		}
		g.attachments = append(g.attachments, a)
		if a.referrer >= 0 {
			g.notes[a.referrer].attach = append(g.notes[a.referrer].attach, len(g.attachments)-1)
		}
	}
}

// planBroken picks the names broken links point to. Real vaults link the
// same missing notes over and over, so the pool is small.
func (g *generator) planBroken() {
	r := g.rng
	want := max(8, g.cfg.notes/25)
	var realFolders []string
	for _, f := range g.folders[1:] {
		if f.name != attachmentsFolder {
			realFolders = append(realFolders, f.path)
		}
	}
	for len(g.broken) < want {
		var b brokenTarget
		switch p := r.IntN(100); {
		case p < 15:
			b.attach = true
			b.name = "Pasted image 2019" + strconv.Itoa(100000000+r.IntN(900000000)) + ".png"
		case p < 30:
			b.name = "Untitled " + strconv.Itoa(1+r.IntN(50))
		default:
			b.name = capitalize(topics[r.IntN(len(topics))]) + pick(r, []string{" (draft)", " later", " someday", " follow-up", " old version", " ideas v0"})
		}
		if len(realFolders) > 0 {
			b.folder = pick(r, realFolders)
		}
		if g.claim(b.name) {
			g.broken = append(g.broken, b)
		}
	}
}

func hasHeading(hs []heading, text string) bool {
	for _, h := range hs {
		if h.text == text {
			return true
		}
	}
	return false
}

func hasBlock(bs []block, id string) bool {
	for _, b := range bs {
		if b.id == id {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func pick(r *rand.Rand, pool []string) string { return pool[r.IntN(len(pool))] }

// skewed returns an index below n, small ones far more often than large
// ones: hubs and common words without floating point.
func skewed(r *rand.Rand, n int) int {
	return r.IntN(r.IntN(r.IntN(n)+1) + 1)
}

func randomID(r *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func capitalize(s string) string {
	s = strings.TrimPrefix(s, "the ")
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func acronym(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(name) {
		c := w[0]
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c)
		default:
			return ""
		}
	}
	return b.String()
}
