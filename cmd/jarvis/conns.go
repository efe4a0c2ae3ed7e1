package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// How `jarvis mcp --http` bounds its connections, so that no client, with
// or without the token, can hold the descriptors the rest of the server
// needs or keep another client out:
//
//   - At most connBounds.max connections are open at once (see maxConns).
//     A connection past that takes the place of the one idle longest
//     (accepted or kept alive, with no request in progress), which is
//     closed; when every one is busy it waits up to admitWait for one to
//     close, and is then answered 503.
//   - A request's headers must arrive within headerTimeout, and headers
//     and body within requestTimeout (http.Server's ReadTimeout); a refused
//     request's connection is closed without waiting for the rest of its
//     body (closeRefused); a kept-alive connection is closed after
//     idleTimeout without a request.
//   - Nothing bounds how long a response takes: a Server-Sent Events
//     stream, which the SDK keeps open on a GET for as long as the client
//     wants the server's messages, or on a POST while a tool runs, lives
//     as long as the client reads it. So http.Server's WriteTimeout, which
//     would cut it, is not set. ReadTimeout does not cut it: net/http
//     lifts the read deadline once a request's body has been read.
const (
	// headerTimeout is how long a request's headers may take to arrive.
	headerTimeout = 10 * time.Second
	// requestTimeout is how long a request, headers and body, may take to
	// arrive whole: a body of maxRequestBytes at 35 KB/s.
	requestTimeout = 30 * time.Second
	// idleTimeout closes a kept-alive connection that has had no request
	// for this long; its client opens another, at the cost of a
	// handshake.
	idleTimeout = time.Minute
	// admitWait is how long a connection past the bound waits for a busy
	// one to close before it is refused.
	admitWait = 2 * time.Second
)

// connBounds are the bounds of the HTTP connections; a zero field takes
// its default, and tests shorten them.
type connBounds struct {
	max       int // connections open at once; 0: maxConns
	header    time.Duration
	request   time.Duration
	idle      time.Duration
	admitWait time.Duration
}

func (b connBounds) withDefaults() connBounds {
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	if b.max <= 0 {
		limit, ok := openFilesLimit()
		b.max = maxConns(limit, ok, runtime.GOMAXPROCS(0))
	}
	b.header, b.request, b.idle = or(b.header, headerTimeout), or(b.request, requestTimeout), or(b.idle, idleTimeout)
	b.admitWait = or(b.admitWait, admitWait)
	return b
}

// The descriptors kept from HTTP connections for the rest of the server.
// At rest `jarvis mcp --http` holds 15 (stdio, the log, the listener, the
// poller, inotify, the database with its WAL, shared memory and lock);
// 8 searches at once on 2 processors took it to 34. What grows is SQLite,
// two descriptors (database and WAL) for each connection open: one for
// each request running (2 per processor plus 4), for the indexer's writer
// and for each health check running (one per processor); and the
// indexer's workers, one per processor, each reading a note. That is 7
// per processor and some 25 besides: the reserve is 8 per processor, and
// 64 for the rest, with room for a model's or a vector store's files.
// On macOS, where kqueue holds a descriptor for every watched folder, the
// watcher of a large vault can take more than this; it stops adding
// folders at the limit and rescans instead, and net/http retries an
// accept that failed for want of a descriptor.
const (
	reservedFiles        = 64
	reservedFilesPerProc = 8
	// maxConnsCeiling bounds the connections however many descriptors
	// there are: each costs some 20 KB of buffers and goroutine, and
	// 1024 serve hundreds of clients, each with a subscription stream
	// and a few requests at once.
	maxConnsCeiling = 1024
)

// maxConns is how many HTTP connections may be open at once, given the
// process's limit on open files (ok false when it has none to read) and
// the processors: the limit less the reserve, or half the limit when it
// is too low for the reserve, and at most maxConnsCeiling.
func maxConns(limit uint64, ok bool, procs int) int {
	if !ok {
		return maxConnsCeiling
	}
	reserve := uint64(reservedFiles + reservedFilesPerProc*procs)
	n := limit / 2
	if limit > 2*reserve {
		n = limit - reserve
	}
	return int(max(1, min(n, maxConnsCeiling)))
}

// connLimit is a listener that keeps at most max connections open; its
// track method must be the http.Server's ConnState hook, which tells it
// which connections are idle.
type connLimit struct {
	net.Listener
	max  int
	wait time.Duration

	mu     sync.Mutex
	open   map[*limitedConn]struct{}
	closed chan struct{} // a token whenever a connection closes
	done   chan struct{} // closed with the listener
	once   sync.Once
}

