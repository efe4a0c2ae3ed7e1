package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeFile is one file of a fake repository.
type fakeFile struct {
	path string
	data []byte
	lfs  bool
}

// fakeHub is a loopback server speaking the part of the Hugging Face hub
// API that Pull uses: the recursive tree listing (paginated, three entries
// a page) and /resolve/ downloads, redirected to a separate storage path
// as the real hub redirects to its CDN, with byte ranges.
type fakeHub struct {
	srv *httptest.Server

	mu    sync.Mutex
	repos map[string]map[string][]fakeFile // repo -> revision -> files
	// commits maps a branch name to the commit the hub reports for it.
	commits map[string]string
	// gated repositories answer 401 without the token, 403 with another.
	gated map[string]bool
	token string
	// cutAfter makes the next download of a path send only this many
	// bytes of the body and then drop the connection (once).
	cutAfter map[string]int
	// corrupt paths are served with one byte changed.
	corrupt map[string]bool
	// stall makes file downloads send headers and a few bytes, then nothing.
	stall bool
	// silent makes every request wait, unanswered, until the client goes.
	silent bool

	served    map[string]int64 // body bytes of each file sent
	ranges    []string         // Range headers of file downloads, "path=range"
	requests  []string         // every request path
	authSeen  []string         // Authorization headers of API requests
	downloads int
}

func newFakeHub(t *testing.T) *fakeHub {
	t.Helper()
	h := &fakeHub{
		repos: map[string]map[string][]fakeFile{}, commits: map[string]string{}, gated: map[string]bool{},
		cutAfter: map[string]int{}, corrupt: map[string]bool{}, served: map[string]int64{},
	}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHub) add(repo, rev string, files ...fakeFile) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.repos[repo] == nil {
		h.repos[repo] = map[string][]fakeFile{}
	}
	h.repos[repo][rev] = files
}

// client is a client of this hub with time limits short enough for tests.
func (h *fakeHub) client() *Client {
	c := NewClient(func(k string) string {
		if k == EnvEndpoint {
			return h.srv.URL
		}
		return ""
	})
	c.HeaderTimeout = 2 * time.Second
	c.StallTimeout = 2 * time.Second
	c.RetryWait = time.Millisecond
	return c
}

func (h *fakeHub) servedBytes(p string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.served[p]
}

func (h *fakeHub) requestCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.requests)
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests = append(h.requests, r.URL.Path)
	silent := h.silent
	h.mu.Unlock()
	if silent {
		<-r.Context().Done()
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/models/"):
		h.serveTree(w, r)
	case strings.HasPrefix(r.URL.Path, "/cdn/"):
		h.serveFile(w, r)
	case strings.Contains(r.URL.Path, "/resolve/"):
		h.resolve(w, r)
	default:
		http.NotFound(w, r)
	}
}

// lookup finds a repository's files at a revision, answering as the hub
// does when it cannot: 401 with RepoNotFound for a repository that does
// not exist (the hub will not say whether a private one does), 404 with
// RevisionNotFound, and 401/403 for a gated repository.
func (h *fakeHub) lookup(w http.ResponseWriter, r *http.Request, repo, rev string) ([]fakeFile, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	revs, ok := h.repos[repo]
	if !ok {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.Header().Set("X-Error-Message", "Repository not found")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusUnauthorized)
		return nil, false
	}
	if h.gated[repo] && r.Header.Get("Authorization") != "Bearer "+h.token {
		code := http.StatusUnauthorized
		if r.Header.Get("Authorization") != "" {
			code = http.StatusForbidden
		}
		w.Header().Set("X-Error-Code", "GatedRepo")
		http.Error(w, `{"error":"Access to this model is restricted"}`, code)
		return nil, false
	}
	files, ok := revs[rev]
	if !ok {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, `{"error":"Invalid rev id"}`, http.StatusNotFound)
		return nil, false
	}
	return files, true
}

