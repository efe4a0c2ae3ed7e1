//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

const (
	// loadWriteEvery is how often the writer changes a note: four changes
	// a second, half of them edits.
	loadWriteEvery = 250 * time.Millisecond
	// loadRSSEvery is how often the server's resident memory is sampled.
	loadRSSEvery = 500 * time.Millisecond
	// loadStaleFor is how long after the writer creates a note (or renames
	// one to it) a client may find it missing from the index: the watcher
	// has not re-indexed yet.
	loadStaleFor = 30 * time.Second
	// loadCallTimeout bounds one request; a request that takes longer
	// counts as an error.
	loadCallTimeout = 2 * time.Minute
	// readResource names resources/read in the rotation of calls.
	readResource = "resources/read"
)

// BenchmarkHTTPLoad puts `jarvis mcp --http` under load, the shape of the
// acceptance check: JARVIS_LOAD_CLIENTS (16) clients, each its own MCP
// session over Streamable HTTP, call every tool the server lists and
// resources/read of a note, in rotation, for JARVIS_LOAD_SECONDS (60) on a
// generated vault of JARVIS_LOAD_NOTES (10,000) notes, while a writer
// edits, creates, renames and deletes notes so that the watcher re-indexes
// throughout. It reports each tool's latency, the errors, and the server's
// resident memory sampled every 500 ms (written as CSV to
// JARVIS_LOAD_RSS_CSV when set). It fails on any real error; a note the
// writer removed, or created moments ago, that a client does not find is
// counted apart. JARVIS_LOAD_SKIP leaves out requests by name (comma
// separated), to see what a tool costs.
//
// The server is a binary built with go build, not this test binary, so
// that its memory is the shipped program's. The load runs once, whatever
// b.N: use -benchtime 1x. The testing package cuts a benchmark's log to
// ten lines, so the full report (latency table, first messages, RSS
// curve) goes to stdout.
func BenchmarkHTTPLoad(b *testing.B) {
	notesWanted := envInt(b, "JARVIS_LOAD_NOTES", 10000)
	seconds := envInt(b, "JARVIS_LOAD_SECONDS", 60)
	clients := envInt(b, "JARVIS_LOAD_CLIENTS", 16)
	b.StopTimer()

	dir := b.TempDir()
	exe := buildJarvis(b)
	root := filepath.Join(dir, "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: notesWanted, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	db := filepath.Join(dir, "j.db")
	env := isolatedEnv(dir)
	index := exec.Command(exe, "index", "--vault", root, "--db", db, "--json")
	index.Env = env
	if out, err := index.CombinedOutput(); err != nil {
		b.Fatalf("jarvis index: %v\n%s", err, out)
	}
	paths, words := readVault(b, root)
	notes := newLiveNotes(paths)

	srv := startHTTPServer(b, exe, env, dir, root, db)
	rss := sampleRSS(srv.cmd.Process.Pid, srv.started, db)
	defer rss.stop()

	ctx := context.Background()
	probe := connectHTTP(b, ctx, srv.url)
	defer probe.Close()
	vaultName, notesAtStart := waitHTTPReady(b, ctx, probe)
	tools, err := probe.ListTools(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	w := &loadWork{notes: notes, words: words, vault: vaultName, tools: map[string]*mcpsdk.Tool{}}
	skip := strings.Split(os.Getenv("JARVIS_LOAD_SKIP"), ",")
	var report strings.Builder
	var rotation []string
	for _, t := range tools.Tools {
		w.tools[t.Name] = t
		rotation = append(rotation, t.Name)
		if !knownLoadTool(t.Name) {
			fmt.Fprintf(&report, "no argument builder for tool %s: it is called with arguments made from its input schema\n", t.Name)
		}
	}
	slices.Sort(rotation)
	rotation = append(rotation, readResource)
	rotation = slices.DeleteFunc(rotation, func(name string) bool { return slices.Contains(skip, name) })
	if len(rotation) == 0 {
		b.Fatal("JARVIS_LOAD_SKIP leaves nothing to call")
	}
	var dbSize int64
	if st, err := os.Stat(db); err == nil {
		dbSize = st.Size()
	}
	fmt.Fprintf(&report, "vault: %d notes, %d words for queries, database %.1f MB; %d clients for %d s; rotation: %s\n",
		len(paths), len(words), float64(dbSize)/(1<<20), clients, seconds, strings.Join(rotation, ", "))

	sessions := make([]*mcpsdk.ClientSession, clients)
	for i := range sessions {
		sessions[i] = connectHTTP(b, ctx, srv.url)
	}
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()

	writerCtx, stopWriter := context.WithCancel(ctx)
	writer := &loadWriter{root: root, notes: notes, words: words, r: rand.New(rand.NewPCG(2, 0))}
	writerDone := make(chan struct{})
	b.StartTimer()
	rss.mark("load")
	began := time.Now()
	end := began.Add(time.Duration(seconds) * time.Second)
	go func() {
		defer close(writerDone)
		writer.run(writerCtx)
	}()
	stats := make([]*loadStats, clients)
	var wg sync.WaitGroup
	for i, cs := range sessions {
		stats[i] = newLoadStats()
		wg.Go(func() {
			r := rand.New(rand.NewPCG(1, uint64(i)))
			for k := i; time.Now().Before(end); k++ {
				name := rotation[k%len(rotation)]
				w.call(ctx, cs, name, r, stats[i])
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	stopWriter()
	<-writerDone
	b.StopTimer()
	rss.mark("after")

	total := newLoadStats()
	for _, s := range stats {
		total.merge(s)
	}
	for _, err := range writer.errs {
		b.Errorf("writer: %v", err)
	}
	checkCaughtUp(b, ctx, probe, writer, notes, notesAtStart+writer.created-writer.deleted)
	hwm := procStatusMB(srv.cmd.Process.Pid, "VmHWM")
	rss.stop()
	if err := srv.stop(); err != nil {
		b.Errorf("stop the server: %v", err)
	}

	report.WriteString(total.table(rotation))
	fmt.Fprintf(&report, "writer: %d edits, %d creates, %d renames, %d deletes\n", writer.edited, writer.created, writer.renamed, writer.deleted)
	samples := rss.samples()
	report.WriteString(rssCurve(samples))
	if p := os.Getenv("JARVIS_LOAD_RSS_CSV"); p != "" {
		if err := writeRSSCSV(p, samples); err != nil {
			b.Errorf("write %s: %v", p, err)
		}
	}
	warnings := serverWarnings(srv.logPath)
	if len(warnings) > 0 {
		fmt.Fprintf(&report, "the server logged %d warnings or errors; the first:\n%s\n", len(warnings), strings.Join(warnings[:min(5, len(warnings))], "\n"))
	}
	fmt.Print(report.String())

	var maxRSS, maxPSS float64
	for _, s := range samples {
		maxRSS, maxPSS = max(maxRSS, s.mb), max(maxPSS, s.pss)
	}
	health := total.byTool[mcp.ToolHealthStatus]
	healthP99 := 0.0
	if health != nil && len(health.took) > 0 {
		healthP99 = ms(percentile(health.took, 99))
	}
	calls := total.calls()
	b.ReportMetric(healthP99, "health_p99_ms")
	b.ReportMetric(maxRSS, "max_rss_MB")
	b.ReportMetric(hwm, "hwm_rss_MB")
	b.ReportMetric(maxPSS, "max_pss_MB")
	b.ReportMetric(float64(total.real()), "errors")
	b.ReportMetric(float64(total.count(outcomeStale)), "stale_misses")
	b.ReportMetric(float64(calls)/took.Seconds(), "calls/s")
	b.Logf("targets: zero errors: %d real; health-status p99 < 1 s: %.0f ms; RSS < 400 MB: %.1f MB sampled, %.1f MB peak (VmHWM)",
		total.real(), healthP99, maxRSS, hwm)
	if n := total.real(); n > 0 {
		b.Errorf("%d real errors under load (see the table on stdout)", n)
	}
}

func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive whole number", name, s)
	}
	return n
}

// isolatedEnv is this process's environment without jarvis settings and
// with a home of its own under dir, so that no config file, database or
// remote embedder of the machine's user comes into play.
func isolatedEnv(dir string) []string {
	return append(cleanEnv(dir), "JARVIS_EMBEDDER=lexical")
}

// readVault lists the vault's notes (vault-relative, with /) and the words
// queries are made of: those of 4 to 14 letters in a sample of notes.
func readVault(b *testing.B, root string) (paths, words []string) {
	b.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < len(paths); i += max(1, len(paths)/300) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(paths[i])))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range strings.FieldsFunc(string(data), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if n := len([]rune(f)); n >= 4 && n <= 14 {
				seen[strings.ToLower(f)] = true
			}
		}
	}
	for w := range seen {
		words = append(words, w)
	}
	slices.Sort(words)
	if len(paths) == 0 || len(words) == 0 {
		b.Fatalf("the generated vault has %d notes and %d words", len(paths), len(words))
	}
	return paths, words
}

// httpServer is `jarvis mcp --http` running as a subprocess.
type httpServer struct {
	cmd     *exec.Cmd
	started time.Time
	url     string
	logPath string
	exited  chan struct{} // closed once the process has exited
	waitErr error
}

var serveURL = regexp.MustCompile(`url=(http://\S+/mcp)`)

// startHTTPServer starts the server on a port the system picks, with the
// watcher on, and waits until it logs the address it serves. The process
// is killed when the benchmark ends, if it is still running.
func startHTTPServer(b *testing.B, exe string, env []string, dir, root, db string) *httpServer {
	b.Helper()
	s := &httpServer{logPath: filepath.Join(dir, "server.log"), exited: make(chan struct{})}
	s.cmd = exec.Command(exe, "mcp", "--http", "127.0.0.1:0", "--vault", root, "--db", db, "--log-file", s.logPath)
	s.cmd.Env = env
	stderr, err := os.Create(filepath.Join(dir, "server.stderr"))
	if err != nil {
		b.Fatal(err)
	}
	defer stderr.Close()
	s.cmd.Stderr = stderr
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s.started = time.Now()
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	b.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			log, _ := os.ReadFile(s.logPath)
			errOut, _ := os.ReadFile(stderr.Name())
			b.Fatalf("jarvis mcp exited: %v\n%s%s", s.waitErr, log, errOut)
		case <-time.After(50 * time.Millisecond):
		}
		log, _ := os.ReadFile(s.logPath)
		if m := serveURL.FindSubmatch(log); m != nil {
			s.url = string(m[1])
			return s
		}
	}
	b.Fatal("jarvis mcp did not log its address within a minute")
	return nil
}

