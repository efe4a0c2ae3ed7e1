// Package hubtest is a fake Hugging Face hub on loopback for tests: the
// part of the hub's API that jarvis uses, serving small files with the
// hashes the real hub lists, and able to fail the ways the real one can.
package hubtest

import (
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
)

// File is one file of a fake repository. LFS files are listed with the
// sha256 of their content, the others with their git blob id, as the hub
// lists them.
type File struct {
	Path string
	Data []byte
	LFS  bool
}

// Hub is a loopback server speaking the part of the Hugging Face hub API
// that jarvis uses: the recursive tree listing (paginated, three entries a
// page, with a Link header) and /resolve/ downloads, redirected to a
// separate storage path as the real hub redirects to its file storage,
// with byte ranges. Its fields are set before the first request, or under
// the methods' lock.
type Hub struct {
	// URL is the hub's base URL, for HF_ENDPOINT.
	URL string
	srv *httptest.Server

	mu    sync.Mutex
	repos map[string]map[string][]File // repo -> revision -> files
	// commits maps a branch name to the commit the hub reports for it.
	commits map[string]string
	// gated repositories answer 401 without their token, 403 with another.
	gated    map[string]string
	cutAfter map[string]int
	corrupt  map[string]bool
	stall    bool
	silent   bool

	served   map[string]int64 // body bytes of each file sent
	ranges   []string         // "path=Range header" of each file download
	requests []string         // every request path
	auth     []string         // Authorization headers of tree listings
}

// New starts a fake hub, closed when the test ends.
func New(t testing.TB) *Hub {
	t.Helper()
	h := &Hub{
		repos: map[string]map[string][]File{}, commits: map[string]string{}, gated: map[string]string{},
		cutAfter: map[string]int{}, corrupt: map[string]bool{}, served: map[string]int64{},
	}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	h.URL = h.srv.URL
	t.Cleanup(h.srv.Close)
	return h
}

// Add serves files as repository repo at revision rev.
func (h *Hub) Add(repo, rev string, files ...File) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.repos[repo] == nil {
		h.repos[repo] = map[string][]File{}
	}
	h.repos[repo][rev] = files
}

// SetCommit makes downloads at branch report commit as X-Repo-Commit.
func (h *Hub) SetCommit(branch, commit string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.commits[branch] = commit
}

// Gate makes repo answer only requests bearing token.
func (h *Hub) Gate(repo, token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gated[repo] = token
}

// CutAfter makes the next download of path send n bytes of its body and
// then drop the connection.
func (h *Hub) CutAfter(path string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cutAfter[path] = n
}

// Corrupt serves path with one byte changed, or as it is again.
func (h *Hub) Corrupt(path string, corrupt bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.corrupt[path] = corrupt
}

// Stall makes file downloads send their headers and a few bytes, then
// nothing until the client gives up.
func (h *Hub) Stall(stall bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stall = stall
}

// Silent makes every request wait, unanswered, until the client gives up.
func (h *Hub) Silent(silent bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.silent = silent
}

// Served is how many body bytes of files at path the hub has sent.
func (h *Hub) Served(path string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.served[path]
}

// Ranges lists the file downloads as "path=Range header".
func (h *Hub) Ranges() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ranges)
}

// Requests is how many requests the hub has had.
func (h *Hub) Requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.requests)
}

