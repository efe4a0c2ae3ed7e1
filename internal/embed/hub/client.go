package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/reach"
)

const (
	// DefaultEndpoint is the Hugging Face hub.
	DefaultEndpoint = "https://huggingface.co"
	// EnvEndpoint moves the hub, as it does for Hugging Face's own tools
	// (a mirror, or a test server).
	EnvEndpoint = "HF_ENDPOINT"
	// EnvToken holds a Hugging Face access token, sent when set; only
	// gated or private models need one.
	EnvToken = "HF_TOKEN"
)

var (
	// ErrNotFound means the hub has no such repository, revision or file.
	ErrNotFound = errors.New("not found on the hub")
	// ErrAccess means the hub refused access: a gated or private model, or
	// a token without the right to read it.
	ErrAccess = errors.New("access refused by the hub")
	// ErrOffline means the hub could not be reached at all.
	ErrOffline = errors.New("hub unreachable")
	// ErrTimeout means the hub did not answer, or stopped sending, within
	// the client's time limits.
	ErrTimeout = errors.New("hub timed out")
	// ErrHash means a downloaded file is not the file the hub listed.
	ErrHash = errors.New("download does not match its hash")
)

// Client downloads from the Hugging Face hub. The zero value is not ready;
// use NewClient, then change fields before the first call if needed.
type Client struct {
	// Endpoint is the hub's base URL, without a trailing slash.
	Endpoint string
	// Token is sent as a bearer token when not empty.
	Token string
	// HTTP sends the requests; it follows the hub's redirects to its
	// file storage.
	HTTP *http.Client
	// HeaderTimeout bounds connecting and waiting for a response's
	// headers, so a hub that never answers fails in bounded time.
	HeaderTimeout time.Duration
	// StallTimeout bounds the wait for the next bytes of a response body:
	// a download may take long, but may not stand still this long.
	StallTimeout time.Duration
	// Retries is how many more times a download cut off mid-way (or
	// answered 5xx or 429) is tried; each try resumes where the last one
	// stopped. RetryWait is the pause before the first retry, doubled
	// after each.
	Retries   int
	RetryWait time.Duration
	UserAgent string
}

// NewClient makes a client for the hub named by HF_ENDPOINT (default
// https://huggingface.co), sending HF_TOKEN when set. getenv is os.Getenv
// outside tests.
func NewClient(getenv func(string) string) *Client {
	endpoint := strings.TrimRight(getenv(EnvEndpoint), "/")
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	return &Client{
		Endpoint:      endpoint,
		Token:         strings.TrimSpace(getenv(EnvToken)),
		HTTP:          &http.Client{},
		HeaderTimeout: 30 * time.Second,
		StallTimeout:  60 * time.Second,
		Retries:       3,
		RetryWait:     time.Second,
		UserAgent:     "jarvis",
	}
}

// errNoAnswer and errStalled are the causes the client cancels a request
// with when one of its time limits runs out.
var (
	errNoAnswer = errors.New("no answer")
	errStalled  = errors.New("stalled")
)

// kindError is a complete message that errors.Is also matches to one of
// the sentinels above, without the sentinel's words appended to it.
type kindError struct {
	msg     string
	kind    error
	wrapped error
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() []error {
	if e.wrapped != nil {
		return []error{e.kind, e.wrapped}
	}
	return []error{e.kind}
}

// errorf formats a message as fmt.Errorf does and marks it as of kind.
func errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &kindError{msg: err.Error(), kind: kind, wrapped: errors.Unwrap(err)}
}

// transientError marks a failure worth another try: the connection broke
// mid-body, the body stalled, or the hub answered 5xx or 429.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

func isTransient(err error) bool {
	var t *transientError
	return errors.As(err, &t)
}