// stop interrupts the server as Ctrl-C would and waits for it to exit,
// killing it after 10 s.
func (s *httpServer) stop() error {
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		return err
	}
	select {
	case <-s.exited:
		return s.waitErr
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return errors.New("it did not exit within 10 s of an interrupt and was killed")
	}
}

// serverWarnings returns the lines of the server's log at level WARN or
// ERROR.
func serverWarnings(logPath string) []string {
	f, err := os.Open(logPath)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return out
}

// connectHTTP opens an MCP session over Streamable HTTP with an HTTP
// client of its own, as a separate program would have.
func connectHTTP(b *testing.B, ctx context.Context, url string) *mcpsdk.ClientSession {
	b.Helper()
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "load", Version: "1"}, nil).
		Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		b.Fatalf("connect to %s: %v", url, err)
	}
	return cs
}

// waitHTTPReady waits until the server's first index pass is done and
// semantic search answers from vectors, and returns the vault's name and
// the notes the index holds.
func waitHTTPReady(b *testing.B, ctx context.Context, cs *mcpsdk.ClientSession) (string, int) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var vaults mcp.ListVaultsOutput
		if structured(b, ctx, cs, mcp.ToolListVaults, nil, &vaults) && vaults.Index.State == index.StateReady && len(vaults.Vaults) == 1 {
			var sem mcp.SearchOutput
			if structured(b, ctx, cs, mcp.ToolSearchSemantic, map[string]any{"query": "notes"}, &sem) && !sem.Degraded {
				return vaults.Vaults[0].Name, vaults.Vaults[0].Notes
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatal("the server was not ready within 5 minutes")
	return "", 0
}

// structured calls a tool and decodes its structured result into out; it
// reports false for a tool error.
func structured(b *testing.B, ctx context.Context, cs *mcpsdk.ClientSession, tool string, args map[string]any, out any) bool {
	b.Helper()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		return false
	}
	if err := remarshal(res.StructuredContent, out); err != nil {
		b.Fatalf("%s: %v", tool, err)
	}
	return true
}