// serveTree answers GET /api/models/{owner}/{name}/tree/{rev}?recursive=true.
func (h *fakeHub) serveTree(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/api/models/")
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) != 4 || parts[2] != "tree" || r.URL.Query().Get("recursive") != "true" {
		http.Error(w, "bad tree request", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.authSeen = append(h.authSeen, r.Header.Get("Authorization"))
	h.mu.Unlock()
	files, ok := h.lookup(w, r, parts[0]+"/"+parts[1], parts[3])
	if !ok {
		return
	}
	type lfs struct {
		Oid         string `json:"oid"`
		Size        int    `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type entry struct {
		Type string `json:"type"`
		Oid  string `json:"oid"`
		Size int    `json:"size"`
		Path string `json:"path"`
		LFS  *lfs   `json:"lfs,omitempty"`
	}
	var entries []entry
	dirs := map[string]bool{}
	for _, f := range files {
		if d := path.Dir(f.path); d != "." && !dirs[d] {
			dirs[d] = true
			entries = append(entries, entry{Type: "directory", Oid: strings.Repeat("d", 40), Path: d})
		}
		e := entry{Type: "file", Oid: gitBlobID(f.data), Size: len(f.data), Path: f.path}
		if f.lfs {
			sum := sha256.Sum256(f.data)
			pointer := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%x\nsize %d\n", sum, len(f.data))
			e.Oid, e.Size = gitBlobID([]byte(pointer)), len(pointer)
			e.LFS = &lfs{Oid: hex.EncodeToString(sum[:]), Size: len(f.data), PointerSize: len(pointer)}
		}
		entries = append(entries, e)
	}
	const pageSize = 3
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	end := min(start+pageSize, len(entries))
	if end < len(entries) {
		next := *r.URL
		q := next.Query()
		q.Set("cursor", strconv.Itoa(end))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next.String()))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(entries[start:end])
}

// resolve answers GET /{owner}/{name}/resolve/{rev}/{path} with a redirect
// to the storage path, as the hub does for large files.
func (h *fakeHub) resolve(w http.ResponseWriter, r *http.Request) {
	repoPart, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/resolve/")
	rev, p, _ := strings.Cut(rest, "/")
	files, ok := h.lookup(w, r, repoPart, rev)
	if !ok {
		return
	}
	if !slices.ContainsFunc(files, func(f fakeFile) bool { return f.path == p }) {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "Entry not found", http.StatusNotFound)
		return
	}
	h.mu.Lock()
	commit := h.commits[rev]
	h.mu.Unlock()
	if commit == "" {
		commit = rev
	}
	w.Header().Set("X-Repo-Commit", commit)
	http.Redirect(w, r, "/cdn/"+repoPart+"/"+rev+"/"+p, http.StatusFound)
}

// serveFile answers the storage path, honouring "Range: bytes=N-".
func (h *fakeHub) serveFile(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/cdn/"), "/", 4)
	repo, rev, p := parts[0]+"/"+parts[1], parts[2], parts[3]
	h.mu.Lock()
	var data []byte
	for _, f := range h.repos[repo][rev] {
		if f.path == p {
			data = slices.Clone(f.data)
		}
	}
	if h.corrupt[p] {
		data[len(data)/2] ^= 0xff
	}
	cut, hasCut := h.cutAfter[p]
	delete(h.cutAfter, p)
	stall := h.stall
	h.ranges = append(h.ranges, p+"="+r.Header.Get("Range"))
	h.downloads++
	h.mu.Unlock()

	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		if err != nil || n >= len(data) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
	}
	body := data[start:]
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if start > 0 {
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.WriteHeader(http.StatusOK)
	}
	if stall {
		n, _ := w.Write(body[:min(10, len(body))])
		h.count(p, n)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	if hasCut && cut < len(body) {
		n, _ := w.Write(body[:cut])
		h.count(p, n)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	n, _ := w.Write(body)
	h.count(p, n)
}

func (h *fakeHub) count(p string, n int) {
	h.mu.Lock()
	h.served[p] += int64(n)
	h.mu.Unlock()
}

// gitBlobID is git's id of a blob with this content, which the hub lists
// as the oid of files not stored with LFS.
func gitBlobID(data []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(data))
	s.Write(data)
	return hex.EncodeToString(s.Sum(nil))
}

// randomBytes are n bytes that are the same for the same seed.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// model2vecFiles is a tiny model2vec repository: the three files a static
// embedder reads, plus a README and an ONNX export it does not.
func model2vecFiles() []fakeFile {
	return []fakeFile{
		{path: "README.md", data: []byte("# a tiny model\n")},
		{path: "config.json", data: []byte(`{"model_type":"model2vec","architectures":["StaticModel"],"hidden_dim":8,"normalize":true}`)},
		{path: "model.safetensors", data: randomBytes(1, 20_000), lfs: true},
		{path: "onnx/model.onnx", data: randomBytes(2, 3_000), lfs: true},
		{path: "tokenizer.json", data: []byte(`{"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1}}}`)},
	}
}

// bertFiles is a tiny BERT repository as sentence-transformers saves it.
func bertFiles() []fakeFile {
	return []fakeFile{
		{path: ".gitattributes", data: []byte("*.safetensors filter=lfs\n")},
		{path: "1_Pooling/config.json", data: []byte(`{"word_embedding_dimension":16,"pooling_mode_mean_tokens":true}`)},
		{path: "config.json", data: []byte(`{"model_type":"bert","architectures":["BertModel"],"hidden_size":16}`)},
		{path: "model.safetensors", data: randomBytes(3, 12_000), lfs: true},
		{path: "modules.json", data: []byte(`[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"}]`)},
		{path: "pytorch_model.bin", data: randomBytes(4, 5_000), lfs: true},
		{path: "sentence_bert_config.json", data: []byte(`{"max_seq_length":256}`)},
		{path: "special_tokens_map.json", data: []byte(`{"unk_token":"[UNK]"}`)},
		{path: "tokenizer_config.json", data: []byte(`{"do_lower_case":true}`)},
		{path: "vocab.txt", data: []byte("[PAD]\n[UNK]\n[CLS]\n[SEP]\na\n")},
	}
}

// pullCtx bounds a test's pull so that a hang fails the test instead of
// the whole run.
func pullCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