// get sends a GET for u and returns the response once its headers arrive,
// at most HeaderTimeout after the call. The body is guarded by the stall
// timeout; the caller closes it. Errors are classified: ErrOffline when
// nothing answered the dial, ErrTimeout when the hub stayed silent.
func (c *Client) get(ctx context.Context, u string, header http.Header) (*http.Response, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.Token != "" {
		// Go drops this header when a redirect leaves the hub's host, so
		// the token never reaches the file storage's signed URLs.
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	timer := time.AfterFunc(c.HeaderTimeout, func() { cancel(errNoAnswer) })
	resp, err := c.HTTP.Do(req)
	timer.Stop()
	if err != nil {
		cancel(nil)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(context.Cause(rctx), errNoAnswer):
			return nil, errorf(ErrTimeout, "the hub at %s did not answer within %s", c.Endpoint, c.HeaderTimeout)
		case reach.Classify(err) != reach.Other:
			return nil, unreachable(u, err)
		}
		return nil, &transientError{fmt.Errorf("request %s: %w", u, err)}
	}
	resp.Body = &stallGuard{ctx: ctx, rctx: rctx, body: resp.Body, cancel: cancel, limit: c.StallTimeout, endpoint: c.Endpoint,
		timer: time.AfterFunc(c.StallTimeout, func() { cancel(errStalled) })}
	return resp, nil
}

// unreachable is ErrOffline for a request to u that reached no answer
// (err): which host, why in words (reach.Why), and what to check. Go's
// own text of err stays out of the message, reachable through
// errors.Unwrap for a debug log.
func unreachable(u string, err error) error {
	host := u
	var ue *url.Error
	if errors.As(err, &ue) {
		u = ue.URL // a redirect's, to the file storage
	}
	if p, perr := url.Parse(u); perr == nil && p.Host != "" {
		host = p.Host
	}
	why, _ := reach.Why(err)
	return &kindError{msg: fmt.Sprintf("cannot reach the model host %s: %s; %s", host, why, reach.Hint(err)), kind: ErrOffline, wrapped: err}
}

// stallGuard cancels a response whose body sends nothing for limit, and
// turns the resulting read error into one that says so.
type stallGuard struct {
	ctx, rctx context.Context
	body      io.ReadCloser
	cancel    context.CancelCauseFunc
	timer     *time.Timer
	limit     time.Duration
	endpoint  string
}

func (g *stallGuard) Read(p []byte) (int, error) {
	n, err := g.body.Read(p)
	if n > 0 {
		g.timer.Reset(g.limit)
	}
	if err != nil && err != io.EOF {
		switch {
		case g.ctx.Err() != nil:
			err = g.ctx.Err()
		case errors.Is(context.Cause(g.rctx), errStalled):
			err = &transientError{errorf(ErrTimeout, "the hub at %s sent nothing for %s", g.endpoint, g.limit)}
		default:
			err = &transientError{fmt.Errorf("download cut off: %w", err)}
		}
	}
	return n, err
}

func (g *stallGuard) Close() error {
	g.timer.Stop()
	err := g.body.Close()
	g.cancel(nil)
	return err
}

// statusError turns a response that is not a success into an error for
// what (a sentence naming the model, and the file when there is one) of
// repo.
// 401 and 403 are ErrAccess unless the hub says the repository does not
// exist (it answers 401 for those when no token is sent); 404 is
// ErrNotFound; 429 and 5xx are transient.
func (c *Client) statusError(resp *http.Response, what, repo string) error {
	code := resp.Header.Get("X-Error-Code")
	msg := hubMessage(resp)
	page := c.Endpoint + "/" + repo
	switch {
	case code == "RepoNotFound" || code == "RevisionNotFound" || code == "EntryNotFound" || resp.StatusCode == http.StatusNotFound:
		hint := "check the name"
		if code == "RevisionNotFound" {
			hint = "check the revision"
		}
		if resp.StatusCode == http.StatusUnauthorized && c.Token == "" {
			hint += "; if it is private or gated, set " + EnvToken + " to a token that can read it"
		}
		return errorf(ErrNotFound, "%s not found on the hub at %s; %s%s", what, page, hint, msg)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		tokenHint := "set " + EnvToken + " to a Hugging Face access token"
		if c.Token != "" {
			tokenHint = "check that the token in " + EnvToken + " can read it"
		}
		return errorf(ErrAccess, "the hub refused access to %s (HTTP %d)%s: the model may be gated or private; accept its terms on its page at %s, then %s",
			what, resp.StatusCode, msg, page, tokenHint)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return &transientError{fmt.Errorf("the hub answered %s for %s%s", resp.Status, what, msg)}
	}
	return fmt.Errorf("the hub answered %s for %s at %s%s", resp.Status, what, resp.Request.URL, msg)
}

