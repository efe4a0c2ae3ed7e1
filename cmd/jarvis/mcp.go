package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/live"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/oauth"
	"github.com/jarvis-mcp/jarvis/internal/watch"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// envHTTPToken is the bearer token `jarvis mcp --http` requires when set.
const envHTTPToken = config.EnvHTTPToken

// minRemoteToken is the shortest token --allow-remote accepts: a token
// that guards every note from the network must not be guessable. 16
// characters of `openssl rand -hex 32` are 64 random bits.
const minRemoteToken = 16

// maxRequestBytes bounds an HTTP request body: tool arguments are small,
// and a bound keeps a stray client from filling memory.
const maxRequestBytes = 1 << 20

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("mcp", "jarvis mcp",
		`Serve your vaults to an AI assistant over the Model Context Protocol.
Vault folders given after the flags are served as if each had --vault.

By default jarvis speaks MCP over stdio, as Claude Desktop, Claude Code and
Cursor start it: only JSON-RPC goes to stdout, logs go to stderr or
--log-file. With --http it serves Streamable HTTP at /mcp instead, on a
loopback address unless --allow-remote is given; set JARVIS_HTTP_TOKEN to
require "Authorization: Bearer <token>". --allow-remote requires a token of
at least 16 characters, such as one made by
  export JARVIS_HTTP_TOKEN=$(openssl rand -hex 32)
Browser pages are let in only from the server's own origin and those given
with --allow-origin; clients that send no Origin are not affected. The HTTP
server keeps no sessions: each request stands alone, whichever MCP
version the client speaks (2024-11-05 to 2026-07-28), so several servers
may sit behind one address.

For clients that sign in with OAuth (Claude's connectors on claude.ai,
the phone apps and Claude Desktop), give --oauth-issuer: the server then
accepts access tokens that issuer signed for it, asking vault:read of
every request and vault:write of the write tools, and tells clients where
to sign in at /.well-known/oauth-protected-resource. It works with
--allow-remote in place of JARVIS_HTTP_TOKEN; the static token is meant
for clients on this machine, and with both set either is accepted.
Behind a proxy, give --public-url, the https URL clients reach the server
at; --allow-remote with OAuth needs it (or --oauth-audience).

These flags apply only with --http: without it they are an error.

The server answers at once. The index is brought up to date in the
background (tools answer from what is indexed so far and say so), and a
file watcher keeps it current as notes change.

Over stdio it serves until the client closes stdin (Ctrl-D at a terminal);
Ctrl-C stops it in either mode. Exit status: 0 when the client closed
stdin, 1 when serving failed, 2 for a usage or configuration error, 130
when interrupted.`, e)
	var c common
	c.register(fs)
	httpAddr := fs.String("http", "", "serve Streamable HTTP on `address` (such as 127.0.0.1:8765) instead of stdio")
	allowRemote := fs.Bool("allow-remote", false, "with --http, accept a non-loopback address; requires JARVIS_HTTP_TOKEN or --oauth-issuer")
	var allowOrigins stringList
	fs.Var(&allowOrigins, "allow-origin", "with --http, also let in browser pages from this `origin`, such as http://localhost:3000 (repeatable)")
	sessionTimeout := fs.Duration("session-timeout", 0, "no effect: the HTTP server keeps no sessions (taken so that command lines that give it still work)")
	oauthIssuer := fs.String("oauth-issuer", "", "with --http, accept OAuth access tokens signed by the issuer at `URL`, such as https://TENANT.auth0.com/ (or set "+config.EnvOAuthIssuer+")")
	oauthAudience := fs.String("oauth-audience", "", "with --oauth-issuer, the `audience` tokens must name (default: the server's URL, such as https://notes.example.com/mcp)")
	publicURL := fs.String("public-url", "", "with --oauth-issuer, the `URL` clients reach the server at, such as https://notes.example.com behind a proxy (default: the address each request was sent to)")
	logFile := fs.String("log-file", "", "append logs to `file` instead of stderr; past 10 MB it is moved to file.1 and begun again")
	watch := fs.Bool("watch", true, "watch the vaults and keep the index current while serving")
	writeAll := fs.Bool("write", false, "offer the write tools (create-note, edit-note, move-note, delete-note) for every vault served; without it only vaults with write: true in the config file are writable")
	if err := c.parseWithFolders(fs, args); err != nil {
		return err
	}
	if *httpAddr == "" {
		if err := withoutHTTP(fs); err != nil {
			return err
		}
	} else if err := checkHTTPAddr(*httpAddr, *allowRemote); err != nil {
		return err
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := checkConfigured(e, cfg); err != nil {
		return err
	}
	if *writeAll {
		for i := range cfg.Vaults {
			cfg.Vaults[i].Write = true
		}
	}
	if e.getenv("GOGC") == "" {
		// A server runs for hours beside the user's other programs: the
		// collector runs at half the default growth, so the heap peaks at
		// 1.5 times what is live rather than twice. Under 16 clients on a
		// 10k-note vault this cut peak memory by a fifth, for a few percent
		// of throughput; the share scales with the vault, as a fixed limit
		// would not. GOGC set by the user wins.
		debug.SetGCPercent(50)
	}
	logOut := e.stderr
	if *logFile != "" {
		f, err := openLogFile(*logFile, maxLogBytes)
		if err != nil {
			return fmt.Errorf("open --log-file: %w: %w", err, errUsage)
		}
		defer f.Close()
		logOut = f
	}
	level := slog.LevelInfo
	if c.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(structuredHandler(logOut, level))
	for _, v := range cfg.Vaults {
		if p := index.FolderProblem(v.Path); p != "" {
			log.Warn("vault folder "+p+"; answers say so, and the other vaults are served, until it can be read", "vault", v.Name, "path", v.Path)
		}
	}
	var listener net.Listener
	var httpOpts httpOptions
	if *httpAddr != "" {
		auth := oauthSettings{issuer: cfg.MCP.OAuthIssuer, audience: cfg.MCP.OAuthAudience, publicURL: cfg.MCP.PublicURL}
		auth.override(*oauthIssuer, *oauthAudience, *publicURL)
		if httpOpts, err = newHTTPOptions(e.getenv(envHTTPToken), auth, writable(cfg.Vaults), *allowRemote, allowOrigins); err != nil {
			return err
		}
		if flagSet(fs, "session-timeout") {
			log.Warn("--session-timeout " + sessionTimeout.String() + " has no effect: the HTTP server keeps no sessions, so none is left to close; leave the flag out")
		}
		if listener, err = listen(*httpAddr, *allowRemote); err != nil {
			return err
		}
		defer listener.Close()
	}

	var deps container.MCPDeps
	app := container.NewMCPApp(cfg, log, &deps, container.WithProbe(e.dbProbe))
	if err := container.Err(app); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer app.Stop(context.Background())
	// A vault the database holds under another folder or other rules is
	// refused before serving; a database that cannot be opened is not,
	// as the tools answer from the files and say why.
	if err := repeatFlags(index.CheckVaults(ctx, deps.DB, cfg.Vaults), cfg); errors.Is(err, index.ErrVaultRebound) {
		return fmt.Errorf("%w: %w", err, errUsage)
	}

	v, _ := buildVersion()
	server := deps.NewServer(v, log)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	background := make(chan struct{})
	// keepIndexed reads the stored vectors first thing; until then a
	// request hears that they are being read, not that none are loaded.
	deps.Vectors.WillLoad()
	go func() {
		defer close(background)
		keepIndexed(ctx, deps, cfg.Vaults, cfg.DBPath, *watch, log)
	}()
	defer func() { cancel(); <-background }()

	if listener != nil {
		return serveHTTP(ctx, server, listener, httpOpts, log)
	}
	var in io.ReadCloser = os.Stdin
	if e.stdin != nil {
		in = e.stdin
	}
	if e.stdinIsTerminal {
		fmt.Fprintln(e.stderr, waitingForClient(cfg.Invocation()))
	}
	return serveStdio(ctx, server, mcp.StdioTransport(in, e.stdout), log)
}