// checkCaughtUp checks that the watcher kept the index current: within
// 30 s of the load ending the index holds as many notes as the vault, and
// the last note the writer created and left in place is found by its
// word.
func checkCaughtUp(b *testing.B, ctx context.Context, cs *mcpsdk.ClientSession, w *loadWriter, notes *liveNotes, want int) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var got int
	for {
		var vaults mcp.ListVaultsOutput
		if structured(b, ctx, cs, mcp.ToolListVaults, nil, &vaults) && len(vaults.Vaults) == 1 {
			got = vaults.Vaults[0].Notes
			if got == want && vaults.Index.State == index.StateReady {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Errorf("30 s after the load the index holds %d notes; the vault has %d", got, want)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	p, word := w.lastCreated()
	if p == "" || !notes.has(p) {
		return
	}
	var out mcp.SearchOutput
	if !structured(b, ctx, cs, mcp.ToolSearchVault, map[string]any{"query": word}, &out) || len(out.Results) == 0 || out.Results[0].Path != p {
		b.Errorf("search-vault %q does not find %s, the last note the writer created", word, p)
	}
}

// liveNotes is the notes of the vault as the writer leaves them, and when
// each path it touched appeared or went away.
type liveNotes struct {
	mu    sync.Mutex
	paths []string
	at    map[string]int       // index in paths
	gone  map[string]bool      // deleted or renamed away
	born  map[string]time.Time // created or renamed to
}

func newLiveNotes(paths []string) *liveNotes {
	n := &liveNotes{paths: slices.Clone(paths), at: map[string]int{}, gone: map[string]bool{}, born: map[string]time.Time{}}
	for i, p := range n.paths {
		n.at[p] = i
	}
	return n
}

func (n *liveNotes) pick(r *rand.Rand) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.paths[r.IntN(len(n.paths))]
}

func (n *liveNotes) has(p string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.at[p]
	return ok
}

func (n *liveNotes) add(p string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.at[p] = len(n.paths)
	n.paths = append(n.paths, p)
	n.born[p] = time.Now()
	delete(n.gone, p)
}

func (n *liveNotes) remove(p string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	i, ok := n.at[p]
	if !ok {
		return
	}
	last := n.paths[len(n.paths)-1]
	n.paths[i], n.at[last] = last, i
	n.paths = n.paths[:len(n.paths)-1]
	delete(n.at, p)
	n.gone[p] = true
}

// stale says whether a client may rightly miss p: the writer removed it,
// or created it so recently that the index may not have it yet.
func (n *liveNotes) stale(p string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	t, born := n.born[p]
	return n.gone[p] || born && time.Since(t) < loadStaleFor
}

// loadWriter changes notes while the clients call: an edit every other
// turn, then a create, a rename or a delete.
type loadWriter struct {
	root  string
	notes *liveNotes
	words []string
	r     *rand.Rand

	mu                                sync.Mutex
	edited, created, renamed, deleted int
	lastPath, lastWord                string
	errs                              []error
}

func (w *loadWriter) run(ctx context.Context) {
	t := time.NewTicker(loadWriteEvery)
	defer t.Stop()
	ops := []func(int) error{w.edit, w.create, w.edit, w.rename, w.edit, w.remove}
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := ops[i%len(ops)](i); err != nil {
			w.mu.Lock()
			w.errs = append(w.errs, err)
			w.mu.Unlock()
		}
	}
}

