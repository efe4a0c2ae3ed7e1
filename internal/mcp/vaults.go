package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/metrics"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// VaultItem is one vault as list-vaults describes it.
type VaultItem struct {
	Name            string       `json:"name" jsonschema:"the name to pass as vault to the other tools"`
	Path            string       `json:"path" jsonschema:"the vault folder"`
	Notes           int          `json:"notes"`
	Attachments     int          `json:"attachments"`
	Links           int          `json:"links"`
	UnresolvedLinks int          `json:"unresolved_links" jsonschema:"links that lead to no note"`
	Passages        int          `json:"passages" jsonschema:"the pieces of notes that are embedded and searched"`
	Embedder        string       `json:"embedder" jsonschema:"the embedder of semantic search; lexical measures shared words and word pieces, not meaning"`
	VectorStore     string       `json:"vector_store,omitempty" jsonschema:"the store that holds this vault's vectors in memory: chromem-go, or a compact index for vaults too large for it; empty while none are loaded"`
	LastIndexed     string       `json:"last_indexed" jsonschema:"when the index of this vault was last brought up to date, RFC 3339; empty when never"`
	IndexState      string       `json:"index_state" jsonschema:"ready, indexing, failed, unavailable or not indexed"`
	Folders         []FolderItem `json:"folders,omitempty" jsonschema:"folders holding notes, with how many notes each holds (subfolders included; a folder whose notes all lie in one subfolder is given as that subfolder): the fullest first (when not all fit, the top levels are kept first); pass one as path_prefix to search only there"`
	MoreFolders     int          `json:"more_folders,omitempty" jsonschema:"how many folders were left out of folders"`
	Tags            []TagItem    `json:"tags,omitempty" jsonschema:"tags with how many notes carry each, the most used first; pass one as tag to search only notes with it"`
	MoreTags        int          `json:"more_tags,omitempty" jsonschema:"how many tags were left out of tags"`
	LeftOut         string       `json:"left_out,omitempty" jsonschema:"what the vault leaves out of the index and every answer besides hidden files: its exclude patterns and Obsidian's excluded files, as written"`
	NotCounted      []string     `json:"not_counted,omitempty" jsonschema:"what could not be counted, the index being unreadable (links, passages): those counts are 0 here and mean nothing"`
}

// Counts are the vault's notes, attachments and passages, as every
// message says them.
func (v VaultItem) Counts() index.Counts {
	return index.Counts{Notes: v.Notes, Attachments: v.Attachments, Passages: v.Passages}
}

func (v *VaultItem) setCounts(c index.Counts) {
	v.Notes, v.Attachments, v.Passages = c.Notes, c.Attachments, c.Passages
}

// FolderItem is a folder of a vault and how many notes it holds.
type FolderItem struct {
	Path  string `json:"path" jsonschema:"vault-relative, ending in /"`
	Notes int    `json:"notes"`
}

// TagItem is a tag and how many notes carry it.
type TagItem struct {
	Tag   string `json:"tag" jsonschema:"without #"`
	Notes int    `json:"notes"`
}

// How many folders and tags list-vaults gives of each vault, and in how
// many bytes of names: enough to write a filter with, and with many vaults
// still within the answer ceiling.
const (
	maxVaultFolders, maxVaultFolderBytes = 40, 3 << 10
	maxVaultTags, maxVaultTagBytes       = 40, 2 << 10
)

// ListVaultsOutput is what list-vaults returns.
type ListVaultsOutput struct {
	Vaults []VaultItem `json:"vaults"`
	Degradation
	Index index.State `json:"index"`
}

// HealthOutput is what health-status returns: the checks of jarvis doctor.
type HealthOutput struct {
	Status string          `json:"status" jsonschema:"healthy, degraded or broken"`
	Checks []health.Result `json:"checks"`
	Index  index.State     `json:"index"`
	// VectorStores names the store serving each vault's vectors.
	VectorStores []VaultStore `json:"vector_stores" jsonschema:"per served vault, the store that holds its vectors in memory; a vault without vectors loaded says none"`
	// Tools is how each tool has answered since the server started.
	Tools []metrics.Tool `json:"tools" jsonschema:"per tool called since the server started: calls, errors, and median and 95th-percentile latency in milliseconds"`
}