// serveStdio serves the one client of t until it closes the connection
// (nil) or ctx ends (ctx's error: the user's Ctrl-C, which main reports as
// an interruption). It is the SDK's Server.Run less Run's error-level log
// of a cancelled context: stopping a server is no error.
func serveStdio(ctx context.Context, server *mcpsdk.Server, t mcpsdk.Transport, log *slog.Logger) error {
	ss, err := server.Connect(ctx, t, nil)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("connect to the client: %w", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-closed
		log.Info("server stopped: interrupted")
		return ctx.Err()
	case err := <-closed:
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		log.Info("server stopped: the client closed the connection")
		return nil
	}
}

// waitingForClient is what jarvis mcp says, on stderr, when a person
// starts it at a terminal: it does not answer typing, it waits for an
// assistant to speak MCP on stdin and stdout, and inv's flags are those
// to give setup for the assistant to start it with the same vaults.
func waitingForClient(inv health.Invocation) string {
	setup := "`" + shellLine(append([]string{"jarvis", "setup", "claude"}, inv...)) + "`"
	return "jarvis: waiting for an MCP client on stdin and stdout; an assistant such as Claude Desktop starts jarvis mcp " +
		"by itself once " + setup + " has added it. Press Ctrl-D or Ctrl-C to stop."
}