func (w *loadWriter) file(p string) string { return filepath.Join(w.root, filepath.FromSlash(p)) }

func (w *loadWriter) sentence(n int) string {
	var s []string
	for range n {
		s = append(s, w.words[w.r.IntN(len(w.words))])
	}
	return strings.Join(s, " ")
}

// edit rewrites a note with a paragraph added, as an editor saves it.
func (w *loadWriter) edit(i int) error {
	p := w.notes.pick(w.r)
	data, err := os.ReadFile(w.file(p))
	if err != nil {
		return fmt.Errorf("edit %s: %w", p, err)
	}
	data = fmt.Appendf(data, "\nloadedit%d %s.\n", i, w.sentence(8))
	if err := os.WriteFile(w.file(p), data, 0o644); err != nil {
		return fmt.Errorf("edit %s: %w", p, err)
	}
	w.mu.Lock()
	w.edited++
	w.mu.Unlock()
	return nil
}

// create writes a new note linking to two existing ones.
func (w *loadWriter) create(i int) error {
	p := fmt.Sprintf("Load notes/Load note %d.md", i)
	word := fmt.Sprintf("loadnote%d", i)
	link := func() string { return strings.TrimSuffix(w.notes.pick(w.r), ".md") }
	body := fmt.Sprintf("# Load note %d\n\n%s %s, see [[%s]] and [[%s]].\n", i, word, w.sentence(12), link(), link())
	if err := os.MkdirAll(filepath.Dir(w.file(p)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(w.file(p), []byte(body), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	w.notes.add(p)
	w.mu.Lock()
	w.created++
	w.lastPath, w.lastWord = p, word
	w.mu.Unlock()
	return nil
}

// rename gives a note a new name in its folder.
func (w *loadWriter) rename(i int) error {
	p := w.notes.pick(w.r)
	to := path.Join(path.Dir(p), fmt.Sprintf("%s renamed %d.md", strings.TrimSuffix(path.Base(p), ".md"), i))
	w.notes.remove(p)
	if err := os.Rename(w.file(p), w.file(to)); err != nil {
		return fmt.Errorf("rename %s: %w", p, err)
	}
	w.notes.add(to)
	w.mu.Lock()
	w.renamed++
	w.mu.Unlock()
	return nil
}

func (w *loadWriter) remove(int) error {
	p := w.notes.pick(w.r)
	w.notes.remove(p)
	if err := os.Remove(w.file(p)); err != nil {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	w.mu.Lock()
	w.deleted++
	w.mu.Unlock()
	return nil
}

func (w *loadWriter) lastCreated() (string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastPath, w.lastWord
}

// loadWork is what the clients share: the notes, the query words and the
// tools the server lists.
type loadWork struct {
	notes *liveNotes
	words []string
	vault string
	tools map[string]*mcpsdk.Tool
}

func knownLoadTool(name string) bool {
	switch name {
	case mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined, mcp.ToolSearchGraph,
		mcp.ToolReadNote, mcp.ToolListVaults, mcp.ToolHealthStatus:
		return true
	}
	return false
}

func (w *loadWork) query(r *rand.Rand, lo, hi int) string {
	n := lo + r.IntN(hi-lo+1)
	q := make([]string, n)
	for i := range q {
		q[i] = w.words[r.IntN(len(w.words))]
	}
	return strings.Join(q, " ")
}

// args makes the arguments of a call to tool, and returns the note they
// name, if any.
func (w *loadWork) args(tool string, r *rand.Rand) (map[string]any, string) {
	switch tool {
	case mcp.ToolSearchVault:
		return map[string]any{"query": w.query(r, 1, 3), "search_content": r.IntN(4) > 0}, ""
	case mcp.ToolSearchSemantic:
		return map[string]any{"query": w.query(r, 3, 8)}, ""
	case mcp.ToolSearchCombined:
		return map[string]any{"query": w.query(r, 2, 5)}, ""
	case mcp.ToolSearchGraph:
		p := w.notes.pick(r)
		return map[string]any{"query_note_path": p, "depth": 1 + r.IntN(2)}, p
	case mcp.ToolReadNote:
		p := w.notes.pick(r)
		return map[string]any{"path": p}, p
	case mcp.ToolListVaults, mcp.ToolHealthStatus:
		return nil, ""
	}
	return w.schemaArgs(w.tools[tool], r)
}

// schemaArgs fills the required arguments of a tool no case of args
// knows, from its input schema: a note path for a string named like one,
// a query for other strings, 1 for numbers, false for booleans.
func (w *loadWork) schemaArgs(t *mcpsdk.Tool, r *rand.Rand) (map[string]any, string) {
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if t == nil || remarshal(t.InputSchema, &schema) != nil {
		return nil, ""
	}
	args := map[string]any{}
	var note string
	for _, name := range schema.Required {
		switch schema.Properties[name].Type {
		case "string":
			if strings.Contains(name, "path") || strings.Contains(name, "note") {
				note = w.notes.pick(r)
				args[name] = note
			} else {
				args[name] = w.query(r, 1, 3)
			}
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = false
		}
	}
	return args, note
}

// call makes one request of the rotation and records how it went.
func (w *loadWork) call(ctx context.Context, cs *mcpsdk.ClientSession, name string, r *rand.Rand, s *loadStats) {
	ctx, cancel := context.WithTimeout(ctx, loadCallTimeout)
	defer cancel()
	if name == readResource {
		p := w.notes.pick(r)
		t0 := time.Now()
		_, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: mcp.NoteURI(w.vault, p)})
		took := time.Since(t0)
		var werr *jsonrpc.Error
		switch {
		case err == nil:
			s.add(name, took, outcomeOK, "")
		case errors.As(err, &werr) && werr.Code == jsonrpc.CodeInvalidParams && strings.Contains(werr.Message, "not found") && w.notes.stale(p):
			s.add(name, took, outcomeStale, p+": "+err.Error())
		default:
			s.add(name, took, outcomeProtocol, p+": "+err.Error())
		}
		return
	}
	args, note := w.args(name, r)
	t0 := time.Now()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: name, Arguments: args})
	took := time.Since(t0)
	switch {
	case err != nil:
		s.add(name, took, outcomeProtocol, fmt.Sprintf("%v: %v", args, err))
	case res.IsError && note != "" && w.notes.stale(note):
		s.add(name, took, outcomeStale, note+": "+resultText(res))
	case res.IsError && !knownLoadTool(name):
		s.add(name, took, outcomeUnchecked, fmt.Sprintf("%v: %s", args, resultText(res)))
	case res.IsError:
		s.add(name, took, outcomeTool, fmt.Sprintf("%v: %s", args, resultText(res)))
	default:
		o := outcomeOK
		var d struct {
			Degraded       bool   `json:"degraded"`
			DegradedReason string `json:"degraded_reason"`
		}
		if remarshal(res.StructuredContent, &d) == nil && d.Degraded {
			o = outcomeDegraded
		}
		s.add(name, took, o, d.DegradedReason)
	}
}

