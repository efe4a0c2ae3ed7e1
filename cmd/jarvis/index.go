package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// indexOutput is the one JSON object `jarvis index --json` prints.
type indexOutput struct {
	Vaults []index.Result `json:"vaults"`
	// Forgotten names the vaults --forget dropped, with their notes.
	Forgotten []forgotten `json:"forgotten,omitempty"`
	// Embeddings is shown in the plain summary; the JSON keeps the shape
	// the README documents.
	Embeddings vectors.SyncResult `json:"-"`
	// VectorsError is why vectors could not be brought up to date; the
	// notes are indexed all the same and keyword search works. The run
	// then exits with 3.
	VectorsError string `json:"vectors_error,omitempty"`
	DurationMS   int64  `json:"duration_ms"`
	// Rebuilt is set for --rebuild: every note is indexed afresh, and
	// "added" would read as new notes.
	Rebuilt bool `json:"-"`
}

type forgotten struct {
	Name  string `json:"name"`
	Notes int    `json:"notes"`
}

func runIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("index", "jarvis index",
		`Build or refresh the index of your vaults. Only notes whose size or
modification time changed, and whose content differs, are parsed again;
notes gone from disk are removed and links to them become unresolved.
An interrupted run (Ctrl-C, a crash, kill -9) leaves a consistent index,
and the next run finishes the work.

Exit status: 0 on success, 1 when indexing failed, 2 for a usage or
configuration error, 3 when the notes were indexed but their vectors for
semantic search could not be made (keyword search works; the message
says why), 130 when interrupted.`, e)
	if e.getenv("GOGC") == "" {
		// As the server does (see mcp.go): a run that embeds with a local
		// model holds the model and its working memory besides the index,
		// and the heap peaks at 1.5 times what is live rather than twice.
		debug.SetGCPercent(50)
	}
	var c common
	c.register(fs)
	rebuild := fs.Bool("rebuild", false, "build a fresh index beside the database, then put it in its place; a damaged database is kept as a timestamped backup")
	noEmbed := fs.Bool("no-embed", false, "index notes only, without making vectors for semantic search (the next run without it makes them)")
	reembed := fs.Bool("reembed", false, "embed every note again, dropping all stored vectors (after changing the embedder)")
	asJSON := fs.Bool("json", false, "print one JSON object with the results to stdout")
	var forget stringList
	fs.Var(&forget, "forget", "drop the vault of this `name` from the database, such as one no longer configured (repeatable; the files are not touched)")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	// Forgetting needs only the database: with no vault configured,
	// --forget drops the vaults it names and indexes nothing.
	forgetOnly := len(forget) > 0 && len(cfg.Vaults) == 0 && !*rebuild && !*reembed
	if *rebuild && len(cfg.Vaults) == 0 && !noDatabase(cfg.DBPath) {
		// The fix for a damaged database names only the database when
		// the run that found it had no vault: the rebuild indexes again
		// the vaults the database holds, as far as it can still be read.
		if err := vaultsOfDatabase(ctx, e, &cfg); err != nil {
			return err
		}
	}
	if !forgetOnly {
		if err := checkVaults(e, cfg); err != nil {
			return err
		}
	} else if noDatabase(cfg.DBPath) {
		// Nothing to forget, and no database to make for it.
		return fmt.Errorf("--forget: there is no database at %s, so no vault to drop; give the --db that holds it: %w", cfg.DBPath, errUsage)
	}
	log := c.logger(e)
	start := time.Now()

	dbPath := cfg.DBPath
	var rb *store.Rebuild
	if *rebuild {
		rb, err = store.BeginRebuild(ctx, dbPath, store.Options{Probe: e.dbProbe}, func() {
			fmt.Fprintf(e.stderr, "jarvis: %s\n", waitingLine(dbPath))
		})
		if err != nil {
			return fmt.Errorf("rebuild: %w", dbError(e, cfg, dbPath, err))
		}
		defer rb.Close()
		// The fresh index is built beside the database; the database is
		// read by others meanwhile, and replaced once it is complete.
		cfg.DBPath = rb.Fresh
	}

	var deps container.IndexDeps
	app := container.NewIndexApp(cfg, log, &deps, container.WithProbe(e.dbProbe))
	if err := container.Err(app); err != nil {
		return explainOpenError(e, cfg, err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			app.Stop(context.Background())
		}
	}()
	progress := newProgressView(e, *asJSON, true)
	// The line is erased before anything else is printed, an error too.
	defer progress.Finish()
	sayWhenWaiting(e, deps.DB, progress)
	sayMoves(e, cfg, deps.Indexer, progress)

	if rb != nil {
		if err := rb.CopyVectors(ctx, deps.DB); err != nil {
			// Only time is lost: the vectors are made again.
			log.Warn("stored vectors not kept; they are made again", "err", err)
		}
	}
	out := indexOutput{Vaults: []index.Result{}, Rebuilt: rb != nil}
	for _, name := range forget {
		notes, err := deps.Indexer.Forget(ctx, name)
		if err != nil {
			// Dropping a vault reads every row of it: a damaged page
			// is said as any other run says it.
			return dbError(e, cfg, cfg.DBPath, fmt.Errorf("--forget: %w", err))
		}
		out.Forgotten = append(out.Forgotten, forgotten{Name: name, Notes: notes})
		if !*asJSON {
			back := ""
			if cfg.Lists(name) && !slices.Contains(config.Names(cfg.Vaults), name) {
				// Narrowed by --vault or JARVIS_VAULT: the config file
				// still lists it.
				back = fmt.Sprintf("; %s lists it: the next run without %s indexes it again", cfg.FileOrigin(), cfg.VaultOrigin())
			}
			fmt.Fprintf(e.stderr, "jarvis: dropped vault %q (%s) from the index%s\n", name, words.Count(notes, "note"), back)
		}
	}
	// Said before the rules are checked: a broken setting drops filters,
	// which the check may then refuse.
	for _, v := range cfg.Vaults {
		if v.ObsidianProblem != "" {
			fmt.Fprintf(e.stderr, "jarvis: vault %q: %s\n", v.Name, v.ObsidianProblem)
		}
	}
	// After --forget, which frees a name for another folder or rules.
	if err := repeatFlags(index.CheckVaults(ctx, deps.DB, cfg.Vaults), cfg); err != nil {
		if errors.Is(err, index.ErrVaultRebound) {
			return err
		}
		return dbError(e, cfg, cfg.DBPath, err)
	}
	for _, v := range cfg.Vaults {
		res, err := deps.Indexer.Index(ctx, v, progress.Index(v.Name))
		if err != nil {
			return dbError(e, cfg, cfg.DBPath, repeatFlags(err, cfg))
		}
		out.Vaults = append(out.Vaults, res)
	}
	var vectorsErr error
	// The vectors of what was forgotten go at the next run with a vault,
	// under the embedder its configuration names.
	if !*noEmbed && !forgetOnly {
		out.Embeddings, err = deps.Vectors.Sync(ctx, vectors.SyncOptions{Reembed: *reembed, Progress: progress.Vectors()})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if store.Classify(err) != store.KindOther {
				// The database's state, not the embedder's: the fix
				// is the database's.
				return dbError(e, cfg, cfg.DBPath, err)
			}
			out.VectorsError = err.Error()
			vectorsErr = explainVectorsError(err, cfg)
		}
	}
	progress.Finish()
	if rb != nil {
		stopped = true
		if err := app.Stop(context.Background()); err != nil {
			return fmt.Errorf("rebuild: close the fresh index: %w", err)
		}
		if err := commitRebuild(e, rb); err != nil {
			return err
		}
	}
	out.DurationMS = time.Since(start).Milliseconds()
	if *asJSON {
		if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
			return err
		}
		return vectorsErr
	}
	printIndexSummary(e.stdout, out, dbPath, cfg.Invocation())
	sayDuplicates(ctx, e, deps.DB, cfg)
	return vectorsErr
}