// VaultStore is the vector store of one vault.
type VaultStore struct {
	Vault string `json:"vault"`
	Store string `json:"store" jsonschema:"chromem-go, column (compact, lexical vectors) or dense (compact, neural vectors); none while no vectors are loaded"`
}

func (t *tools) addListVaults(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolListVaults,
		Description: `List the Obsidian vaults jarvis serves, with how many notes, attachments, links and unresolved links each holds, its folders and tags with their note counts (the top folders and the most used tags, with how many more there are), which embedder semantic search uses and which store holds its vectors, and how fresh the index is.
Use it to learn vault names for the vault argument of other tools, and folders and tags for their path_prefix and tag filters.`,
		Annotations: readOnly("List vaults"),
	}, t.listVaults)
}

func (t *tools) addHealthStatus(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolHealthStatus,
		Description: `Run jarvis's health checks (configuration, vault folders, database, index freshness, embedder, disk space) and return each as ok, warn or fail with a fix, with the store that holds each vault's vectors and each tool's calls, errors and latency since the server started.
Use it when results look incomplete, slow, or a tool says it is degraded.`,
		Annotations: readOnly("Check jarvis health"),
	}, t.healthStatus)
}

func (t *tools) listVaults(ctx context.Context, _ *mcpsdk.CallToolRequest, _ struct{}) (*mcpsdk.CallToolResult, ListVaultsOutput, error) {
	out := ListVaultsOutput{Vaults: []VaultItem{}}
	st := t.answerState(&out.Degradation, "")
	out.Index = st
	embedder := ""
	if t.semantic != nil {
		embedder = t.semantic.Embedder()
	}
	stores, absent := t.vectorsNow(st)
	var stats map[string]index.VaultStats
	list, statsErr := use(t.stats, "the index", func(v Vaults) ([]index.VaultStats, error) { return v.Stats(ctx) })
	if statsErr == nil {
		stats = map[string]index.VaultStats{}
		for _, s := range list {
			stats[s.Name] = s
		}
	}
	for _, v := range t.vaults {
		item := VaultItem{Name: v.Name, Path: v.Path, Embedder: embedder, VectorStore: stores[v.Name]}
		if len(v.Exclude) > 0 {
			item.LeftOut = vault.ExcludeWords(v.Exclude)
		}
		if s, ok := stats[v.Name]; ok {
			item.setCounts(s.Counts)
			item.Links, item.UnresolvedLinks = s.Links, s.UnresolvedLinks
			if !s.LastIndexed.IsZero() {
				item.LastIndexed = s.LastIndexed.UTC().Format(time.RFC3339)
			}
			item.IndexState = index.StateReady
			if item.LastIndexed == "" {
				item.IndexState = "not indexed"
			}
			switch _, failed := st.FailedFor(v.Name); {
			case failed:
				item.IndexState = index.StateFailed
			case st.State == index.StateFailed:
			case st.State != index.StateReady && (st.Vault == v.Name || st.Vault == ""):
				item.IndexState = st.State
			}
			if why := t.unreadable(); why != "" {
				// The counts above were read; the notes' text was not.
				item.IndexState = index.StateUnavailable + " (" + why + ": searches answer from the note files until it is fixed; health-status says how)"
			}
			if p := index.FolderProblem(v.Path); p != "" {
				item.IndexState += " (its folder " + p + ": its notes are answered as last indexed until it is back)"
			}
			if err := t.outline(ctx, &item); err != nil {
				return nil, out, err
			}
		} else {
			// No index: count the files on disk so the answer is still useful.
			item.IndexState = index.StateUnavailable
			if statsErr == nil {
				item.IndexState = "not indexed"
				if st.State == index.StateIndexing {
					item.IndexState = index.StateIndexing
				}
			}
			files, _, err := vault.Scan(ctx, v.Path, v.Exclude)
			if err != nil {
				item.IndexState += "; " + folderState(v.Path, err)
			}
			var found index.Counts
			for _, f := range files {
				if f.Note {
					found.Notes++
				} else {
					found.Attachments++
				}
			}
			item.setCounts(found)
			item.NotCounted = notCountedOnDisk
		}
		out.Vaults = append(out.Vaults, item)
	}
	if statsErr != nil {
		why, stop := t.fallback(ctx, "the index", statsErr)
		if stop != nil {
			return nil, out, stop
		}
		out.degrade(why + "; note and attachment counts come from the files on disk, " + words.List(notCountedOnDisk) + " are not counted")
	}
	return renderVaults(out, absent), out, nil
}

