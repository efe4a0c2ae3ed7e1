package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

func runQuery(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("query", `jarvis query`,
		`Run an Obsidian Base over the index and print its rows as a Markdown
table: a .base file or a note with a base code block (--base, --block), one
of its views (--view, the first by default), or a query given here
(--filter, with --formula, --sort, --property and --limit). Before running,
the index is brought up to date with the vaults; --no-refresh runs it over
the index as it is.

Examples:
  jarvis query --base Bases/Projects.base --view "Top priority"
  jarvis query --filter 'status == "active" && due <= today() + "7d"' \
      --sort due --property file.name --property due

Exit status: 0 when the query ran (even with no rows), 1 when it failed,
2 for a usage or configuration error, 130 when interrupted.`, e)
	var c common
	c.register(fs)
	vaultName := fs.String("in", "", "the `name` of the vault to query, when several are configured")
	base := fs.String("base", "", "a .base file or a note with a base block, by its vault-relative `path`")
	block := fs.Int("block", 0, "which base block of the note, from 1 (default the first)")
	view := fs.String("view", "", "the `view` of the base to run (default the first)")
	filter := fs.String("filter", "", "a Bases filter `expression`, or an and/or/not object as JSON")
	var formulas, sorts, props stringList
	fs.Var(&formulas, "formula", "a formula as `name=expression`, read as formula.NAME (repeatable)")
	fs.Var(&sorts, "sort", "a sort key as `property`, property:desc or -property (repeatable, in turn)")
	fs.Var(&props, "property", "a `property` shown as a column, such as file.name or status (repeatable; default the file name)")
	limit := fs.Int("limit", 0, "the most `rows` shown; 0, the default, shows every row (or the view's own limit)")
	noRefresh := fs.Bool("no-refresh", false, "query the index as it is, without bringing it up to date first")
	asJSON := fs.Bool("json", false, "print one JSON object with the rows to stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; give the query with --base or --filter: %w", fs.Arg(0), errUsage)
	}
	if strings.TrimSpace(*base) == "" && strings.TrimSpace(*filter) == "" && len(formulas)+len(sorts)+len(props) == 0 {
		return fmt.Errorf("give --base FILE or --filter EXPRESSION: %w", errUsage)
	}
	in := mcp.QueryNotesInput{Vault: *vaultName, Base: *base, Block: *block, View: *view, Properties: props, Limit: *limit}
	if *limit < 0 || *block < 0 {
		return fmt.Errorf("--limit and --block take a number of 0 or more: %w", errUsage)
	}
	if f := strings.TrimSpace(*filter); f != "" {
		if strings.HasPrefix(f, "{") {
			in.Filter = json.RawMessage(f)
			if !json.Valid(in.Filter) {
				return fmt.Errorf("--filter: an and/or/not group is written as JSON, such as {\"and\": [\"a\", \"b\"]}: %w", errUsage)
			}
		} else {
			// One expression: refused here, in words that name the flag;
			// a group's refusal names the part at fault.
			if _, err := bases.Parse(f); err != nil {
				if e, ok := exprFlagError("--filter", err); ok {
					return e
				}
			}
			in.Filter, _ = json.Marshal(f)
		}
	}
	for _, f := range formulas {
		name, expr, ok := strings.Cut(f, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("--formula %q: write it as name=expression: %w", f, errUsage)
		}
		in.Formulas = append(in.Formulas, mcp.QueryFormula{Name: strings.TrimSpace(name), Expression: expr})
	}
	for _, s := range sorts {
		prop, dir := s, ""
		if i := strings.LastIndexByte(s, ':'); i > 0 {
			prop, dir = s[:i], strings.ToUpper(s[i+1:])
		} else if rest, ok := strings.CutPrefix(s, "-"); ok && rest != "" {
			prop, dir = rest, "DESC" // "-due", as many tools write descending
		}
		if _, ok := bases.Direction(dir); !ok || strings.TrimSpace(prop) == "" {
			return fmt.Errorf("--sort %s: write PROPERTY or PROPERTY:desc: %w", s, errUsage)
		}
		in.Sort = append(in.Sort, query.SortKey{Property: prop, Direction: dir})
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := checkConfigured(e, cfg); err != nil {
		return err
	}
	names := config.Names(cfg.Vaults)
	switch {
	case in.Vault == "" && len(names) > 1:
		return fmt.Errorf("several vaults are configured; choose the one to query with --in, one of %s: %w", words.QuotedOr(names), errUsage)
	case in.Vault != "" && !slices.Contains(names, in.Vault):
		// A name that is no vault's is a mistake in the command, as an
		// unknown --vault is.
		return fmt.Errorf("--in: there is no vault named %q; use one of %s: %w", in.Vault, words.QuotedOr(names), errUsage)
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
	db, err := deps.Handle.DB(ctx)
	if err != nil {
		return dbError(e, cfg, cfg.DBPath, err)
	}
	progress := newProgressView(e, *asJSON, false)
	defer progress.Finish()
	if !*noRefresh && db.NotWritable() == nil {
		sayMoves(e, cfg, deps.Indexer, progress)
		if _, err := refresh(ctx, cfg.Vaults, deps.Indexer, deps.Vectors, progress, true, false); err != nil {
			return fmt.Errorf("bring the index up to date: %w", repeatFlags(err, cfg))
		}
	}
	progress.Finish()
	files := func(ctx context.Context, name string, exclude []string) (*query.Vault, error) {
		return query.Load(ctx, db, name, exclude)
	}
	out, err := mcp.QueryNotes(ctx, cfg.Vaults, files, time.Now(), in)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return usageIfRefused(err)
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(out)
	}
	if out.Total == 0 {
		fmt.Fprintln(e.stdout, "No note or file matches the query.")
	} else {
		fmt.Fprint(e.stdout, mcp.MarkdownTable(out))
		fmt.Fprintf(e.stdout, "\n%d of %d shown.\n", len(out.Rows), out.Total)
	}
	for _, line := range mcp.SummaryLines(out) {
		fmt.Fprintln(e.stdout, line)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	return nil
}
