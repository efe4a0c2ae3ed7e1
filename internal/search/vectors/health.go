package vectors

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// probeTimeout bounds the test embedding doctor asks of a remote embedder.
const probeTimeout = 10 * time.Second

// Checks are semantic search's contribution to doctor: whether the
// configured embedder can be built and reached, and whether every chunk has
// a vector from it. Semantic search falls back to keyword search without
// them, so each problem is a warning, never a failure.
// Fixes name jarvis commands through inv.
func Checks(h *store.Handle, src EmbedderSource, inv health.Invocation) []health.Check {
	return []health.Check{{Name: "embedder", Order: 60, Run: func(ctx context.Context) []health.Result {
		return []health.Result{embedderResult(ctx, h, src, inv)}
	}}}
}

func embedderResult(ctx context.Context, h *store.Handle, src EmbedderSource, inv health.Invocation) health.Result {
	name := src.Provider
	if src.Model != "" {
		name += " " + src.Model
	}
	r := health.Result{Name: "embedder"}
	warn := func(detail, fix string) health.Result {
		r.Status, r.Detail, r.Fix = health.Warn, detail, fix
		return r
	}
	if src.Provider == embed.ProviderLocal && src.Restore != nil {
		// A local model is checked whether or not there is an index yet:
		// it needs no database to load.
		if _, err := src.Restore(nil); err != nil {
			return warn(fmt.Sprintf("%s cannot be loaded: %s; semantic search answers with keyword search", name, loadError(err)), embed.LocalFix(src.Model, err))
		}
	}
	db, err := h.DB(ctx)
	if err != nil {
		return health.NotCheckedOf(r.Name, name, store.NotAvailable(err))
	}
	if why := db.SetUp(ctx); why != "" {
		return health.NotCheckedOf(r.Name, name, why)
	}
	if src.Restore == nil {
		return warn("no embedder configured: semantic search answers with keyword search", "set JARVIS_EMBEDDER or the embedder section of the config file")
	}
	v := NewVectors(db, src, nil)
	stored, err := v.stored(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return warn(name+": the database predates semantic search", "run "+inv.Command("index"))
		}
		return store.Unreadable(r.Name, name+": cannot read stored vectors", err)
	}
	emb, err := src.Restore(stored.state)
	if err != nil {
		if src.Provider == embed.ProviderLocal {
			return warn(fmt.Sprintf("%s cannot be loaded: %s; semantic search answers with keyword search", name, loadError(err)), embed.LocalFix(src.Model, err))
		}
		return warn(fmt.Sprintf("%s cannot be used: %v", name, err), "run "+inv.Command("index", "--reembed")+", or check the embedder settings")
	}
	if l, ok := emb.(interface{ Dir() string }); ok {
		if err := hub.Verify(l.Dir()); err != nil && !errors.Is(err, hub.ErrNotInstalled) {
			return warn(fmt.Sprintf("%s: %v; its vectors would be wrong", name, err), embed.LocalFix(src.Model, err))
		}
	}
	if src.Fit == nil {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		// A remote embedder's Check asks once, without the retries and
		// backoff an index run uses, so a server that is down is reported
		// at once.
		var err error
		if c, ok := emb.(interface{ Check(context.Context) error }); ok {
			err = c.Check(pctx)
		} else {
			_, err = emb.Embed(pctx, []string{"jarvis doctor"})
		}
		cancel()
		if err != nil {
			how := "is not reachable"
			if !errors.Is(err, embed.ErrUnreachable) {
				how = "answers with an error" // a wrong model name, a bad key
			}
			return warn(fmt.Sprintf("%s %s: %v; semantic search answers with keyword search", name, how, err),
				embed.RemoteFix(src.Provider))
		}
	}
	var chunks, covered int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&chunks); err != nil {
		return store.Unreadable(r.Name, name+": cannot count passages", err)
	}
	if stored.id != 0 {
		if covered, err = v.countCovered(ctx, stored.id); err != nil {
			return store.Unreadable(r.Name, name+": cannot count vectors", err)
		}
	}
	// The passages are every vault's the database holds, not only this
	// run's (a doctor --vault NAME): with several, the count says so.
	of := words.Count(chunks, "passage")
	var held int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vaults`).Scan(&held); err == nil && held > 1 {
		of += fmt.Sprintf(" of the database's %d vaults", held)
	}
	var others []string
	rows, err := db.QueryContext(ctx, `SELECT provider || ' ' || model FROM embedders WHERE id != ? ORDER BY id`, stored.id)
	if err == nil {
		for rows.Next() {
			var s string
			if rows.Scan(&s) == nil {
				others = append(others, s)
			}
		}
		rows.Close()
	}
	// What the embedder matches, said after the facts of a line that
	// passes: a lexical one matches words, not meaning, and the way to
	// search by meaning is one command.
	kind := ""
	if src.Fit != nil {
		kind = ". It matches shared words and word pieces, not meaning; for search by meaning, pull a local model: " +
			"`jarvis model pull potion-base-8M` (fast, 31 MB) or `jarvis model pull all-MiniLM-L6-v2` (better, 91 MB)"
	}
	switch {
	case chunks == 0:
		r.Status, r.Detail = health.OK, name+": "+nothingToEmbed(ctx, db)
	case stored.id == 0 && len(others) > 0:
		return warn(fmt.Sprintf("the embedder changed: vectors exist for %s, none for %s", strings.Join(others, ", "), name),
			"run "+inv.Command("index", "--reembed")+" to embed every note with "+name)
	case stored.id == 0:
		return warn(name+": no note has a vector yet; semantic search answers with keyword search", "run "+inv.Command("index"))
	case emb.Dimension() != 0 && emb.Fingerprint() != stored.fingerprint:
		return warn(fmt.Sprintf("%s now embeds as %s, its vectors were made as %s", name, emb.Fingerprint(), stored.fingerprint),
			"run "+inv.Command("index", "--reembed"))
	case src.Stale != nil && src.Stale(emb, chunks):
		// The statistics are of every vault's passages: a vault added or
		// dropped moves them as much as notes changed.
		was := ""
		if l, ok := emb.(*embed.Lexical); ok {
			was = " from " + words.Count(l.Documents(), "passage")
		}
		return warn(fmt.Sprintf("%s: the index changed much since its word statistics were taken%s; it now holds %s", name, was, words.Count(chunks, "passage")),
			"run "+inv.Command("index")+" (it refits them)")
	case covered < chunks:
		p, ok := v.storedProgress(ctx, stored.id)
		switch {
		case ok && p.Done < p.Total && store.WriterAlive(ctx, h.Path()) && time.Since(p.Updated) < progressFresh:
			r.Status = health.OK
			if p.PerSecond <= 0 || p.Done == 0 {
				// Another jarvis has set out and not stored its first
				// batch yet: no speed to tell.
				r.Detail = fmt.Sprintf("%s: vectors are being made, %d of %s so far%s", name, covered, of, kind)
				return r
			}
			// Another jarvis (a server) is making them: say how fast.
			left := time.Duration(float64(chunks-covered) / p.PerSecond * float64(time.Second))
			r.Detail = fmt.Sprintf("%s: vectors are being made, %d of %s so far, %.0f a second, about %s left%s",
				name, covered, of, p.PerSecond, left.Round(time.Second), kind)
			return r
		case ok && p.Done < p.Total && covered == 0:
			// A run killed before its first batch (--reembed drops every
			// vector first) left its progress row and no vector.
			return warn(fmt.Sprintf("%s: the run making the vectors stopped before any was made; semantic search answers with keyword search", name),
				"run "+inv.Command("index")+" to make them")
		case ok && p.Done < p.Total:
			// Its progress row is all a run killed mid-way left: no
			// writer holds the lock, or none has stored a batch lately.
			return warn(fmt.Sprintf("%s: %d of %s %s vectors; the run making them stopped", name, covered, of, words.Agree(covered, "has", "have")),
				"run "+inv.Command("index")+" to make the rest")
		}
		return warn(fmt.Sprintf("%s: %d of %s %s no vector yet", name, chunks-covered, of, words.Agree(chunks-covered, "has", "have")), "run "+inv.Command("index"))
	default:
		r.Status = health.OK
		r.Detail = fmt.Sprintf("%s: %s", name, words.Agree(chunks, "its 1 passage has a vector", fmt.Sprintf("all %s have vectors", of)))
		// Counting them read no vector: on a damaged database those
		// stored may not be readable (list-vaults and search read them).
		r.IfDamaged = store.IfDamaged(r.Name, name+": cannot read stored vectors")
	}
	if len(others) > 0 {
		r.Detail += "; vectors of " + strings.Join(others, ", ") + " are also kept, which " + inv.Command("index", "--reembed") + " drops"
	}
	r.Detail += kind
	return r
}

// loadError is why a local model cannot be loaded, for a line whose fix
// (embed.LocalFix) says how to install it: a model not installed is said
// so, without the install command its error carries.
func loadError(err error) string {
	if errors.Is(err, hub.ErrNotInstalled) {
		return "the model is not installed"
	}
	return err.Error()
}

// progressFresh is how recently a sync must have stored a batch for
// doctor to take it as still running.
const progressFresh = time.Minute

// nothingToEmbed says why the index holds no passage to embed: nothing
// is indexed yet, or every vault indexed holds no Markdown note (in the
// words search answers use, index.NoNotes).
func nothingToEmbed(ctx context.Context, db index.Querier) string {
	stats, err := index.Stats(ctx, db)
	if err != nil {
		return "nothing indexed yet"
	}
	var hollow []string
	for _, s := range stats {
		if s.LastIndexed.IsZero() || s.Notes > 0 {
			return "nothing indexed yet"
		}
		hollow = append(hollow, index.NoNotes(s.Name, s.Attachments))
	}
	if len(hollow) == 0 {
		return "nothing indexed yet"
	}
	return "no passage to embed: " + strings.Join(hollow, "; ")
}