// hubMessage is the hub's own explanation of an error, when it gave one.
func hubMessage(resp *http.Response) string {
	if m := resp.Header.Get("X-Error-Message"); m != "" {
		return " (" + m + ")"
	}
	var body struct {
		Error string `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if json.Unmarshal(b, &body) == nil && body.Error != "" {
		return " (" + body.Error + ")"
	}
	return ""
}

// treeEntry is one entry of the hub's file listing of a revision.
type treeEntry struct {
	Type string `json:"type"` // "file" or "directory"
	Oid  string `json:"oid"`  // the git blob id
	Size int64  `json:"size"`
	Path string `json:"path"`
	LFS  *struct {
		Oid  string `json:"oid"` // the sha256 of the content
		Size int64  `json:"size"`
	} `json:"lfs"`
}

// maxListPage bounds one page of a file listing, in bytes.
const maxListPage = 8 << 20

// listFiles lists every file of repo at rev, following the hub's
// pagination (a Link header with rel="next").
func (c *Client) listFiles(ctx context.Context, repo, rev, what string) ([]treeEntry, error) {
	next := c.Endpoint + "/api/models/" + escapeRepo(repo) + "/tree/" + url.PathEscape(rev) + "?recursive=true"
	var files []treeEntry
	for page := 0; next != ""; page++ {
		if page > 1000 {
			return nil, fmt.Errorf("list files of %s: the listing does not end", what)
		}
		entries, link, err := c.listPage(ctx, next, repo, what)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type == "file" {
				files = append(files, e)
			}
		}
		next = link
	}
	return files, nil
}

func (c *Client) listPage(ctx context.Context, u, repo, what string) ([]treeEntry, string, error) {
	var lastErr error
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if attempt > 0 {
			if err := c.wait(ctx, attempt); err != nil {
				return nil, "", err
			}
		}
		resp, err := c.get(ctx, u, http.Header{"Accept": {"application/json"}})
		if err != nil {
			if !isTransient(err) {
				return nil, "", err
			}
			lastErr = err
			continue
		}
		entries, link, err := c.readPage(resp, repo, what)
		if err == nil || !isTransient(err) {
			return entries, link, err
		}
		lastErr = err
	}
	return nil, "", fmt.Errorf("list files of %s: %w", what, lastErr)
}

func (c *Client) readPage(resp *http.Response, repo, what string) ([]treeEntry, string, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", c.statusError(resp, what, repo)
	}
	var entries []treeEntry
	// A page of the real hub is a few kilobytes; a listing that goes on
	// for megabytes is not one to trust.
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxListPage)).Decode(&entries); err != nil {
		if isTransient(err) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("the hub's file list of %s cannot be read: %w", what, err)
	}
	next := ""
	if link := nextLink(resp.Header.Get("Link")); link != "" {
		ref, err := resp.Request.URL.Parse(link)
		if err != nil {
			return nil, "", fmt.Errorf("the hub's file list of %s links to a bad next page %q", what, link)
		}
		// The token goes with every page: the next one must be on the
		// host the listing came from.
		if ref.Scheme != resp.Request.URL.Scheme || ref.Host != resp.Request.URL.Host {
			return nil, "", fmt.Errorf("the hub's file list of %s links its next page to another host (%s)", what, ref.Host)
		}
		next = ref.String()
	}
	return entries, next, nil
}

// nextLink finds the rel="next" target of a Link header.
func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		target, params, ok := strings.Cut(part, ";")
		if !ok {
			continue
		}
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "rel") && strings.Trim(v, `"`) == "next" {
				return target[1 : len(target)-1]
			}
		}
	}
	return ""
}

// wait pauses before retry number attempt (1, 2, ...).
func (c *Client) wait(ctx context.Context, attempt int) error {
	d := c.RetryWait << (attempt - 1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// fileURL is where the hub serves one file of repo at rev.
func (c *Client) fileURL(repo, rev, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return c.Endpoint + "/" + escapeRepo(repo) + "/resolve/" + url.PathEscape(rev) + "/" + strings.Join(segs, "/")
}

func escapeRepo(repo string) string {
	owner, name, _ := strings.Cut(repo, "/")
	return url.PathEscape(owner) + "/" + url.PathEscape(name)
}
