package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits bound the work the server takes on at once, whatever the
// transport: a client that pipelines thousands of calls gets the first few
// answered and the rest refused, instead of the server running them all.
//
// A session is what the SDK connects: the one client over stdio, and one
// request over HTTP, which keeps no sessions (cmd/jarvis statelessHandler).
// Over HTTP the per-session bounds therefore never bind, and the bounds
// across sessions, with the HTTP server's bound on connections, are what
// hold a client back: no client can be told from another without a
// session, and a client that opens many connections could open as many
// sessions before.
type Limits struct {
	// SessionRunning is how many requests of one session run at once.
	SessionRunning int
	// SessionWaiting is how many more of one session wait for a turn;
	// a request beyond them is refused at once.
	SessionWaiting int
	// Running is how many requests run at once across every session.
	Running int
	// Waiting is how many requests wait for a turn across every session.
	Waiting int
	// ArgumentBytes is the largest tool call arguments accepted, in bytes
	// of JSON; a larger call is refused before it waits.
	ArgumentBytes int
}

// MaxArgumentBytes is the most bytes of JSON the arguments of one tool
// call may take (Limits.ArgumentBytes by default), and so the longest
// any text argument may be: the write tools' schemas give it as the
// maxLength of their texts (boundWriteArgs).
const MaxArgumentBytes = 64 << 10

// DefaultLimits are the limits of a server built without others.
//
// A model calls a few tools at a time; 4 running and 32 waiting take a
// burst of 36 calls from one session without refusing any. A search is
// CPU work on SQLite, so across sessions more than twice the processors
// running gains nothing; 4 more keep a slow disk read from holding up
// everyone. 128 waiting across sessions bound what many HTTP sessions
// can queue. Tool arguments are a few short strings and numbers; 64 KiB
// is far above what the input schemas allow.
func DefaultLimits() Limits {
	return Limits{
		SessionRunning: 4,
		SessionWaiting: 32,
		Running:        2*runtime.GOMAXPROCS(0) + 4,
		Waiting:        128,
		ArgumentBytes:  MaxArgumentBytes,
	}
}

// limitedMethods are the requests that do work on the vaults or the
// index; the others (initialize, ping, tools/list, notifications) answer
// from memory and are never held back.
var limitedMethods = map[string]bool{
	"tools/call":          true,
	"resources/read":      true,
	"resources/list":      true,
	"completion/complete": true,
}

// maxListens bounds the subscriptions/listen requests one session holds
// open: each is a handler parked until the client cancels it, and a client
// has use for one or two. Over HTTP each listen is a session of its own,
// and the bound on connections holds them instead.
const maxListens = 4

// inFlight holds the requests running and waiting, per session and in
// all. A session's entry exists only while it has requests in flight, so
// that nothing is left behind when a session ends.
type inFlight struct {
	lim    Limits
	global chan struct{} // one token per running request

	mu       sync.Mutex
	sessions map[any]*sessionLoad
	waiting  int // across sessions
}

// sessionLoad is one session's requests in flight.
type sessionLoad struct {
	slots            chan struct{} // one token per request holding the session's turn
	running, waiting int
	listens          int // open subscriptions/listen
}

func newInFlight(lim Limits) *inFlight {
	def := DefaultLimits()
	or := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	lim = Limits{
		SessionRunning: or(lim.SessionRunning, def.SessionRunning),
		SessionWaiting: or(lim.SessionWaiting, def.SessionWaiting),
		Running:        or(lim.Running, def.Running),
		Waiting:        or(lim.Waiting, def.Waiting),
		ArgumentBytes:  or(lim.ArgumentBytes, def.ArgumentBytes),
	}
	return &inFlight{lim: lim, global: make(chan struct{}, lim.Running), sessions: map[any]*sessionLoad{}}
}

