package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/index"
	basequery "github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// searchOutput is what `jarvis search --json` prints.
type searchOutput struct {
	Query    string         `json:"query"`
	Mode     search.Mode    `json:"mode"`
	Results  []notes.Result `json:"results"`
	Embedder string         `json:"embedder"` // empty in keyword mode
	// Degraded says why the answer is less than the mode asked for, such
	// as semantic search answering with keywords while no vectors exist.
	Degraded  string   `json:"degraded"`
	Truncated bool     `json:"truncated"`
	Empty     string   `json:"empty,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	// Alternatives says what each --alt searched added.
	Alternatives []search.AlternativeHits `json:"alternatives,omitempty"`
	// indexNotes is how many of Notes, from the first, say what is wrong
	// with the index: a reader sees them above Degraded, which says what
	// was read instead.
	indexNotes int
}

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("search", `jarvis search "QUERY"`,
		`Search your vaults from the terminal. Before searching, the index is
brought up to date with the vaults (only what changed is read again);
--no-refresh searches the index as it is.

Modes:
  combined  keyword and semantic results, their scores normalised and
            summed (the default)
  keyword   full-text search with BM25 ranking over titles, aliases,
            headings and text; "quoted phrases" and prefix* matching
  semantic  notes whose passages are nearest to the query as the
            configured embedder measures it (the default lexical embedder
            measures shared words and word pieces, not meaning)

Exit status: 0 when the search ran (even with no results), 1 when it
failed, 2 for a usage or configuration error, 130 when interrupted.`, e)
	var c common
	c.register(fs)
	modeName := fs.String("mode", string(search.ModeCombined), "`mode`: keyword, semantic or combined")
	def, most := search.Limits(search.ModeCombined)
	keywordDef, _ := search.Limits(search.ModeKeyword)
	// 0: the mode's default, known once the mode is.
	limit := fs.Int("limit", 0, fmt.Sprintf("the most `notes` shown, 1 to %d (default %d, %d in keyword mode)", most, def, keywordDef))
	prefix := fs.String("path-prefix", "", "only notes whose path starts with `prefix`")
	tag := fs.String("tag", "", "only notes with this `tag` or one nested under it")
	where := fs.String("where", "", "only notes passing this Bases filter `expression`, as jarvis query reads it")
	threshold := fs.Float64("threshold", 0, "semantic mode: drop notes less similar than this (0 to 1)")
	var alts stringList
	fs.Var(&alts, "alt", fmt.Sprintf("another `phrasing` of the query, or a synonym, searched with it and merged into one ranking (repeatable, up to %d)", search.MaxAlternatives))
	namesOnly := fs.Bool("names-only", false, "match titles, aliases and paths only (a keyword search)")
	noRefresh := fs.Bool("no-refresh", false, "search the index as it is, without bringing it up to date first")
	asJSON := fs.Bool("json", false, "print one JSON object with the results to stdout")

	query, err := parseWithQuery(fs, args)
	if err != nil {
		return err
	}
	if query == "" {
		return fmt.Errorf(`give the text to search for: jarvis search "QUERY": %w`, errUsage)
	}
	if err := search.CheckQuery(query); errors.Is(err, search.ErrQueryTooLong) {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := search.CheckAlternatives(alts); err != nil {
		return fmt.Errorf("--alt: %w: %w", err, errUsage)
	}
	mode, err := search.ParseMode(*modeName)
	if err != nil {
		return fmt.Errorf("--mode: %w: %w", err, errUsage)
	}
	if *namesOnly && mode != search.ModeKeyword {
		// Names are matched by keyword; the default mode gives way.
		if flagSet(fs, "mode") {
			return fmt.Errorf("--names-only matches names by keyword; it cannot be used with --mode %s: %w", mode, errUsage)
		}
		mode = search.ModeKeyword
	}
	if _, most := search.Limits(mode); flagSet(fs, "limit") && (*limit < 1 || *limit > most) {
		return fmt.Errorf("--limit %d: give 1 to %d: %w", *limit, most, errUsage)
	}
	if flagSet(fs, "threshold") && mode != search.ModeSemantic {
		// Only semantic search measures similarity against a threshold,
		// and names are matched by keyword only.
		if *namesOnly {
			return fmt.Errorf("--threshold applies to semantic search only, and --names-only matches names by keyword: leave one of them out: %w", errUsage)
		}
		return fmt.Errorf("--threshold applies to semantic search only: add --mode semantic, or leave --threshold out: %w", errUsage)
	}
	if *threshold < 0 || *threshold > 1 {
		return fmt.Errorf("--threshold %v: give 0 to 1: %w", *threshold, errUsage)
	}
	if p := notes.TagProblem(*tag); p != "" {
		return fmt.Errorf("--tag %q %s: %w", *tag, p, errUsage)
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if len(cfg.Vaults) == 0 && !noDatabase(cfg.DBPath) {
		if err := vaultsToSearch(ctx, e, cfg, append(commandFlags(fs), query)); err != nil {
			return err
		}
	}
	// A vault whose folder is missing is not an error here while another
	// can be searched: the answer says so, beside what the others give.
	// When none can, nothing is searched, and no database is made.
	if err := checkConfigured(e, cfg); err != nil {
		return err
	}
	if err := folderError(cfg, true); err != nil {
		return err
	}
	out := searchOutput{Query: query, Mode: mode, Results: []notes.Result{}}
	if empty, ok := nothingIndexed(cfg, *noRefresh); ok {
		out.Empty = empty
		return printSearch(e, out, *asJSON, len(cfg.Vaults) > 1)
	}

	var deps container.SearchDeps
	app := container.NewSearchApp(cfg, c.logger(e), &deps, container.WithProbe(e.dbProbe))
	if err := container.Err(app); err != nil {
		return explainOpenError(e, cfg, err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer app.Stop(context.Background())

	// Progress shows on a terminal only: the refresh is a step on the
	// way to the results, not worth lines of its own in a log.
	progress := newProgressView(e, *asJSON, false)
	defer progress.Finish()
	// Keyword search needs no vectors; loading them costs time and memory
	// in proportion to the vault.
	update, withVectors := !*noRefresh, mode != search.ModeKeyword
	var dbNote string
	// unreadable is set when dbNote says why the index cannot be read and
	// how to fix it: the search service scans the note files, as the
	// server does, and its answer says only that (Query.IndexExplained).
	unreadable := false
	switch db, err := deps.Handle.DB(ctx); {
	case err != nil:
		update, withVectors, unreadable = false, false, true
		lead := "the index cannot be read"
		if noDatabase(cfg.DBPath) {
			// Never made: nothing to read, and it cannot be made.
			lead = "the index does not exist yet, and it cannot be made there"
		}
		if dbNote, err = indexNote(e, cfg, err, lead); err != nil {
			return err
		}
	case db.NotWritable() != nil:
		dbNote = readOnlyNote(e, cfg, db, update)
		update = false
	default:
		sayWhenWaiting(e, db, progress, waitingToSearch)
		sayMoves(e, cfg, deps.Indexer, progress)
	}
	if out.Degraded, err = refresh(ctx, cfg.Vaults, deps.Indexer, deps.Vectors, progress, update, withVectors); err != nil {
		if ue := (*index.ObsidianUnknownError)(nil); errors.As(err, &ue) {
			// The refusal is the index pass's; the search is what the
			// user asked for.
			return fmt.Errorf("the search was not run: it brings the index up to date first, and %s; to fix it, %s; to search the index as it is meanwhile, run %s",
				ue.Why(), ue.Fix(), cfg.Invocation().Command("search", append(commandFlags(fs), "--no-refresh", query)...))
		}
		unreadable = store.Classify(err) == store.KindDamaged
		if dbNote, err = indexNote(e, cfg, repeatFlags(err, cfg), "the index could not be brought up to date"); err != nil {
			return err
		}
	}
	progress.Finish()
	// Only the configured vaults: the database may hold others.
	filter := notes.Filter{PathPrefix: *prefix, Tag: *tag, Where: *where, Vaults: config.Names(cfg.Vaults)}
	a, err := deps.Search.Search(ctx, search.Query{Mode: mode, Text: query, Limit: *limit, Filter: filter,
		Threshold: *threshold, NamesOnly: *namesOnly, Alternatives: alts, Reader: notes.ReaderTerminal,
		IndexExplained: unreadable})
	if errors.Is(err, notes.ErrEmptyQuery) {
		return fmt.Errorf(`the query has nothing to search for; give words: jarvis search "QUERY": %w`, errUsage)
	}
	var we *basequery.WhereError
	switch {
	case errors.Is(err, search.ErrIndexUnreadable):
		return err // it says what to do
	case errors.As(err, &we):
		if e, ok := exprFlagError("--where", we.Err); ok {
			return e
		}
		return fmt.Errorf("--where: %w", we.Err)
	case err != nil:
		return fmt.Errorf("search: %w", err)
	}
	out.Results, out.Embedder, out.Truncated, out.Empty, out.Notes = a.Results, a.Embedder, a.Truncated, a.Empty, a.Notes
	out.Alternatives = a.Alternatives
	if dbNote != "" {
		out.Notes = append([]string{dbNote}, out.Notes...)
		out.indexNotes = 1
	}
	out.Degraded = joinNotes(out.Degraded, a.Reason)
	return printSearch(e, out, *asJSON, len(cfg.Vaults) > 1)
}

// vaultsToSearch is the usage error of a search given no vault whose
// database holds some: it names them and the command, with --vault and
// args (the search's own flags and query), that searches them. A search
// given no vault searches none. It is nil when the database holds none or
// cannot say, and checkConfigured says what to do.
func vaultsToSearch(ctx context.Context, e *env, cfg config.Config, args []string) error {
	stored, err := readStoredVaults(ctx, e, cfg.DBPath)
	if err != nil || len(stored) == 0 {
		return nil
	}
	inv := cfg.Invocation()
	var names []string
	for _, v := range stored {
		names = append(names, fmt.Sprintf("%q (%s)", v.Name, v.Path))
		inv = append(inv, "--vault", v.Path)
	}
	vaults, them := "vault", "it"
	if len(stored) > 1 {
		vaults, them = "vaults", "them"
	}
	return fmt.Errorf("no vault given; the database %s holds the %s %s: to search %s, run %s: %w",
		cfg.DBPath, vaults, words.List(names), them, inv.Command("search", args...), errUsage)
}

// printSearch writes the answer as JSON or for a reader.
func printSearch(e *env, out searchOutput, asJSON, showVault bool) error {
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(out)
	}
	printResults(e.stdout, out, showVault, e.stdoutIsTerminal)
	return nil
}

// noDatabase reports whether there is no database file at path: none was
// ever made there.
func noDatabase(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// nothingIndexed is the answer of a command that reads the index as it is
// (--no-refresh, noRefresh) when no database was ever made at cfg's path:
// nothing is indexed, and opening it would make an empty database. ok is
// false when the command goes on. search and related both ask it.
func nothingIndexed(cfg config.Config, noRefresh bool) (answer string, ok bool) {
	if !noRefresh || !noDatabase(cfg.DBPath) {
		return "", false
	}
	return index.Explain(index.NoIndex(cfg.Vaults), index.State{}, cfg.Invocation()).Empty, true
}

// waitingToSearch is what a search or related waiting for another jarvis's
// writer adds to the line that says it waits: the way not to.
const waitingToSearch = "add --no-refresh to use the index as it is now, or press Ctrl-C to stop waiting"

// readOnlyNote is the note for a database this user may read but not
// write, opened read-only: the index was used as it is. With update
// unset (--no-refresh) no update was asked for, and the note says only
// that later updates will fail, and the fix.
func readOnlyNote(e *env, cfg config.Config, db *store.DB, update bool) string {
	lead := "the index could not be brought up to date, so it was used as it is"
	if !update {
		lead = "updates of the index will fail"
	}
	note, _ := indexNote(e, cfg, db.NotWritable(), lead)
	return note
}

// indexNote is the note, above a search's results, for a database error
// met on the way (store.Explain): lead says what it meant for the search,
// then what is wrong and the fix; the answer's reason says what was read
// instead. A search goes on past the database's state (a file this user
// may only read, a damaged one); it stops, with err as it is, for
// anything else.
func indexNote(e *env, cfg config.Config, err error, lead string) (string, error) {
	x, ok := store.Explain(cfg.DBPath, err, cfg.Invocation(), e.dbProbe)
	if !ok || x.Kind == store.KindOther {
		return "", dbError(e, cfg, cfg.DBPath, err)
	}
	if x.Kind == store.KindDamaged {
		// Its why says itself which parts cannot be read: a damaged
		// index may still answer in part.
		return x.Why + "; to fix it, " + x.Fix, nil
	}
	return lead + ": " + x.Why + "; to fix it, " + x.Fix, nil
}

// parseWithQuery parses flags placed before or after the query, joining
// the words of the query: `jarvis search link syntax --mode keyword`.
func parseWithQuery(fs *flag.FlagSet, args []string) (string, error) {
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.Join(words, " ")), nil
}

// parseInterleaved parses flags placed anywhere among the positional
// arguments, and returns those in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// printResults writes the results for a reader; matched words are bold
// when bold is true (stdout is a terminal) and unmarked otherwise, so that
// piped output holds the notes' text and no markers.
func printResults(w io.Writer, out searchOutput, showVault, bold bool) {
	// Why the index could not be used comes before what was done
	// instead.
	for _, n := range out.Notes[:out.indexNotes] {
		fmt.Fprintf(w, "note: %s\n\n", n)
	}
	if out.Degraded != "" {
		fmt.Fprintf(w, "note: %s\n\n", out.Degraded)
	}
	for _, n := range out.Notes[out.indexNotes:] {
		fmt.Fprintf(w, "note: %s\n\n", n)
	}
	if len(out.Results) == 0 {
		fmt.Fprintln(w, out.Empty)
		return
	}
	for i, r := range out.Results {
		where := r.Path
		if showVault {
			where = r.Vault + ": " + r.Path
		}
		if t := vault.TitleBeside(r.Path, r.Title); t != "" {
			where += " — " + t
		}
		fmt.Fprintf(w, "%2d. %s  (%s", i+1, where, search.FormatScore(r.Score))
		if len(r.Retrievers) > 0 {
			fmt.Fprintf(w, "; %s", strings.Join(r.Retrievers, ", "))
		}
		fmt.Fprintln(w, ")")
		loc := fmt.Sprintf("line %d", r.Line)
		if label := r.HeadingLabel(); label != "" {
			loc = label + " · " + loc
		}
		fmt.Fprintf(w, "    %s\n", loc)
		if r.Snippet != "" {
			fmt.Fprintf(w, "    %s\n", showSnippet(r.Snippet, bold))
		}
		fmt.Fprintln(w)
	}
	for _, h := range out.Alternatives {
		fmt.Fprintf(w, "--alt %q %s\n", h.Text, h.Said())
	}
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// refresh brings the index of vaults up to date, when update is set, and
// readies the vectors when withVectors is set: synced with the notes when
// update is set, else loaded as stored. A failed sync leaves the stored
// vectors in use; the returned sentence says so, for the answer to
// carry. Only an interruption, or the database's state
// (store.Classify), is an error.
func refresh(ctx context.Context, vaults []config.Vault, ix *index.Indexer, vec *vectors.Vectors, progress *progressView, update, withVectors bool) (string, error) {
	if update {
		for _, v := range vaults {
			if index.FolderProblem(v.Path) != "" {
				continue // the answer says why it was not searched
			}
			if _, err := ix.Index(ctx, v, progress.Index(v.Name)); err != nil {
				if withVectors && ctx.Err() == nil && store.Classify(err) != store.KindOther {
					// The database cannot be written (locked by another
					// program, a full disk), yet its stored vectors
					// may still be read: semantic search answers from
					// them, or says why it cannot (search.VectorsAbsent),
					// not that none were made.
					vec.Serve()
					vec.Load(ctx)
				}
				return "", err
			}
		}
	}
	if !withVectors {
		return "", nil
	}
	vec.Serve()
	if !update {
		if err := vec.Load(ctx); err != nil && ctx.Err() != nil {
			return "", err
		}
		return "", nil
	}
	if _, err := vec.Sync(ctx, vectors.SyncOptions{Progress: progress.Vectors()}); err != nil {
		if ctx.Err() != nil || store.Classify(err) != store.KindOther {
			// The database's state is the caller's to explain.
			return "", err
		}
		if errors.Is(err, vectors.ErrNoEmbedder) {
			// The search says the embedder is not available, and why.
			return "", nil
		}
		return fmt.Sprintf("vectors could not be brought up to date (%v)", err), nil
	}
	return "", nil
}