// Authorizations lists the Authorization headers of the tree listings.
func (h *Hub) Authorizations() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.auth)
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
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
func (h *Hub) lookup(w http.ResponseWriter, r *http.Request, repo, rev string) ([]File, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	revs, ok := h.repos[repo]
	if !ok {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.Header().Set("X-Error-Message", "Repository not found")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusUnauthorized)
		return nil, false
	}
	if token, ok := h.gated[repo]; ok && r.Header.Get("Authorization") != "Bearer "+token {
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
func (h *Hub) serveTree(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/api/models/")
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) != 4 || parts[2] != "tree" || r.URL.Query().Get("recursive") != "true" {
		http.Error(w, "bad tree request", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.auth = append(h.auth, r.Header.Get("Authorization"))
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
		if d := path.Dir(f.Path); d != "." && !dirs[d] {
			dirs[d] = true
			entries = append(entries, entry{Type: "directory", Oid: strings.Repeat("d", 40), Path: d})
		}
		e := entry{Type: "file", Oid: GitBlobID(f.Data), Size: len(f.Data), Path: f.Path}
		if f.LFS {
			sum := sha256.Sum256(f.Data)
			pointer := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%x\nsize %d\n", sum, len(f.Data))
			e.Oid, e.Size = GitBlobID([]byte(pointer)), len(pointer)
			e.LFS = &lfs{Oid: hex.EncodeToString(sum[:]), Size: len(f.Data), PointerSize: len(pointer)}
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
func (h *Hub) resolve(w http.ResponseWriter, r *http.Request) {
	repoPart, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/resolve/")
	rev, p, _ := strings.Cut(rest, "/")
	files, ok := h.lookup(w, r, repoPart, rev)
	if !ok {
		return
	}
	if !slices.ContainsFunc(files, func(f File) bool { return f.Path == p }) {
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
func (h *Hub) serveFile(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/cdn/"), "/", 4)
	repo, rev, p := parts[0]+"/"+parts[1], parts[2], parts[3]
	h.mu.Lock()
	var data []byte
	for _, f := range h.repos[repo][rev] {
		if f.Path == p {
			data = slices.Clone(f.Data)
		}
	}
	if h.corrupt[p] {
		data[len(data)/2] ^= 0xff
	}
	cut, hasCut := h.cutAfter[p]
	delete(h.cutAfter, p)
	stall := h.stall
	h.ranges = append(h.ranges, p+"="+r.Header.Get("Range"))
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

func (h *Hub) count(p string, n int) {
	h.mu.Lock()
	h.served[p] += int64(n)
	h.mu.Unlock()
}

// GitBlobID is git's id of a blob with this content, which the hub lists
// as the oid of files not stored with LFS.
func GitBlobID(data []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(data))
	s.Write(data)
	return hex.EncodeToString(s.Sum(nil))
}

// RandomBytes are n bytes that are the same for the same seed.
func RandomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// Model2VecFiles is a tiny model2vec repository: the three files a static
// embedder reads, plus a README and an ONNX export it does not.
func Model2VecFiles() []File {
	return []File{
		{Path: "README.md", Data: []byte("# a tiny model\n")},
		{Path: "config.json", Data: []byte(`{"model_type":"model2vec","architectures":["StaticModel"],"hidden_dim":8,"normalize":true}`)},
		{Path: "model.safetensors", Data: RandomBytes(1, 20_000), LFS: true},
		{Path: "onnx/model.onnx", Data: RandomBytes(2, 3_000), LFS: true},
		{Path: "tokenizer.json", Data: []byte(`{"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1}}}`)},
	}
}

// BERTFiles is a tiny BERT repository as sentence-transformers saves it.
func BERTFiles() []File {
	return []File{
		{Path: ".gitattributes", Data: []byte("*.safetensors filter=lfs\n")},
		{Path: "1_Pooling/config.json", Data: []byte(`{"word_embedding_dimension":16,"pooling_mode_mean_tokens":true}`)},
		{Path: "config.json", Data: []byte(`{"model_type":"bert","architectures":["BertModel"],"hidden_size":16}`)},
		{Path: "model.safetensors", Data: RandomBytes(3, 12_000), LFS: true},
		{Path: "modules.json", Data: []byte(`[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"}]`)},
		{Path: "pytorch_model.bin", Data: RandomBytes(4, 5_000), LFS: true},
		{Path: "sentence_bert_config.json", Data: []byte(`{"max_seq_length":256}`)},
		{Path: "special_tokens_map.json", Data: []byte(`{"unk_token":"[UNK]"}`)},
		{Path: "tokenizer_config.json", Data: []byte(`{"do_lower_case":true}`)},
		{Path: "vocab.txt", Data: []byte("[PAD]\n[UNK]\n[CLS]\n[SEP]\na\n")},
	}
}