// httpOnlyFlags are the flags of `jarvis mcp` that only mean something
// with --http. --session-timeout means nothing any more, and stays among
// them so that a stdio command line that gives it is refused as before.
var httpOnlyFlags = []string{"allow-remote", "allow-origin", "session-timeout", "oauth-issuer", "oauth-audience", "public-url"}

// withoutHTTP refuses the HTTP-only flags set on a command line that
// serves stdio: ignored, --allow-remote would look as if the server were
// reachable from the network.
func withoutHTTP(fs *flag.FlagSet) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(httpOnlyFlags, f.Name) {
			set = append(set, "--"+f.Name)
		}
	})
	if len(set) == 0 {
		return nil
	}
	verb, it := "applies", "it"
	if len(set) > 1 {
		verb, it = "apply", "them"
	}
	return fmt.Errorf("%s %s only with --http: add --http 127.0.0.1:PORT to serve over HTTP, or leave %s out to serve stdio: %w",
		strings.Join(set, " and "), verb, it, errUsage)
}

// syncRetryEvery is how often a server whose last vector sync failed (a
// remote embedder down) tries again. A timer a minute apart costs nothing
// while idle.
const syncRetryEvery = time.Minute

// retrySync tries a failed vector sync again every syncRetryEvery until
// ctx ends.
func retrySync(ctx context.Context, l *live.Live) {
	t := time.NewTicker(syncRetryEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.RetrySync(ctx)
		}
	}
}

// checkHTTPAddr refuses an --http address that cannot be served: not
// host:port, a port out of range, or not loopback without --allow-remote.
// The command checks it before anything else that may fail, so that the
// flag's mistake is the one said.
func checkHTTPAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: give host:port, such as 127.0.0.1:8765: %w", addr, errUsage)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--http %s: the port must be a number from 1 to 65535 (or 0 for any free one), such as 127.0.0.1:8765: %w", addr, errUsage)
	}
	if !allowRemote && !isLoopbackHost(host) {
		return fmt.Errorf("--http %s is not a loopback address: use 127.0.0.1:PORT, or add --allow-remote (and set %s) to serve other machines: %w",
			addr, envHTTPToken, errUsage)
	}
	return nil
}