func resultText(res *mcpsdk.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcpsdk.TextContent); ok {
			return t.Text
		}
	}
	return "(no text)"
}

// outcome is how one request went.
type outcome int

const (
	outcomeOK        outcome = iota
	outcomeDegraded          // answered, but from a fallback (not an error)
	outcomeStale             // the note named was removed or is new to the watcher (not an error)
	outcomeUnchecked         // a tool error with arguments made from the schema (not counted)
	outcomeProtocol          // a JSON-RPC or transport error
	outcomeTool              // a tool result with IsError
	outcomes
)

var outcomeNames = [outcomes]string{"ok", "degraded", "stale", "unchecked", "protocol errors", "tool errors"}

// loadStats is the latency and outcomes of one client's requests, by
// request name.
type loadStats struct {
	byTool map[string]*toolStats
}

type toolStats struct {
	took  []time.Duration
	count [outcomes]int
	first [outcomes][]string // the first few messages of each outcome
}

func newLoadStats() *loadStats { return &loadStats{byTool: map[string]*toolStats{}} }

func (s *loadStats) tool(name string) *toolStats {
	t := s.byTool[name]
	if t == nil {
		t = &toolStats{}
		s.byTool[name] = t
	}
	return t
}

func (s *loadStats) add(name string, took time.Duration, o outcome, msg string) {
	t := s.tool(name)
	t.took = append(t.took, took)
	t.count[o]++
	if msg != "" && len(t.first[o]) < 3 {
		t.first[o] = append(t.first[o], msg)
	}
}