// unreadable says why the latest keyword search could not read the index,
// "" when it could or there is no search service.
func (t *tools) unreadable() string {
	if t.semantic == nil {
		return ""
	}
	return t.semantic.Unreadable()
}

// folderState says why the vault folder at path could not be scanned
// (err), in the words search answers use.
func folderState(path string, err error) string {
	if p := index.FolderProblem(path); p != "" {
		return "its folder " + p
	}
	return "its folder cannot be read (" + vault.ErrText(err) + ")"
}

// outline adds a vault's folders and tags, from the index, to its item,
// within their bounds. A failure to read them leaves them out and says so
// in the item's state; only a cancelled call stops the answer.
func (t *tools) outline(ctx context.Context, item *VaultItem) error {
	o, err := t.stats.Outline(ctx, item.Name, maxVaultFolders, maxVaultTags)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t.log.Warn("read the folders and tags of a vault", "vault", item.Name, "err", err)
		item.IndexState += " (its folders and tags could not be read; health-status says why)"
		return nil
	}
	folders := make([]FolderItem, 0, len(o.Folders))
	for _, f := range o.Folders {
		folders = append(folders, FolderItem{Path: clip(f.Path, maxTextChars), Notes: f.Notes})
	}
	tags := make([]TagItem, 0, len(o.Tags))
	for _, tg := range o.Tags {
		tags = append(tags, TagItem{Tag: clip(tg.Tag, maxTextChars), Notes: tg.Notes})
	}
	var cut int
	item.Folders, cut = within(folders, maxVaultFolders, maxVaultFolderBytes, func(f FolderItem) int { return len(f.Path) + 16 })
	item.MoreFolders = o.MoreFolders + cut
	item.Tags, cut = within(tags, maxVaultTags, maxVaultTagBytes, func(tg TagItem) int { return len(tg.Tag) + 16 })
	item.MoreTags = o.MoreTags + cut
	return nil
}