// listen opens the HTTP address, refusing one that is not loopback unless
// remote access was asked for.
func listen(addr string, allowRemote bool) (net.Listener, error) {
	if err := checkHTTPAddr(addr, allowRemote); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if addrInUse(err) {
			host, port, _ := net.SplitHostPort(addr)
			return nil, fmt.Errorf("port %s on %s is already in use, perhaps by another jarvis mcp --http: stop that one, or give another port (--http %s, or %s for any free one)",
				port, host, net.JoinHostPort(host, "PORT"), net.JoinHostPort(host, "0"))
		}
		return nil, fmt.Errorf("cannot serve on %s: %w", addr, unwrapOp(err))
	}
	return l, nil
}

// addrInUse says whether err is the system's refusal of an address
// another socket has bound (WSAEADDRINUSE on Windows).
func addrInUse(err error) bool {
	var errno syscall.Errno
	return errors.Is(err, syscall.EADDRINUSE) || errors.As(err, &errno) && errno == 10048
}

// unwrapOp is the system's own words in a *net.OpError, without the
// operation and address it repeats ("listen tcp 127.0.0.1:80: ").
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// notMCP answers a request for any path but /mcp (a browser opening the
// server's address, a client configured without the path): it says where
// MCP is served, rather than a bare "404 page not found".
func notMCP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "Nothing is served at %s. This is jarvis's MCP server: it answers MCP requests sent by POST to /mcp (http://%s/mcp); give that address to your MCP client.\n",
		r.URL.Path, r.Host)
}

// httpOptions are how `jarvis mcp --http` lets requests in.
type httpOptions struct {
	token string // accepted as a bearer token when not ""
	// oauth checks OAuth access tokens; nil when they are not taken.
	// With token or oauth set, a request needs one or the other.
	oauth       *oauth.Resource
	allowRemote bool // any Host header, on any address
	// publicHost is the host of --public-url, let in as a Host header
	// besides loopback names: a proxy in front passes it on.
	publicHost string
	// origins are the browser origins let in besides the server's own,
	// normalised by parseOrigin.
	origins []string
	conns   connBounds
}

// oauthSettings are the OAuth settings of `jarvis mcp --http`, from the
// config file, the environment and the flags.
type oauthSettings struct {
	issuer, audience, publicURL string
}

// override lays the flags given over the settings.
func (o *oauthSettings) override(issuer, audience, publicURL string) {
	if issuer != "" {
		o.issuer = issuer
	}
	if audience != "" {
		o.audience = audience
	}
	if publicURL != "" {
		o.publicURL = publicURL
	}
}

// writable reports whether some vault served is writable, and so whether
// clients should ask for vault:write.
func writable(vaults []config.Vault) bool {
	return slices.ContainsFunc(vaults, func(v config.Vault) bool { return v.Write })
}

// newResource is the MCP endpoint as an OAuth protected resource, or nil
// when no issuer is set. Clients are told to ask for vault:write too when
// some vault is writable.
func newResource(o oauthSettings, writes bool) (*oauth.Resource, error) {
	if o.issuer == "" {
		if o.audience != "" || o.publicURL != "" {
			return nil, fmt.Errorf("--oauth-audience and --public-url go with --oauth-issuer: add --oauth-issuer URL, the issuer whose tokens to accept: %w", errUsage)
		}
		return nil, nil
	}
	v, err := oauth.NewVerifier(o.issuer, oauth.Options{})
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer: %w: %w", err, errUsage)
	}
	scopes := []string{oauth.ScopeRead}
	if writes {
		scopes = append(scopes, oauth.ScopeWrite)
	}
	rs, err := oauth.NewResource(v, oauth.ResourceOptions{Path: "/mcp", Audience: o.audience, PublicURL: o.publicURL, Scopes: scopes})
	if err != nil {
		return nil, fmt.Errorf("--public-url: %w: %w", err, errUsage)
	}
	return rs, nil
}

