package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/live"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/watch"
)

// envHTTPToken is the bearer token `jarvis mcp --http` requires when set.
const envHTTPToken = "JARVIS_HTTP_TOKEN"

// maxRequestBytes bounds an HTTP request body: tool arguments are small,
// and a bound keeps a stray client from filling memory.
const maxRequestBytes = 1 << 20

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("mcp", "jarvis mcp [--vault PATH]... [--db FILE] [--http 127.0.0.1:PORT] [--watch=false]",
		`Serve your vaults to an AI assistant over the Model Context Protocol.

By default jarvis speaks MCP over stdio, as Claude Desktop, Claude Code and
Cursor start it: only JSON-RPC goes to stdout, logs go to stderr or
--log-file. With --http it serves Streamable HTTP at /mcp instead, on a
loopback address unless --allow-remote is given; set JARVIS_HTTP_TOKEN to
require "Authorization: Bearer <token>".

The server answers at once. The index is brought up to date in the
background (tools answer from what is indexed so far and say so), and a
file watcher keeps it current as notes change.`, e)
	var c common
	c.register(fs)
	httpAddr := fs.String("http", "", "serve Streamable HTTP on `address` (such as 127.0.0.1:8765) instead of stdio")
	allowRemote := fs.Bool("allow-remote", false, "with --http, accept a non-loopback address (use JARVIS_HTTP_TOKEN with it)")
	logFile := fs.String("log-file", "", "append logs to `file` instead of stderr")
	watch := fs.Bool("watch", true, "watch the vaults and keep the index current while serving")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if len(cfg.Vaults) == 0 {
		return checkVaults(e, cfg)
	}
	logOut := e.stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	for _, v := range cfg.Vaults {
		if st, err := os.Stat(v.Path); err != nil || !st.IsDir() {
			log.Warn("vault folder cannot be read; its tools answer with errors until it can", "vault", v.Name, "path", v.Path)
		}
	}
	var listener net.Listener
	if *httpAddr != "" {
		if listener, err = listen(*httpAddr, *allowRemote); err != nil {
			return err
		}
		defer listener.Close()
	}

	var deps container.MCPDeps
	app := container.NewMCPApp(cfg, log, &deps)
	if err := container.Err(app); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if err := app.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer app.Stop(context.Background())

	server := mcp.New(deps.Backend, mcp.Options{Version: version, Logger: log})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	background := make(chan struct{})
	go func() {
		defer close(background)
		keepIndexed(ctx, deps, cfg.Vaults, cfg.DBPath, *watch, log)
	}()
	defer func() { cancel(); <-background }()

	if listener != nil {
		return serveHTTP(ctx, server, listener, e.getenv(envHTTPToken), *allowRemote, log)
	}
	err = server.Run(ctx, mcp.StdioTransport(os.Stdin, os.Stdout))
	if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF)) {
		return nil // the client closed stdin or the user pressed Ctrl-C
	}
	return err
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

// listen opens the HTTP address, refusing one that is not loopback unless
// remote access was asked for.
func listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http %q: give host:port, such as 127.0.0.1:8765: %w", addr, errUsage)
	}
	if !allowRemote && !isLoopbackHost(host) {
		return nil, fmt.Errorf("--http %s is not a loopback address: use 127.0.0.1:PORT, or add --allow-remote (and set %s) to serve other machines: %w",
			addr, envHTTPToken, errUsage)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return l, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves Streamable HTTP at /mcp until ctx ends.
func serveHTTP(ctx context.Context, server *mcpsdk.Server, l net.Listener, token string, allowRemote bool, log *slog.Logger) error {
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return server },
		&mcpsdk.StreamableHTTPOptions{Logger: log, MaxRequestBodyBytes: maxRequestBytes})
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(h, token, allowRemote))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	log.Info("serving MCP over HTTP", "url", "http://"+l.Addr().String()+"/mcp")
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	}
}

// guard checks what the SDK does not: a browser page's Origin (a DNS
// rebinding page on another site sends its own), and the bearer token.
func guard(next http.Handler, token string, allowRemote bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !allowRemote {
			u, err := url.Parse(origin)
			if err != nil || !isLoopbackHost(u.Hostname()) {
				http.Error(w, "Forbidden: origin "+origin+" may not use this server", http.StatusForbidden)
				return
			}
		}
		if !allowRemote && !isLoopbackHost(hostOnly(r.Host)) {
			http.Error(w, "Forbidden: invalid Host header "+r.Host, http.StatusForbidden)
			return
		}
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="jarvis"`)
				http.Error(w, "Unauthorized: send Authorization: Bearer <JARVIS_HTTP_TOKEN>", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
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
		if w, err = watch.New(vaults, watch.Options{Fallback: 5 * time.Minute, DBPath: dbPath}, log); err != nil {
			log.Warn("cannot watch the vaults; the index is refreshed at start only", "err", err)
		}
	}
	if err := deps.Live.All(ctx); err != nil && ctx.Err() == nil {
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