func (s *loadStats) merge(o *loadStats) {
	for name, ot := range o.byTool {
		t := s.tool(name)
		t.took = append(t.took, ot.took...)
		for i := range outcomes {
			t.count[i] += ot.count[i]
			for _, m := range ot.first[i] {
				if len(t.first[i]) < 3 {
					t.first[i] = append(t.first[i], m)
				}
			}
		}
	}
}

func (s *loadStats) count(o outcome) int {
	n := 0
	for _, t := range s.byTool {
		n += t.count[o]
	}
	return n
}

func (s *loadStats) real() int { return s.count(outcomeProtocol) + s.count(outcomeTool) }

func (s *loadStats) calls() int {
	n := 0
	for _, t := range s.byTool {
		n += len(t.took)
	}
	return n
}

// table lays out each request's latency and outcomes, then the first
// messages of everything but plain successes.
func (s *loadStats) table(order []string) string {
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "request\tcalls\tp50 ms\tp95 ms\tp99 ms\tmax ms\tprotocol err\ttool err\tstale\tdegraded\tunchecked\t")
	for _, name := range order {
		t := s.byTool[name]
		if t == nil || len(t.took) == 0 {
			fmt.Fprintf(tw, "%s\t0\t\t\t\t\t\t\t\t\t\t\n", name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", name, len(t.took),
			ms(percentile(t.took, 50)), ms(percentile(t.took, 95)), ms(percentile(t.took, 99)), ms(percentile(t.took, 100)),
			t.count[outcomeProtocol], t.count[outcomeTool], t.count[outcomeStale], t.count[outcomeDegraded], t.count[outcomeUnchecked])
	}
	tw.Flush()
	for _, name := range order {
		t := s.byTool[name]
		if t == nil {
			continue
		}
		for o := outcomeDegraded; o < outcomes; o++ {
			for _, m := range t.first[o] {
				fmt.Fprintf(&sb, "%s %s: %s\n", name, outcomeNames[o], oneLine(m, 300))
			}
		}
	}
	return sb.String()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// percentile sorts ds and returns its p-th percentile (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	slices.Sort(ds)
	i := (len(ds)*p + 99) / 100
	return ds[max(0, min(len(ds)-1, i-1))]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// rssSampler reads a process's VmRSS every loadRSSEvery, from start until
// stop, tagging each sample with the phase it was taken in.
type rssSampler struct {
	mu    sync.Mutex
	list  []rssSample
	phase string
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

type rssSample struct {
	at   time.Duration // since the server started
	mb   float64
	anon float64 // of mb, the process's own memory (Go heap, SQLite caches)
	file float64 // of mb, mapped files (the binary, the database's memory map)
	// pss counts each page once however many maps hold it: the memory the
	// process costs the machine, where mb counts a database page once per
	// connection that mapped it.
	pss float64
	// dbMaps is how many memory maps of the database file the process
	// holds: SQLite maps it once per connection, and each map's resident
	// pages count in file.
	dbMaps int
	phase  string
}

func sampleRSS(pid int, started time.Time, db string) *rssSampler {
	s := &rssSampler{phase: "start", done: make(chan struct{})}
	s.wg.Go(func() {
		t := time.NewTicker(loadRSSEvery)
		defer t.Stop()
		for {
			if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
				s.mu.Lock()
				rollup, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
				s.list = append(s.list, rssSample{at: time.Since(started), phase: s.phase, dbMaps: mapsOf(pid, db),
					mb: statusMB(st, "VmRSS"), anon: statusMB(st, "RssAnon"), file: statusMB(st, "RssFile"), pss: statusMB(rollup, "Pss")})
				s.mu.Unlock()
			}
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	})
	return s
}

func (s *rssSampler) mark(phase string) {
	s.mu.Lock()
	s.phase = phase
	s.mu.Unlock()
}

func (s *rssSampler) stop() {
	s.once.Do(func() { close(s.done) })
	s.wg.Wait()
}

func (s *rssSampler) samples() []rssSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.list)
}