// sayDuplicates says, once at the end of a run, each vault the database
// holds under another name that shares notes with one indexed now
// (index.Duplicates), in the words of doctor's check.
func sayDuplicates(ctx context.Context, e *env, db *store.DB, cfg config.Config) {
	dups, err := index.Duplicates(ctx, db, cfg)
	if err != nil || len(dups) == 0 {
		return // doctor's check says why it cannot tell
	}
	stats, err := index.Stats(ctx, db)
	if err != nil {
		return
	}
	notes := map[string]int{}
	for _, st := range stats {
		notes[st.Name] = st.Notes
	}
	for _, name := range slices.Sorted(maps.Keys(dups)) {
		detail, fix := dups[name].Warning(notes[name], cfg.Invocation().Forget(name))
		fmt.Fprintf(e.stderr, "jarvis: %s; %s\n", detail, fix)
	}
}

// sayMoves has ix say a vault it finds moved (index.Move) on stderr, as a
// line of its own, with a --forget command that repeats the flags of cfg.
func sayMoves(e *env, cfg config.Config, ix *index.Indexer, progress *progressView) {
	ix.OnMove = func(m index.Move) {
		progress.Clear()
		fmt.Fprintf(e.stderr, "jarvis: %s\n", m.Warning(cfg.Invocation()))
	}
}