// acquire waits for a turn for a request of session, or refuses it at once
// when too many are waiting. It returns the function that ends the turn,
// or the error that says why there is none (ctx's, when ctx ends first).
func (f *inFlight) acquire(ctx context.Context, session any) (func(), error) {
	f.mu.Lock()
	s := f.load(session)
	var refused error
	switch {
	case s.running+s.waiting >= sessionBound(f.lim):
		refused = fmt.Errorf("too many requests in flight for this session (%d running, %d waiting); wait for answers before sending more", s.running, s.waiting)
	case f.waiting >= f.lim.Waiting:
		refused = fmt.Errorf("jarvis is busy: %d requests from all its clients are waiting; wait for answers before sending more, or try again shortly", f.waiting)
	}
	if refused != nil {
		f.forgetIdle(session, s)
		f.mu.Unlock()
		return nil, refused
	}
	s.waiting++
	f.waiting++
	f.mu.Unlock()

	err := take(ctx, s.slots)
	if err == nil {
		if err = take(ctx, f.global); err != nil {
			<-s.slots
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s.waiting--
	f.waiting--
	if err != nil {
		f.forgetIdle(session, s)
		return nil, err
	}
	s.running++
	return func() {
		<-f.global
		<-s.slots
		f.mu.Lock()
		defer f.mu.Unlock()
		s.running--
		f.forgetIdle(session, s)
	}, nil
}

// load is session's entry, made when it has none; f.mu is held.
func (f *inFlight) load(session any) *sessionLoad {
	s := f.sessions[session]
	if s == nil {
		s = &sessionLoad{slots: make(chan struct{}, f.lim.SessionRunning)}
		f.sessions[session] = s
	}
	return s
}

// forgetIdle drops the entry of a session with nothing in flight; f.mu is
// held.
func (f *inFlight) forgetIdle(session any, s *sessionLoad) {
	if s.running == 0 && s.waiting == 0 && s.listens == 0 {
		delete(f.sessions, session)
	}
}

// take puts a token in slots, waiting until there is room or ctx ends.
func take(ctx context.Context, slots chan struct{}) error {
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// middleware holds each limited request until it has a turn. A refused
// tool call is a tool error, which the model reads; a refused resource
// request is a protocol error.
func (f *inFlight) middleware(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if method == methodListen {
			return f.listen(ctx, method, req, next)
		}
		if !limitedMethods[method] {
			return next(ctx, method, req)
		}
		if err := f.oversized(req); err != nil {
			return refuse(method, err)
		}
		var session any
		if req != nil {
			session = req.GetSession()
		}
		done, err := f.acquire(ctx, session)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err // the call was cancelled while it waited
			}
			return refuse(method, err)
		}
		defer done()
		return next(ctx, method, req)
	}
}

// listen lets a session hold at most maxListens subscriptions open.
func (f *inFlight) listen(ctx context.Context, method string, req mcpsdk.Request, next mcpsdk.MethodHandler) (mcpsdk.Result, error) {
	var session any
	if req != nil {
		session = req.GetSession()
	}
	f.mu.Lock()
	s := f.load(session)
	if s.listens >= maxListens {
		f.forgetIdle(session, s)
		f.mu.Unlock()
		return nil, fmt.Errorf("this session has %d subscriptions open, the most it may; cancel one before opening another", s.listens)
	}
	s.listens++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		s.listens--
		f.forgetIdle(session, s)
		f.mu.Unlock()
	}()
	return next(ctx, method, req)
}

// maxToolName is longer than any tool's name: a longer one is refused
// before the SDK's "unknown tool" error quotes it whole.
const maxToolName = 200

// codeInvalidParams is JSON-RPC's code for arguments a method cannot take.
const codeInvalidParams = -32602

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// oversized refuses a request too large to be worth holding while it
// waits: tool arguments over ArgumentBytes, a resource URI longer than any
// note's.
func (f *inFlight) oversized(req mcpsdk.Request) error {
	switch r := req.(type) {
	case *mcpsdk.CallToolRequest:
		if r.Params != nil && len(r.Params.Name) > maxToolName {
			return fmt.Errorf("no tool is named %s; tools/list names them", quoteArg(r.Params.Name))
		}
		if r.Params != nil && len(r.Params.Arguments) > f.lim.ArgumentBytes {
			return fmt.Errorf("the arguments are %d bytes long; a call to one of jarvis's tools takes at most %d bytes of arguments in all: %s", len(r.Params.Arguments), f.lim.ArgumentBytes, shorten(r.Params.Name, r.Params.Arguments))
		}
	case *mcpsdk.ReadResourceRequest:
		if r.Params != nil && len(r.Params.URI) > maxResourceURIBytes {
			return &jsonrpc.Error{Code: codeInvalidParams, Message: fmt.Sprintf("the URI is %d bytes long; no note's is longer than %d: take note URIs from resources/list", len(r.Params.URI), maxResourceURIBytes)}
		}
		if r.Params != nil && !printable(r.Params.URI) {
			// The SDK's "not found" error carries the URI as raw JSON
			// quoted the Go way, which is not JSON for a control
			// character: the answer could not be sent and the session
			// ended.
			return &jsonrpc.Error{Code: codeInvalidParams, Message: "the URI holds control characters or invalid UTF-8; take note URIs from resources/list (they are percent-encoded)"}
		}
	}
	return nil
}

// shorten says what to do with arguments too long for one call of the
// tool named: a write's text goes in parts, as the README's Writing
// section says; anything else is shortened.
func shorten(tool string, args json.RawMessage) string {
	switch {
	case tool == ToolPeriodicNote && CallWrites(tool, args):
		return "append the text in parts, one call of periodic-note for each, passing the etag the last call returned"
	case ToolWrites(tool):
		return "to write a longer note, create it with part of its text, then add the rest with edit-note's append, a part in each call"
	}
	return "shorten them and call again"
}

// refuse answers a request refused before it ran: a tool call with a tool
// error, anything else with err.
func refuse(method string, err error) (mcpsdk.Result, error) {
	if method != "tools/call" {
		return nil, err
	}
	r := &mcpsdk.CallToolResult{}
	r.SetError(err)
	return r, nil
}