// procStatusMB reads a field of /proc/PID/status in MB, 0 when it
// cannot.
func procStatusMB(pid int, field string) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	return statusMB(data, field)
}

// mapsOf counts the memory maps of file in process pid.
func mapsOf(pid int, file string) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return 0
	}
	n := 0
	for l := range strings.Lines(string(data)) {
		if strings.HasSuffix(strings.TrimSpace(l), " "+file) {
			n++
		}
	}
	return n
}

// statusMB reads a kB field of the text of /proc/PID/status (or
// smaps_rollup), in MB.
func statusMB(status []byte, field string) float64 {
	for l := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return 0
			}
			kb, _ := strconv.ParseInt(f[0], 10, 64)
			return float64(kb) / 1024
		}
	}
	return 0
}

// rssCurve lays out at most about 60 samples, evenly spaced, and the peak.
func rssCurve(ss []rssSample) string {
	if len(ss) == 0 {
		return "no RSS samples"
	}
	var sb strings.Builder
	sb.WriteString("RSS of the server: seconds since start, MB (anonymous + file), PSS MB, memory maps of the database, phase\n")
	step := (len(ss) + 59) / 60
	var peak rssSample
	var peakPSS float64
	for i, s := range ss {
		if s.mb > peak.mb {
			peak = s
		}
		peakPSS = max(peakPSS, s.pss)
		if i%step == 0 || i == len(ss)-1 {
			fmt.Fprintf(&sb, "%6.1f %7.1f (%6.1f + %5.1f) %7.1f %3d %s\n", s.at.Seconds(), s.mb, s.anon, s.file, s.pss, s.dbMaps, s.phase)
		}
	}
	fmt.Fprintf(&sb, "peak %.1f MB (%.1f + %.1f, %d maps of the database) at %.1f s (%s); peak PSS %.1f MB\n",
		peak.mb, peak.anon, peak.file, peak.dbMaps, peak.at.Seconds(), peak.phase, peakPSS)
	return sb.String()
}

func writeRSSCSV(p string, ss []rssSample) error {
	var sb strings.Builder
	sb.WriteString("seconds,rss_mb,anon_mb,file_mb,pss_mb,db_maps,phase\n")
	for _, s := range ss {
		fmt.Fprintf(&sb, "%.1f,%.1f,%.1f,%.1f,%.1f,%d,%s\n", s.at.Seconds(), s.mb, s.anon, s.file, s.pss, s.dbMaps, s.phase)
	}
	return os.WriteFile(p, []byte(sb.String()), 0o644)
}