// explainVectorsError says what an index run whose vectors could not be
// made with the embedder of cfg did and did not do, and what to do about
// it: in the words of the embedder's kind (a local model has no server).
func explainVectorsError(err error, cfg config.Config) error {
	inv := cfg.Invocation()
	noEmbed := "or run " + inv.Command("index", "--no-embed") + " to index without vectors"
	var fix string
	switch {
	case cfg.Embedder.Provider == config.ProviderLocal && errors.Is(err, hub.ErrNotInstalled):
		// The error says how to pull it.
		fix = noEmbed
	case cfg.Embedder.Provider == config.ProviderLocal:
		fix = embed.LocalFix(cfg.Embedder.Model, err) + ", " + noEmbed
	default:
		slow := ""
		if errors.Is(err, embed.ErrTimeout) || errors.Is(err, vectors.ErrRunTimeout) {
			slow = fmt.Sprintf("; if it is only slow, raise batch_timeout or run_timeout under embedder: in the config file (or %s, %s)",
				config.EnvEmbedBatchTimeout, config.EnvEmbedRunTimeout)
		}
		fix = "check that the embedding server runs and answers (" + inv.Command("doctor") + " tries it)" + slow + ", " + noEmbed
	}
	return fmt.Errorf("notes are indexed and keyword search works, but vectors for semantic search could not be made: %v; %s; "+
		"semantic search answers with keyword search until vectors are made: %w", err, fix, errNoVectors)
}

// commitRebuild puts the fresh index of rb in the database's place and
// tells the user where a database that could not be kept in use went.
func commitRebuild(e *env, rb *store.Rebuild) error {
	backup, err := rb.Commit(time.Now())
	if err != nil {
		return err
	}
	if backup == "" {
		return nil
	}
	why := "it was written by a newer jarvis"
	if rb.Old.Damaged() {
		switch {
		case rb.Old.OpenErr != nil:
			why = "it was damaged: " + store.Damage(rb.Old.OpenErr)
		case rb.Old.Err != nil:
			why = "it was damaged: " + store.Damage(rb.Old.Err)
		default:
			why = "it failed its " + rb.Old.Check + " (" + rb.Old.Findings() + ")"
		}
	}
	fmt.Fprintf(e.stderr, "jarvis: the old database %s is kept as %s: %s; the fresh index took its place\n", rb.Path, backup, why)
	return nil
}

// explainOpenError says what an error from opening the database of cfg
// means and what to do (dbError); an error store.Explain does not name is
// most likely a folder that cannot be made.
func explainOpenError(e *env, cfg config.Config, err error) error {
	if _, ok := store.Explain(cfg.DBPath, err, cfg.Invocation(), e.dbProbe); !ok {
		return fmt.Errorf("database %s: %w; check that its folder exists and is writable, or choose another with --db", cfg.DBPath, err)
	}
	return dbError(e, cfg, cfg.DBPath, err)
}

// dbError is err, met while using the database at path, in the words of
// store.Explain when it is about the database: what is wrong and the fix,
// whose commands repeat the user's flags. Any other error is left as it is.
func dbError(e *env, cfg config.Config, path string, err error) error {
	return store.Explained(path, err, cfg.Invocation(), e.dbProbe)
}

// readStoredVaults opens the database at path read-only and lists the
// vaults it holds (index.StoredVaults).
func readStoredVaults(ctx context.Context, e *env, path string) ([]config.Vault, error) {
	db, err := store.Open(ctx, path, store.Options{ReadOnly: true, Probe: e.dbProbe})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return index.StoredVaults(ctx, db)
}

// vaultsOfDatabase gives cfg, which names no vault, the vaults its
// database holds, and says which.
func vaultsOfDatabase(ctx context.Context, e *env, cfg *config.Config) error {
	var err error
	cfg.Vaults, err = readStoredVaults(ctx, e, cfg.DBPath)
	switch {
	case err != nil:
		return fmt.Errorf("no vault given, and which vaults the database %s holds cannot be read from it (%s): %s: %w",
			cfg.DBPath, store.Said(err), cfg.NoVaultFix(e.getenv), errUsage)
	case len(cfg.Vaults) == 0:
		return fmt.Errorf("no vault given, and the database %s holds none: %s: %w", cfg.DBPath, cfg.NoVaultFix(e.getenv), errUsage)
	}
	cfg.VaultSource = config.VaultsFromDatabase
	var names []string
	for _, v := range cfg.Vaults {
		names = append(names, fmt.Sprintf("%s (%s)", v.Name, v.Path))
	}
	fmt.Fprintf(e.stderr, "jarvis: no vault given, so the rebuild indexes the vaults the database holds: %s\n",
		words.List(names))
	return nil
}

// nowExcluded says, for a summary's line of changes, how many files were
// removed because the exclude patterns now leave them out; "" for none.
func nowExcluded(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d now excluded, ", n)
}