// newHTTPOptions checks the HTTP settings: --allow-remote needs OAuth or a
// token that is long enough, and every --allow-origin must be an origin.
func newHTTPOptions(token string, auth oauthSettings, writes, allowRemote bool, origins []string) (httpOptions, error) {
	opts := httpOptions{token: token, allowRemote: allowRemote}
	rs, err := newResource(auth, writes)
	if err != nil {
		return opts, err
	}
	opts.oauth = rs
	if u, err := url.Parse(auth.publicURL); err == nil && rs != nil {
		opts.publicHost = u.Hostname()
	}
	if allowRemote && token == "" && rs == nil {
		return opts, fmt.Errorf("--allow-remote serves every note to whoever reaches the address, so it requires OAuth or a token: "+
			"give --oauth-issuer URL for clients that sign in, or set a token with `export %s=$(openssl rand -hex 32)` and give it to the client as \"Authorization: Bearer <token>\": %w", envHTTPToken, errUsage)
	}
	if allowRemote && rs != nil && auth.publicURL == "" && auth.audience == "" {
		return opts, fmt.Errorf("--allow-remote with --oauth-issuer needs --public-url, the https URL clients reach this server at (such as https://notes.example.com), "+
			"or --oauth-audience, the audience the issuer writes in tokens meant for this server, so that a token meant for another server is refused: %w", errUsage)
	}
	if allowRemote && token != "" && len(strings.TrimSpace(token)) < minRemoteToken {
		return opts, fmt.Errorf("%s has %s; with --allow-remote it needs at least %d, such as `export %s=$(openssl rand -hex 32)`: %w",
			envHTTPToken, words.Count(len(token), "character"), minRemoteToken, envHTTPToken, errUsage)
	}
	for _, o := range origins {
		norm, ok := parseOrigin(o)
		if !ok {
			return opts, fmt.Errorf("--allow-origin %q is not an origin: give scheme://host[:port], such as http://localhost:3000: %w", o, errUsage)
		}
		opts.origins = append(opts.origins, norm)
	}
	return opts, nil
}

// parseOrigin normalises an Origin header or --allow-origin value to
// "scheme://host[:port]" in lower case. "null", paths and anything that
// is not http(s) are not origins a page of this server can have.
func parseOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// ownOrigins are the origins of pages served from the listener itself:
// its address, and localhost on its port when it is loopback (a page at
// http://localhost:8765 may call http://127.0.0.1:8765).
func ownOrigins(addr net.Addr) []string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	out := []string{"http://" + net.JoinHostPort(host, port)}
	if isLoopbackHost(host) {
		out = append(out, "http://"+net.JoinHostPort("localhost", port))
	}
	return out
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves Streamable HTTP at /mcp until ctx ends.
func serveHTTP(ctx context.Context, server *mcpsdk.Server, l net.Listener, opts httpOptions, log *slog.Logger) error {
	opts.origins = append(ownOrigins(l.Addr()), opts.origins...)
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(statelessHandler(server, log), opts))
	mux.HandleFunc("/", notMCP)
	if opts.oauth != nil {
		for _, p := range opts.oauth.MetadataPaths() {
			mux.Handle(p, opts.oauth)
		}
	}
	if host, _, err := net.SplitHostPort(l.Addr().String()); err == nil && !isLoopbackHost(host) {
		log.Warn("serving MCP to the network: whoever reaches this address and has the token can read every note of the served vaults",
			"address", l.Addr().String())
	}
	bounds := opts.conns.withDefaults()
	limited := newConnLimit(l, bounds.max, bounds.admitWait)
	// No WriteTimeout: it would cut the SDK's event streams (conns.go).
	srv := &http.Server{
		Handler:           closeRefused(mux),
		ReadHeaderTimeout: bounds.header,
		ReadTimeout:       bounds.request,
		IdleTimeout:       bounds.idle,
		ConnState:         limited.track,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(limited) }()
	if opts.oauth != nil {
		var prepared sync.WaitGroup
		defer prepared.Wait()
		prepared.Go(func() {
			if err := opts.oauth.Prepare(ctx); err != nil && ctx.Err() == nil {
				log.Warn("OAuth: "+err.Error()+"; requests are refused with 503 until it answers", "issuer", opts.oauth.Issuer())
			}
		})
		log.Info("accepting OAuth access tokens", "issuer", opts.oauth.Issuer(), "metadata", "/.well-known/oauth-protected-resource/mcp")
	}
	log.Info("serving MCP over HTTP", "url", "http://"+l.Addr().String()+"/mcp", "max_connections", bounds.max)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		log.Info("server stopped: interrupted")
		return ctx.Err()
	}
}

