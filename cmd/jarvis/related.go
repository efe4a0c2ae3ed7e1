package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

func runRelated(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("related", "jarvis related NOTE",
		`Show the notes related to NOTE (a vault-relative path, a title or an
alias), each with its reasons and a score: links either way, links both
make to the same notes, notes linking to both, similar passages as the
configured embedder measures them, and shared tags (rarer tags count
more). Also shows links to consider (notes close in meaning not linked
either way, with the sentence where the link would go) and unlinked
mentions: where other notes write NOTE's title or an alias as plain
text, and where NOTE writes other notes' names. It is the answer of the
related-notes tool of jarvis mcp.

The index is brought up to date first; --no-refresh uses it as it is.

Exit status: 0 when the note was found, 1 when it was not or the index
failed, 2 for a usage or configuration error, 130 when interrupted.`, e)
	var c common
	c.register(fs)
	limit := fs.Int("limit", related.DefaultLimit, fmt.Sprintf("the most related `notes` shown (1 to %d)", related.MaxLimit))
	noRefresh := fs.Bool("no-refresh", false, "use the index as it is, without bringing it up to date first")
	asJSON := fs.Bool("json", false, "print one JSON object with the answer to stdout")

	// The note as given, spaces and all: a note's name may begin with
	// one, and the lookup trims a reference only after trying it whole.
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	note := strings.Join(words, " ")
	if strings.TrimSpace(note) == "" {
		return fmt.Errorf("give the note to start from: jarvis related NOTE: %w", errUsage)
	}
	if *limit < 1 || *limit > related.MaxLimit {
		return fmt.Errorf("--limit %d: give 1 to %d: %w", *limit, related.MaxLimit, errUsage)
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := checkVaults(e, cfg); err != nil {
		return err
	}

	if empty, ok := nothingIndexed(cfg, *noRefresh); ok {
		// Opening would make an empty database; no note can be found.
		return errors.New(empty)
	}

	var deps container.RelatedDeps
	app := container.NewRelatedApp(cfg, c.logger(e), &deps, container.WithProbe(e.dbProbe))
	if err := container.Err(app); err != nil {
		return explainOpenError(e, cfg, err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer app.Stop(context.Background())

	// Progress shows on a terminal only, as in jarvis search: the refresh
	// is a step on the way to the answer.
	progress := newProgressView(e, *asJSON, false)
	defer progress.Finish()
	var missing []string
	update := !*noRefresh
	if deps.DB.NotWritable() != nil {
		// Opened read-only: this user may read the index, not update it.
		missing = append(missing, readOnlyNote(e, cfg, deps.DB, update))
		update = false
	} else {
		sayWhenWaiting(e, deps.DB, progress, waitingToSearch)
		sayMoves(e, cfg, deps.Indexer, progress)
	}
	why, err := refresh(ctx, cfg.Vaults, deps.Indexer, deps.Vectors, progress, update, true)
	if err != nil {
		return dbError(e, cfg, cfg.DBPath, repeatFlags(err, cfg))
	}
	if why != "" {
		missing = append(missing, why)
	}
	progress.Finish()

	m, err := deps.Graph.FindNote(ctx, "", note)
	if err != nil {
		var nf *graph.NotFoundError
		if errors.As(err, &nf) {
			return nf // it says what to pass instead
		}
		return fmt.Errorf("find %q: %w", note, err)
	}
	for _, o := range m.Others {
		if o.Vault != m.Vault {
			return fmt.Errorf("%q matches notes in vaults %q and %q; pass --vault to choose one: %w", note, m.Vault, o.Vault, errUsage)
		}
	}
	a, err := deps.Related.Find(ctx, related.Query{Vault: m.Vault, Path: m.Path, Limit: *limit, Reader: notes.ReaderTerminal})
	if err != nil {
		return fmt.Errorf("related notes of %s: %w", m.Path, err)
	}
	a.Missing = append(missing, a.Missing...)
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(a)
	}
	printRelated(e.stdout, a, graph.OtherPaths(m.Others, maxOtherMatches))
	return nil
}

// maxOtherMatches bounds the other notes named when NOTE matched several.
const maxOtherMatches = 20

// printRelated prints the answer a; others are the paths of the other
// notes the name asked about matched as well.
func printRelated(w io.Writer, a related.Answer, others []string) {
	fmt.Fprintf(w, "Related to %s (%s: %s)\n", a.Title, a.Vault, a.Path)
	if also := related.AlsoMatching(others); also != "" {
		fmt.Fprintln(w, also)
	}
	for _, m := range a.Missing {
		fmt.Fprintf(w, "note: %s\n", m)
	}
	if strings.HasPrefix(a.Embedder, "lexical/") {
		fmt.Fprintln(w, "note: similarity is lexical (shared words and word pieces), not meaning")
	}
	fmt.Fprintln(w)
	if len(a.Related) == 0 {
		fmt.Fprintln(w, "No related notes found.")
	}
	for i, n := range a.Related {
		where := n.Path
		if t := vault.TitleBeside(n.Path, n.Title); t != "" {
			where += " — " + t
		}
		fmt.Fprintf(w, "%2d. %s  (%s)\n", i+1, where, search.FormatScore(n.Score))
		for _, r := range n.Reasons {
			fmt.Fprintf(w, "    %-12s %s\n", related.Label(r.Kind), r.Detail)
		}
	}
	if len(a.Suggestions) > 0 {
		fmt.Fprintln(w, "\nLinks to consider:")
		for _, s := range a.Suggestions {
			fmt.Fprintf(w, "  %s  (%s, similarity %s)\n", s.Link, s.Path, search.FormatScore(s.Similarity))
			if s.Sentence != "" {
				fmt.Fprintf(w, "    line %d (%s): %s\n", s.Line, s.Because, s.Sentence)
			}
		}
	}
	if len(a.Mentions) > 0 {
		more := ""
		if a.MentionsCut {
			more = ", in the notes that use its names most; there may be more"
		}
		fmt.Fprintf(w, "\nUnlinked mentions (%d found%s):\n", a.MentionsFound, more)
		for _, m := range a.Mentions {
			fmt.Fprintf(w, "  %s:%d  %q: %s\n", m.Path, m.Line, m.Name, m.Sentence)
			if m.MoreInNote > 0 {
				fmt.Fprintf(w, "  … and %s in %s\n", words.Count(m.MoreInNote, "more line"), m.Path)
			}
		}
	}
	if len(a.Mentioning) > 0 {
		fmt.Fprintln(w, "\nOther notes named in this note:")
		for _, m := range a.Mentioning {
			fmt.Fprintf(w, "  line %d  %q (%s): %s\n", m.Line, m.Name, m.Path, m.Sentence)
		}
	}
}