// otherVectors says where the vectors of the n passages not embedded in a
// run came from: shared of them have the text of a passage embedded now,
// the rest had a vector before the run.
func otherVectors(n, shared int) string {
	shared = min(shared, n)
	before := n - shared
	sharedWords := words.Agree(shared, "shares the text of a passage embedded now", "share the text of a passage embedded now")
	const beforeWords = "already had a vector"
	switch {
	case shared == 0:
		return words.Agree(n, "the other one ", fmt.Sprintf("the other %d ", n)) + beforeWords
	case before == 0:
		return words.Agree(n, "the other one ", fmt.Sprintf("the other %d ", n)) + sharedWords
	}
	return fmt.Sprintf("%d %s, %d %s", before, beforeWords, shared, sharedWords)
}

// printIndexSummary writes what an index run did; a fix it names repeats
// the flags of the run (inv).
func printIndexSummary(w io.Writer, out indexOutput, dbPath string, inv health.Invocation) {
	for _, r := range out.Vaults {
		fmt.Fprintf(w, "%s (%s)\n", r.Name, r.Path)
		// What the index holds, as list-vaults says it.
		fmt.Fprintf(w, "  %s\n", r.Counts().Words())
		resumed := ""
		if r.Resumed > 0 {
			// Stored by a run cut off before its end, not read again.
			resumed = fmt.Sprintf(", %d finished from the interrupted run", r.Resumed)
		}
		if r.Retried > 0 {
			// Indexed, as the progress said, but still not readable.
			resumed += fmt.Sprintf(", %d tried again but still cannot be read", r.Retried)
		}
		a := r.AttachmentChanges
		if out.Rebuilt {
			// A fresh index: every note in it is added, none is new.
			fmt.Fprintf(w, "  notes: %d indexed afresh%s\n", r.Added+r.Updated+r.Unchanged, resumed)
			if n := a.Added + a.Updated + a.Unchanged; n > 0 {
				fmt.Fprintf(w, "  attachments: %d indexed afresh\n", n)
			}
		} else {
			fmt.Fprintf(w, "  notes: %d added, %d updated, %d deleted, %s%d unchanged%s\n", r.Added, r.Updated, r.Deleted, nowExcluded(r.Excluded), r.Unchanged, resumed)
			if a.Added+a.Updated+a.Deleted+a.Excluded > 0 {
				fmt.Fprintf(w, "  attachments: %d added, %d updated, %d deleted, %s%d unchanged\n", a.Added, a.Updated, a.Deleted, nowExcluded(a.Excluded), a.Unchanged)
			}
		}
		if r.Links == 0 {
			fmt.Fprintf(w, "  no links\n")
		} else {
			fmt.Fprintf(w, "  %s: %d resolved, %d unresolved\n", words.Count(r.Links, "link"), r.ResolvedLinks, r.UnresolvedLinks)
		}
		if !r.Problems.None() {
			fmt.Fprintf(w, "  %s: run %s for details\n", r.Problems.Words(), inv.Command("doctor"))
		}
	}
	if em := out.Embeddings; em.Embedder != "" {
		// Embedded counts texts: a passage whose text another passage
		// has, or whose vector was stored before, needs no embedding.
		others := ""
		if em.Embedded > 0 && em.Embedded < em.Vectors {
			others = "; " + otherVectors(em.Vectors-em.Embedded, em.Shared)
		}
		// Vectors are made for the whole database: when it holds vaults
		// this run did not index, say so, or the count reads as this
		// run's vaults'.
		label := "vectors"
		passages := 0
		for _, r := range out.Vaults {
			passages += r.Passages
		}
		if passages != em.Chunks {
			label = "vectors (all vaults in this database)"
		}
		why := ""
		if em.Refitted {
			// Every passage again: say why, or it reads as lost vectors.
			why = "; its word statistics were taken again, as the passages changed much since they were, so every passage was embedded again"
		}
		fmt.Fprintf(w, "%s: %d of %s (%d embedded now%s) with %s%s\n", label, em.Vectors, words.Count(em.Chunks, "passage"), em.Embedded, others, embed.DisplayName(em.Embedder), why)
	}
	if out.VectorsError != "" {
		fmt.Fprintf(w, "vectors: not brought up to date (%s embedded now); the error says why\n", words.Count(out.Embeddings.Embedded, "passage"))
	}
	verb := "indexed into"
	if len(out.Vaults) == 0 && len(out.Forgotten) > 0 {
		verb = "dropped from" // --forget with no vault configured
	}
	fmt.Fprintf(w, "%s %s in %s\n", verb, dbPath, (time.Duration(out.DurationMS) * time.Millisecond).String())
}