// statelessHandler is the SDK's Streamable HTTP handler without
// sessions, the only way the SDK speaks MCP 2026-07-28 (server/discover,
// every request carrying its version and the client's capabilities). A
// client of 2025-11-25, 2025-06-18 or 2025-03-26 still initializes: the
// answer carries no Mcp-Session-Id, so the client sends none, and each of
// its later requests is served on its own as if the handshake had just
// been made. Nothing is kept between requests: no idle sessions to close
// or to bound, and one address may front several servers. GET (a stream
// for the server's own messages) and DELETE (ending a session) are
// answered 405, which clients of those versions take as "not offered";
// a client of 2026-07-28 opens subscriptions/listen instead.
//
// jarvis's tools ask the client nothing (no sampling, elicitation or
// roots) and keep nothing per client, so a request served alone answers
// as it would in a session.
func statelessHandler(server *mcpsdk.Server, log *slog.Logger) http.Handler {
	return mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return server },
		&mcpsdk.StreamableHTTPOptions{Logger: log, MaxRequestBodyBytes: maxRequestBytes, Stateless: true})
}

// guard checks what the SDK does not: a browser page's Origin (a DNS
// rebinding page, or any page of another site or port, sends its own), the
// Host header, the bearer token (static or OAuth), and an OAuth token's
// scope for what the request does. opts.origins holds the server's own
// origins and those the user allowed.
func guard(next http.Handler, opts httpOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A request without Origin comes from a client that is not a
		// browser page, which a token guards against if need be.
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, opts.origins) {
			http.Error(w, "Forbidden: origin "+origin+" may not use this server; start it with --allow-origin "+origin+" to let that page in", http.StatusForbidden)
			return
		}
		if !opts.allowRemote && !isLoopbackHost(hostOnly(r.Host)) && (opts.publicHost == "" || !strings.EqualFold(hostOnly(r.Host), opts.publicHost)) {
			http.Error(w, fmt.Sprintf("Forbidden: this server answers only requests sent to a loopback name (localhost, 127.0.0.1 or [::1]), not to %q; "+
				"to serve other hosts, start it with --allow-remote and a token", clipHost(r.Host)), http.StatusForbidden)
			return
		}
		grant, ok := authenticate(w, r, opts)
		if !ok {
			return
		}
		if r.Method == http.MethodGet {
			// The stream a GET would open carries a session's messages,
			// and this server keeps no sessions (statelessHandler): said
			// in words, for a person trying the address, not only 405.
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "Method Not Allowed: this MCP endpoint takes JSON-RPC requests sent by POST, and opens no event stream for GET; give its address to an MCP client",
				http.StatusMethodNotAllowed)
			return
		}
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !protocolVersionTaken(v) {
			http.Error(w, fmt.Sprintf("Bad Request: MCP version %q is not supported; supported versions: %s", clipHost(v), strings.Join(protocolVersions(), ", ")),
				http.StatusBadRequest)
			return
		}
		scope := oauth.ScopeRead
		if r.Method == http.MethodPost && r.Body != nil {
			// Read here, bounded as the SDK bounds it, for the checks
			// the SDK's transport does not make.
			body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
			r.Body.Close()
			if err != nil {
				http.Error(w, "Bad Request: the body could not be read", http.StatusBadRequest)
				return
			}
			if len(body) > maxRequestBytes {
				http.Error(w, fmt.Sprintf("Request Entity Too Large: bodies are capped at %d bytes", maxRequestBytes), http.StatusRequestEntityTooLarge)
				return
			}
			if reply := mcp.CheckBody(body); reply != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(reply)
				return
			}
			if mcp.RequestWrites(body) {
				scope = oauth.ScopeWrite
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if call, ok := callOf(body); ok {
				nf := &notFoundWriter{ResponseWriter: w, call: call}
				defer nf.finish()
				w = nf
			}
		}
		if opts.oauth != nil {
			if d := opts.oauth.Need(grant, scope); d != nil {
				opts.oauth.Deny(w, r, d)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// protocolVersions are the MCP versions the server speaks, oldest first:
// the SDK's, as jarvis narrows them in nothing.
func protocolVersions() []string {
	v := mcpsdk.SupportedProtocolVersions()
	slices.Sort(v)
	return v
}

// protocolVersionTaken reports whether an Mcp-Protocol-Version header of
// v is let through to the SDK: a version it speaks, or one newer than all
// of them, which the SDK answers with a JSON-RPC error listing the
// versions for the client to choose from. An older one it refuses with a
// message of its own that joins the versions without spaces; guard words
// that refusal instead.
func protocolVersionTaken(v string) bool {
	versions := protocolVersions()
	return slices.Contains(versions, v) || v > versions[len(versions)-1]
}

// authenticate checks a request's credentials when the server asks for
// some: the static token, which grants everything, or an OAuth access
// token, which grants its scopes. It answers a request it refuses itself,
// and returns false for it.
func authenticate(w http.ResponseWriter, r *http.Request, opts httpOptions) (oauth.Grant, bool) {
	if opts.token == "" && opts.oauth == nil {
		return oauth.Full, true
	}
	header := r.Header.Get("Authorization")
	got, isBearer := bearerToken(header)
	if opts.token != "" && isBearer && subtle.ConstantTimeCompare([]byte(got), []byte(opts.token)) == 1 {
		return oauth.Full, true
	}
	if opts.oauth == nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="jarvis"`)
		http.Error(w, "Unauthorized: "+unauthorized(header, opts.token), http.StatusUnauthorized)
		return oauth.Grant{}, false
	}
	g, d := opts.oauth.Check(r, got)
	if d != nil {
		opts.oauth.Deny(w, r, d)
		return oauth.Grant{}, false
	}
	return g, true
}

// unauthorized says why the Authorization header given does not let a
// request in when the server requires token, or "" when it does. It never
// repeats what was sent.
func unauthorized(header, token string) string {
	got, ok := bearerToken(header)
	switch {
	case header == "":
		return "send the header Authorization: Bearer <token>, with the token in " + envHTTPToken + " of the server"
	case !ok:
		return "the Authorization header must be Bearer followed by the token: Authorization: Bearer <token>, with the token in " + envHTTPToken + " of the server"
	case subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1:
		return "the bearer token sent does not match " + envHTTPToken + " of the server; send that token"
	}
	return ""
}

// clipHost is a Host header short enough to quote back.
func clipHost(host string) string {
	if len(host) > 100 {
		return host[:100] + "…"
	}
	return host
}

// bearerToken returns the token of an Authorization header of the Bearer
// scheme. The scheme is matched in any case and may be followed by more
// than one space, as RFC 9110 (section 11) allows: "bearer x" is as good
// as "Bearer x".
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}

// originAllowed reports whether a page of origin may call the server: a
// page of the host the request was sent to (same origin), or one of
// allowed.
func originAllowed(origin, host string, allowed []string) bool {
	o, ok := parseOrigin(origin)
	if !ok {
		return false
	}
	return o == "http://"+strings.ToLower(host) || slices.Contains(allowed, o)
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// keepIndexed brings the index up to date in the background, then, with
// watch, re-indexes each vault the watcher reports changed. Index runs are
// incremental: after an edit only the changed notes are read again.
func keepIndexed(ctx context.Context, deps container.MCPDeps, vaults []config.Vault, dbPath string, watchOn bool, log *slog.Logger) {
	var w *watch.Watcher
	if watchOn {
		// Watch before the first pass, so that nothing changed during it
		// is missed.
		var err error
		if w, err = watch.New(vaults, watch.Options{Fallback: 5 * time.Minute, DBPath: dbPath, Status: deps.Live.Watching}, log); err != nil {
			log.Warn("cannot watch the vaults; the index is refreshed at start only", "err", err)
		}
	}
	// Vectors are made by a worker of their own, so that neither the
	// first pass nor an edit waits for a neural embedder.
	defer deps.Live.EmbedInBackground(ctx)()
	if err := deps.Live.Start(ctx, deps.Vectors.LoadStored); err != nil && ctx.Err() == nil {
		log.Warn("first index pass failed; tools answer from what is there", "err", err)
	}
	// The retries stop with ctx; keepIndexed waits for them, so that
	// nothing uses the database once the server stops.
	var retries sync.WaitGroup
	retries.Go(func() { retrySync(ctx, deps.Live) })
	defer retries.Wait()
	if w == nil {
		return
	}
	err := w.Run(ctx, func(ctx context.Context, c watch.Change) {
		var err error
		if c.Paths == nil {
			err = deps.Live.All(ctx)
		} else {
			err = deps.Live.Vault(ctx, c.Vault)
		}
		if err != nil && ctx.Err() == nil {
			log.Warn("index after a change failed", "vault", c.Vault, "err", err)
		}
	})
	if err != nil && ctx.Err() == nil {
		log.Warn("the watcher stopped", "err", err)
	}
}

// call is the id and method of a JSON-RPC request.
type call struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// callOf reads the id and method of a request body holding one JSON-RPC
// request; ok is false for a notification, a response or anything else.
func callOf(body []byte) (c call, ok bool) {
	if json.Unmarshal(body, &c) != nil || len(c.ID) == 0 || string(c.ID) == "null" || c.Method == "" {
		return call{}, false
	}
	return c, true
}

// notFoundWriter answers a request of a method the server does not
// answer as stdio does: a JSON-RPC error, "method not found", with the
// request's id. The SDK refuses it before any handler runs, in text of
// its own: for a client before MCP 2026-07-28, a plain-text HTTP 400 its
// transport cannot read as an answer ("JSON RPC not handled: … unsupported");
// for one of 2026-07-28, an HTTP 404 holding that text as the error's
// message. The 404 is kept, as that version asks; the 400 becomes an HTTP
// 200 with the JSON-RPC error, which every client reads. Any other answer
// passes unchanged: only a refusal is held back to be looked at.
type notFoundWriter struct {
	http.ResponseWriter
	call   call
	status int // a refusal's status, held back
	held   bytes.Buffer
}

func (w *notFoundWriter) WriteHeader(code int) {
	if w.status == 0 && (code == http.StatusBadRequest || code == http.StatusNotFound) {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *notFoundWriter) Write(p []byte) (int, error) {
	if w.status != 0 {
		if w.held.Len() < 4096 {
			w.held.Write(p)
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a stream's events on as they are written.
func (w *notFoundWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *notFoundWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes what was held back: the refusal reworded when it was the
// SDK's for an unknown method, else as it was.
func (w *notFoundWriter) finish() {
	if w.status == 0 {
		return
	}
	if !bytes.Contains(w.held.Bytes(), []byte("JSON RPC not handled")) || !bytes.Contains(w.held.Bytes(), []byte("unsupported")) {
		w.ResponseWriter.WriteHeader(w.status)
		w.ResponseWriter.Write(w.held.Bytes())
		return
	}
	status := http.StatusOK
	if w.status == http.StatusNotFound {
		status = http.StatusNotFound
	}
	h := w.ResponseWriter.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	h.Del("X-Content-Type-Options")
	w.ResponseWriter.WriteHeader(status)
	w.ResponseWriter.Write(mcp.MethodNotFound(w.call.ID, w.call.Method))
}