func (t *tools) healthStatus(ctx context.Context, _ *mcpsdk.CallToolRequest, _ struct{}) (*mcpsdk.CallToolResult, HealthOutput, error) {
	out := HealthOutput{Checks: []health.Result{}, Tools: []metrics.Tool{}}
	if t.metrics != nil {
		out.Tools = nonNil(t.metrics.Tools())
	}
	var rep *health.Report
	if t.health != nil {
		r := t.health.Report(ctx)
		rep = &r
	}
	// The report may take a while: the index's state and the vectors in
	// memory are read after it, so that every line says the same moment.
	out.Index = t.state("")
	stores, absent := t.vectorsNow(out.Index)
	out.VectorStores = t.vectorStores(stores)
	if rep == nil {
		out.Status = string(health.Degraded)
		out.Checks = append(out.Checks, health.Result{Name: "health", Status: health.Warn, Detail: "no health checks are available in this server", Fix: "run `jarvis doctor` in a terminal"})
	} else {
		if doing := underway(out.Index); doing != "" {
			rep.Underway(doing)
		}
		out.Status, out.Checks = string(rep.Status), nonNil(rep.Checks)
	}
	var b strings.Builder
	if rep != nil {
		fmt.Fprintf(&b, "%s\n", rep.Headline())
	} else {
		fmt.Fprintf(&b, "jarvis is %s.\n", out.Status)
	}
	// Here the checks below are what says why.
	self := strings.NewReplacer(". health-status says", ". The checks below say", "health-status says", "the checks below say")
	if f := freshness(out.Index); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", self.Replace(f))
	}
	loaded := slices.ContainsFunc(out.VectorStores, func(vs VaultStore) bool { return vs.Store != "" && vs.Store != "none" })
	if e := embedding(out.Index.Embedding, loaded, absent); e != "" {
		fmt.Fprintf(&b, "\n> %s\n", self.Replace(e))
	}
	b.WriteString("\n")
	for _, c := range out.Checks {
		fmt.Fprintf(&b, "- %s\n", c.Line())
		if fix := c.FixLine(); fix != "" {
			fmt.Fprintf(&b, "  %s\n", fix)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", absent.storesSentence(out.VectorStores))
	if len(out.Tools) > 0 {
		b.WriteString("\nTool calls since the server started:\n")
		for _, m := range out.Tools {
			fmt.Fprintf(&b, "- %s: %s, %s, p50 %.2f ms, p95 %.2f ms\n", m.Name, words.Count(m.Calls, "call"), words.Count(m.Errors, "error"), m.P50Ms, m.P95Ms)
		}
	}
	return textResult(b.String()), out, nil
}

// storesSentence says where each vault's vectors are held, as a sentence
// that names the vaults by where: "Vectors for semantic search are in
// memory for lit and being read into memory for help."
func (a vectorsAbsent) storesSentence(stores []VaultStore) string {
	var where []string
	byWhere := map[string][]string{}
	for _, vs := range stores {
		w := a.storeWords(vs.Store)
		if _, ok := byWhere[w]; !ok {
			where = append(where, w)
		}
		byWhere[w] = append(byWhere[w], vs.Vault)
	}
	parts := make([]string, len(where))
	for i, w := range where {
		parts[i] = w + " for " + words.List(byWhere[w])
	}
	if len(parts) == 0 {
		return "No vault is served, so no vectors are held for semantic search."
	}
	return "Vectors for semantic search are " + words.List(parts) + "."
}

// underway says what the server is doing now that a fix would otherwise
// ask the reader to run jarvis index for: indexing, or making vectors.
func underway(st index.State) string {
	switch {
	case st.State == index.StateIndexing && st.Vault != "":
		return fmt.Sprintf("this server is indexing the vaults now (vault %q: %s)", st.Vault, st.Progress())
	case st.State == index.StateIndexing:
		return "this server is indexing the vaults now"
	case st.Embedding.Making():
		return fmt.Sprintf("this server is making vectors for semantic search now (%s done)", st.Embedding.Passages())
	case st.Embedding.State == index.EmbedRunning:
		return "this server is checking which passages need vectors for semantic search now"
	}
	return ""
}

// storeWords says where a vault's vectors are held (vectors.StoreWords),
// and, for a vault none are in memory for yet, that they are being read
// while the stored vectors are being read, or being made while a sync
// makes them, rather than "not loaded": list-vaults and health-status say
// each vault's store so.
func (a vectorsAbsent) storeWords(kind string) string {
	if kind == "" || kind == "none" {
		switch {
		case a.loading:
			return "being read into memory"
		case a.making:
			return "being made"
		}
	}
	return vectors.StoreWords(kind)
}

// vectorsNow reads, for an answer given with the index in state st, the
// stores that hold each vault's vectors in memory and why stored vectors
// are not searched, in that order: read the other way round, a load that
// ends between the two reads leaves the answer saying that vectors are
// neither loaded nor being read.
func (t *tools) vectorsNow(st index.State) (map[string]string, vectorsAbsent) {
	absent := t.absentVectors()
	absent.making = st.Embedding.Making()
	var stores map[string]string
	if t.semantic != nil {
		stores = t.semantic.VectorStores()
	}
	return stores, absent
}

// vectorStores names, for each served vault, the store that holds its
// vectors (stores, by vault), "none" when it holds none.
func (t *tools) vectorStores(stores map[string]string) []VaultStore {
	out := make([]VaultStore, 0, len(t.vaults))
	for _, v := range t.vaults {
		s := stores[v.Name]
		if s == "" {
			s = "none"
		}
		out = append(out, VaultStore{Vault: v.Name, Store: s})
	}
	return out
}

// notCountedOnDisk is what the files on disk do not tell, when the index
// cannot be read: list-vaults leaves those counts out and says so.
var notCountedOnDisk = []string{"links", "passages"}

// renderVaults is list-vaults' text; absent is why stored vectors are not
// searched, as health-status says it.
func renderVaults(out ListVaultsOutput, absent vectorsAbsent) *mcpsdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.\n", words.Count(len(out.Vaults), "vault"))
	b.WriteString(out.line())
	if f := freshness(out.Index); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", f)
	}
	loaded := slices.ContainsFunc(out.Vaults, func(v VaultItem) bool { return v.VectorStore != "" && v.VectorStore != "none" })
	if e := embedding(out.Index.Embedding, loaded, absent); e != "" {
		fmt.Fprintf(&b, "\n> %s\n", e)
	}
	for _, v := range out.Vaults {
		counts := fmt.Sprintf("%s, %s (%d unresolved)", v.Counts().Words(), words.Count(v.Links, "link"), v.UnresolvedLinks)
		if len(v.NotCounted) > 0 {
			counts = fmt.Sprintf("%s (%s not counted)", v.Counts().Words(), words.List(v.NotCounted))
		}
		fmt.Fprintf(&b, "\n- **%s** (`%s`): %s; %s", v.Name, v.Path, counts, indexStateWords(v.IndexState))
		if v.LastIndexed != "" {
			fmt.Fprintf(&b, ", updated %s", v.LastIndexed)
		}
		if v.Embedder != "" {
			fmt.Fprintf(&b, "; embedder %s", embed.DisplayName(v.Embedder))
		}
		if v.VectorStore != "" {
			fmt.Fprintf(&b, ", vectors %s", absent.storeWords(v.VectorStore))
		}
		if v.LeftOut != "" {
			fmt.Fprintf(&b, "; with %s", v.LeftOut)
		}
		b.WriteString("\n")
		if len(v.Folders) > 0 {
			b.WriteString("  folders (notes):")
			for i, f := range v.Folders {
				fmt.Fprintf(&b, "%s `%s` %d", listSep(i), f.Path, f.Notes)
			}
			fmt.Fprintf(&b, "%s\n", andMore(v.MoreFolders, "folder"))
		}
		if len(v.Tags) > 0 {
			b.WriteString("  tags (notes):")
			for i, tg := range v.Tags {
				fmt.Fprintf(&b, "%s #%s %d", listSep(i), tg.Tag, tg.Notes)
			}
			fmt.Fprintf(&b, "%s\n", andMore(v.MoreTags, "tag"))
		}
	}
	return textResult(b.String())
}

// indexStateWords says a vault's index state in a sentence: "index
// ready", "being indexed", "not indexed".
func indexStateWords(state string) string {
	switch {
	case strings.HasPrefix(state, index.StateIndexing):
		return "being indexed" + strings.TrimPrefix(state, index.StateIndexing)
	case strings.HasPrefix(state, "not indexed"):
		return state
	}
	return "index " + state
}

// listSep is the comma before the i-th item of a list on one line.
func listSep(i int) string {
	if i == 0 {
		return ""
	}
	return ","
}

// andMore is the end of a list that left n items out: "; 3 more folders".
func andMore(n int, noun string) string {
	if n == 0 {
		return ""
	}
	return "; " + words.Count(n, "more "+noun)
}