func newConnLimit(l net.Listener, max int, wait time.Duration) *connLimit {
	return &connLimit{Listener: l, max: max, wait: wait,
		open: map[*limitedConn]struct{}{}, closed: make(chan struct{}, 1), done: make(chan struct{})}
}

// limitedConn is one connection of a connLimit.
type limitedConn struct {
	net.Conn
	lim *connLimit
	// idleSince is when the connection was accepted or last finished a
	// request; zero while a request is in progress. Guarded by lim.mu.
	idleSince time.Time
}

// Accept returns the next connection, making room for it first; one
// that cannot be given room is answered 503 and closed, and Accept goes
// on to the next.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		refuseConn(c, l.max)
	}
}

// admit registers c once there is room: at once below max, by closing
// the connection idle longest at max, or when a busy one closes within
// l.wait. It returns nil when there is no room by then.
func (l *connLimit) admit(c net.Conn) *limitedConn {
	timer := time.NewTimer(l.wait)
	defer timer.Stop()
	for {
		l.mu.Lock()
		if len(l.open) >= l.max {
			l.evictIdleLocked()
		}
		if len(l.open) < l.max {
			lc := &limitedConn{Conn: c, lim: l, idleSince: time.Now()}
			l.open[lc] = struct{}{}
			l.mu.Unlock()
			return lc
		}
		l.mu.Unlock()
		select {
		case <-l.closed:
		case <-timer.C:
			return nil
		case <-l.done:
			return nil
		}
	}
}

// evictIdleLocked closes the connection idle longest, if one is idle.
// Its client sees a kept-alive connection closed, which HTTP clients
// expect, and opens another.
func (l *connLimit) evictIdleLocked() {
	var oldest *limitedConn
	for c := range l.open {
		if !c.idleSince.IsZero() && (oldest == nil || c.idleSince.Before(oldest.idleSince)) {
			oldest = c
		}
	}
	if oldest != nil {
		delete(l.open, oldest)
		oldest.Conn.Close()
	}
}

// track follows the server's connections: a request in progress makes
// one busy, its end makes it idle, and a closed one frees its place.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	switch state {
	case http.StateActive:
		l.mu.Lock()
		lc.idleSince = time.Time{}
		l.mu.Unlock()
	case http.StateIdle:
		l.mu.Lock()
		lc.idleSince = time.Now()
		l.mu.Unlock()
	case http.StateHijacked, http.StateClosed:
		l.release(lc)
	}
}

// release frees c's place, once however often it is called.
func (l *connLimit) release(c *limitedConn) {
	l.mu.Lock()
	_, open := l.open[c]
	delete(l.open, c)
	l.mu.Unlock()
	if open {
		select {
		case l.closed <- struct{}{}:
		default:
		}
	}
}

// Close closes the listener and ends a wait for room.
func (l *connLimit) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.lim.release(c)
	return err
}

// refuseConn answers a connection there is no room for with 503 and
// closes it. The answer is a few hundred bytes into a new socket's
// buffer, so the write does not wait for the client; the deadline is
// there in case it would.
func refuseConn(c net.Conn, max int) {
	msg := fmt.Sprintf("Service Unavailable: %d connections are busy, the most this server keeps open; try again shortly\n", max)
	c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(msg), msg)
	c.Close()
}

// closeRefused closes the connection of a request answered before its
// body was read whole (a refusal, such as one for want of the token)
// after at most refusedBodyGrace more of the body. net/http would read
// the rest first, to keep the connection, for as long as requestTimeout
// allows: a client trickling a body it knows will be refused
// would hold a busy connection that long, where a second is enough for
// one that is merely still sending.
func closeRefused(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		// Until the body is whole, an answer closes the connection, and
		// net/http reads none of the rest before answering.
		w.Header().Set("Connection", "close")
		body := &wholeBody{ReadCloser: r.Body, whole: func() { w.Header().Del("Connection") }}
		r.Body = body
		next.ServeHTTP(w, r)
		if !body.done {
			// net/http reads and drops what arrives of the rest until
			// then, so that the client, still sending, reads the answer
			// rather than a reset; then the connection is closed.
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusedBodyGrace))
		}
	})
}

// refusedBodyGrace is how long the rest of a refused request's body is
// read for before its connection is closed.
const refusedBodyGrace = time.Second

// wholeBody calls whole once its body has been read to the end.
type wholeBody struct {
	io.ReadCloser
	whole func()
	done  bool
}

func (b *wholeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.whole()
	}
	return n, err
}
