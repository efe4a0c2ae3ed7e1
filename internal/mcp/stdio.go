package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/words"
)

// StdioTransport serves MCP over in and out, one JSON-RPC message per
// line, as the SDK's stdio transport does, with three differences that
// keep a session alive and bounded:
//
//   - A line the SDK could not read is answered with a JSON-RPC error and
//     skipped: the SDK ends the session on one, and with it the server a
//     client started.
//   - Once the session's gate (Limits: SessionRunning running and
//     SessionWaiting waiting) is full, the transport reads no further
//     request: the rest wait unread in the pipe (see flight) instead of
//     being refused, as no stdio client retries a refused call.
//   - When in closes, the requests already read are answered, for up to
//     drainGrace, before the session ends.
//   - A request the client cancelled (notifications/cancelled) is not
//     answered, as MCP asks: the SDK stops its handler but still writes
//     the error its handler returned.
//
// out is never closed, as the SDK never closes stdout.
func StdioTransport(in io.ReadCloser, out io.Writer) mcpsdk.Transport {
	return stdioTransport(in, out, stdioLimits{inFlight: sessionBound(DefaultLimits()), grace: drainGrace})
}

// sessionBound is how many of one session's requests the server holds at
// once, running or waiting for a turn: the one gate of a session, which
// inFlight keeps, and the point at which the stdio transport stops
// reading. Every handler holds its query's results in memory (2,000
// pipelined searches once took 1.55 GB), so the bound also keeps a
// pipelining client's cost to the few that run.
func sessionBound(l Limits) int {
	return l.SessionRunning + l.SessionWaiting
}

// drainGrace is how long a session whose stdin closed goes on answering
// the requests it already read; then the SDK cancels them, and their work
// (a note's parse included) stops within milliseconds. Clients close stdin
// to stop a server and kill it a few seconds later if it has not exited,
// so the server exits within two seconds of stdin closing; a search is
// answered well within the grace.
const drainGrace = time.Second

// stdioLimits are the bounds of one stdio session; tests shorten them.
type stdioLimits struct {
	inFlight int
	grace    time.Duration
	// draining, when set, is called as the session starts to drain.
	draining func()
	// held, when set, is called as a request starts to wait for a slot.
	held func()
}

func stdioTransport(in io.ReadCloser, out io.Writer, lim stdioLimits) mcpsdk.Transport {
	f := newFlight(lim.inFlight, lim.held)
	w := &lockedWriter{w: out, flight: f}
	return &mcpsdk.IOTransport{
		Reader: &jsonLines{
			in: bufio.NewReader(in), closer: in, out: w, flight: f,
			// Less than the SDK's own bound by the newline the line
			// is passed on with, so that the SDK never refuses a line.
			max:   mcpsdk.DefaultMaxLineLength - 1,
			grace: lim.grace, draining: lim.draining,
		},
		Writer: w,
	}
}

// JSON-RPC error codes for a line that cannot be taken as a message.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
)

// maxDepth is the deepest nesting of arrays and objects the SDK decodes;
// it ends the session on a deeper line.
const maxDepth = 1000

// jsonLines passes on the lines of in that are JSON-RPC messages the SDK
// can read, and answers the others on out.
type jsonLines struct {
	in       *bufio.Reader
	closer   io.Closer
	out      *lockedWriter
	flight   *flight
	max      int           // the longest line read; a longer one is refused
	grace    time.Duration // how long to answer what was read after in ends
	draining func()
	pending  []byte // the rest of a message line not yet read
	err      error  // what ended in, returned once pending is read
	drained  bool
}

func (r *jsonLines) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			if !r.drained {
				r.drained = true
				if r.draining != nil {
					r.draining()
				}
				r.flight.drain(r.grace)
			}
			return 0, r.err
		}
		line, err := r.readLine()
		r.err = err
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		msg, reply := checkLine(line)
		if reply == nil {
			reply = r.track(msg)
		}
		if reply != nil {
			if err := r.out.reply(reply); err != nil {
				return 0, err
			}
			continue
		}
		if r.flight.isClosed() {
			return 0, io.ErrClosedPipe
		}
		// Whatever followed the message on its line (spaces, a \r) was
		// trimmed: the SDK takes anything but a newline as trailing data
		// and ends the session.
		r.pending = append(line, '\n')
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// track counts msg in the session's flight, waiting for a free slot when
// it is a request, and returns the error to answer it with when it cannot
// be taken.
func (r *jsonLines) track(msg jsonrpc.Message) []byte {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		admit := r.flight.admit
		if m.Method == methodListen {
			// A subscription stays open as long as the client wants
			// its notifications; it is not work, and counted it would
			// hold a slot for good. The server bounds how many are open.
			admit = r.flight.listen
		}
		if m.IsCall() && !admit(m.ID) {
			// The SDK answers a reused id without any id, which no
			// client can match; this answer has id null.
			return errorReply(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: id %v is in use by a request not answered yet; give each request its own id", m.ID.Raw()))
		}
		if m.Method == methodCancelled && !m.IsCall() {
			r.flight.cancel(cancelledRequest(m.Params))
		}
	case *jsonrpc.Response:
		r.flight.replied(m.ID)
	}
	return nil
}

// readLine reads one line, refusing to hold more than r.max bytes of it:
// the rest of a longer line is read and dropped, and the line is answered
// as not JSON.
func (r *jsonLines) readLine() ([]byte, error) {
	var line []byte
	dropping := false
	for {
		part, err := r.in.ReadSlice('\n')
		switch {
		case dropping:
		case len(line)+len(part) <= r.max:
			line = append(line, part...)
		default:
			line, dropping = []byte("\x00"), true // not JSON, whatever came before
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// Close ends the session's waits, then closes in.
func (r *jsonLines) Close() error {
	r.flight.close()
	return r.closer.Close()
}

// checkLine returns the message line holds, or the error to answer it
// with when the SDK could not read it. The SDK's own decoder decides what
// is a message, so that the two never disagree; this only adds what it
// reads before that decoder runs and fails on: what CheckBody refuses
// (depth, batches, ids), and JSON syntax by encoding/json's rules.
func checkLine(line []byte) (jsonrpc.Message, []byte) {
	if reply := checkMessage(line, "line"); reply != nil {
		return nil, reply
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		id, why := explainInvalid(line, err)
		return nil, errorReply(id, codeInvalidRequest, "Invalid Request: "+why)
	}
	return msg, nil
}

// maxExactID is the largest integer a float64 holds exactly, which is how
// the SDK reads a numeric id.
const maxExactID = 1 << 53

// badID says what is wrong with an id the SDK reads but changes or drops:
// a fraction or exponent (1.5 becomes 1), an integer too large to keep
// (the answer would name another request), or null on a request (taken
// for a notification, never answered). MCP ids are strings or integers.
func badID(line []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	id := string(m.ID)
	switch {
	case id == "null" && m.Method != nil:
		return "a request's id must be a string or an integer, not null; a notification has no id at all"
	case id == "" || (id[0] != '-' && (id[0] < '0' || id[0] > '9')):
		return "" // a string, or no number: the SDK's decoder judges it
	case strings.ContainsAny(id, ".eE"):
		return "id " + quoteArg(id) + " is not an integer; give a string or an integer"
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n > maxExactID || n < -maxExactID {
		return "id " + quoteArg(id) + " is too large to answer exactly; give a string or an integer of at most 15 digits"
	}
	return ""
}

// MethodNotFound is the JSON-RPC error for a request (id) of a method the
// server does not answer, in the words the server's stdio answer uses.
func MethodNotFound(id json.RawMessage, method string) []byte {
	return errorReply(id, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", method))
}

// CheckBody returns the JSON-RPC error to answer an HTTP request body
// with, or nil when the SDK may read it: checkMessage's checks.
func CheckBody(body []byte) []byte { return checkMessage(body, "body") }

// checkMessage returns the JSON-RPC error to answer a message with, a
// stdio line or an HTTP request body (what names it in the answer), or
// nil when the SDK may read it: the checks the SDK does not make itself,
// or makes only after it has read the message (JSON syntax, nesting
// depth, batches, ids it would change or drop). Both transports call it,
// so that a message is taken or refused alike whichever way it came.
func checkMessage(body []byte, what string) []byte {
	body = bytes.TrimSpace(body)
	if tooDeep(body, maxDepth) {
		return errorReply(nil, codeParseError, fmt.Sprintf("Parse error: JSON nested more than %d levels deep", maxDepth))
	}
	if !json.Valid(body) {
		return errorReply(nil, codeParseError, "Parse error: "+syntaxProblem(body, what))
	}
	if len(body) > 0 && body[0] == '[' {
		// MCP dropped JSON-RPC batches in 2025-06-18. The SDK refuses
		// them from then on, but still reads one from a client of an
		// earlier version, without the checks below for each element:
		// it answered id 1.5 as 1, and one of two requests sharing an id
		// not at all. So no batch is read, whatever the version; JSON-RPC
		// 2.0 answers a batch that cannot be taken with a single error.
		return errorReply(nil, codeInvalidRequest, "Invalid Request: batches are not supported; send each message by itself: a line of its own over stdio, a request of its own over HTTP")
	}
	if len(body) > 0 && body[0] == '{' {
		if why := badID(body); why != "" {
			return errorReply(nil, codeInvalidRequest, "Invalid Request: "+why)
		}
	}
	return nil
}

// syntaxProblem says why body, which is not valid JSON, cannot be read:
// more than one message in it, or where its JSON goes wrong. what names
// the body ("line", "body").
func syntaxProblem(body []byte, what string) string {
	if len(body) == 0 {
		return "the " + what + " is empty; send one JSON-RPC message"
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	values := 0
	var err error
	for {
		var v json.RawMessage
		if err = dec.Decode(&v); err != nil {
			break
		}
		values++
	}
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) && values > 1:
		// Whole JSON values, one after the other: several messages.
		return "each request must be one JSON-RPC message: a line of its own over stdio, a request body of its own over HTTP"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the %s is not valid JSON: it ends after %s, before the JSON is complete", what, words.Count(len(body), "byte"))
	case errors.As(err, &syn) && syn.Offset > 0 && int(syn.Offset) <= len(body):
		r, _ := utf8.DecodeRune(body[syn.Offset-1:])
		return fmt.Sprintf("the %s is not valid JSON: the character %q at byte %d is out of place", what, r, syn.Offset)
	}
	return "the " + what + " is not valid JSON"
}

// tooDeep reports whether line nests arrays and objects more than max
// levels deep, without decoding it.
func tooDeep(line []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range line {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch b {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			if depth++; depth > max {
				return true
			}
		case b == ']' || b == '}':
			depth--
		}
	}
	return false
}

// explainInvalid says what is wrong with a JSON line the SDK refused, and
// returns the id to answer with: the line's own when it is a request with
// a valid id, none otherwise (a response is never answered with its id,
// which names one of the client's requests).
func explainInvalid(line []byte, err error) (json.RawMessage, string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m == nil {
		return nil, "each line must be a JSON object: a request, a notification or a response"
	}
	id, hasID := m["id"]
	validID := hasID && len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
	method, hasMethod := m["method"]
	var reply json.RawMessage
	if hasMethod && validID {
		reply = id
	}
	var version string
	switch {
	case json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0":
		return reply, `"jsonrpc" must be "2.0"`
	case hasID && !validID && string(id) != "null":
		return nil, `"id" must be a string or a number`
	case hasMethod && (len(method) == 0 || method[0] != '"'):
		return reply, `"method" must be a string`
	case !hasMethod && (!hasID || string(id) == "null"):
		return nil, "a message needs a method (a request or a notification) or an id (a response)"
	case !hasMethod:
		return nil, `a response needs a "result" or an "error" with a numeric "code" and a "message"`
	}
	return reply, err.Error()
}

// errorReply is a JSON-RPC error response line; id is null when none
// could be read.
func errorReply(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	text, _ := json.Marshal(msg)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, text)
}

// lockedWriter lets error replies and the SDK's messages, each one Write,
// share out without interleaving, and tells the session's flight what
// the server answers and asks. Close leaves out open.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	flight *flight
}

// Write writes one message of the SDK's.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := p
	switch o := peekOutgoing(p); {
	case o.response:
		// The slot is freed before the answer goes out, so that a client
		// that reuses the id as soon as it reads the answer finds it free.
		if l.flight.answered(o.id) {
			return len(p), nil // cancelled by the client: not answered
		}
		if o.failed {
			if fixed := withCode(p); fixed != nil {
				out = fixed
			}
		}
	case o.method == methodCancelled:
		l.flight.replied(cancelledID(p))
	case o.id.IsValid():
		l.flight.asked(o.id)
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// reply writes an error reply of the filter's own, which answers no
// request the SDK was given.
func (l *lockedWriter) reply(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(p)
	return err
}

func (l *lockedWriter) Close() error { return nil }

const (
	methodCancelled = "notifications/cancelled"
	methodListen    = "subscriptions/listen"
)

// outgoing is what the server writes, as far as the flight cares.
type outgoing struct {
	id       jsonrpc.ID
	method   string
	response bool
	failed   bool // an error answer
}

// peekOutgoing reads the id and kind of one of the SDK's messages. The SDK
// writes "jsonrpc", "id", then "method", "result" or "error" first, so
// this reads a few tokens, not a whole search result; keys in another
// order are still read right, only slower.
func peekOutgoing(p []byte) outgoing {
	var o outgoing
	dec := json.NewDecoder(bytes.NewReader(p))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return o
	}
	haveID, haveKind := false, false
	for dec.More() && !(haveID && haveKind) {
		key, err := dec.Token()
		if err != nil {
			return o
		}
		switch key {
		case "id":
			var v any
			if dec.Decode(&v) != nil {
				return o
			}
			o.id, _ = jsonrpc.MakeID(v)
			haveID = true
			continue
		case "method":
			if dec.Decode(&o.method) != nil {
				return o
			}
			haveKind = true
			continue
		case "result", "error":
			o.response, o.failed, haveKind = true, key == "error", true
			if haveID {
				return o
			}
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return o
		}
	}
	return o
}

// cancelledID is the request a notifications/cancelled line cancels.
func cancelledID(p []byte) jsonrpc.ID {
	var n struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(p, &n) != nil {
		return jsonrpc.ID{}
	}
	return cancelledRequest(n.Params)
}

// cancelledRequest is the request the params of a notifications/cancelled
// cancel.
func cancelledRequest(params json.RawMessage) jsonrpc.ID {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}
	}
	id, _ := jsonrpc.MakeID(p.RequestID)
	return id
}

// withCode returns an error answer of the SDK's that has no code (0) with
// one, or nil for any other message. The SDK sends a plain Go error with
// code 0, which clients show as "MCP error 0". Some of them it sends before
// any middleware runs, such as its refusal of a call made before
// initialize, so the answer on its way out is the one place left to give
// them a code. The code is told from the SDK's wording;
// TestStdioCallBeforeInitialize and FuzzStdio fail if that changes.
func withCode(p []byte) []byte {
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(p, &r) != nil || r.Error.Code != 0 || r.Error.Data != nil {
		return nil
	}
	msg := r.Error.Message
	code := jsonrpc.CodeInternalError
	switch {
	case strings.HasSuffix(msg, " is invalid during session initialization"):
		method := "this method"
		rest, _ := strings.CutPrefix(msg, "method ")
		quoted, _, _ := strings.Cut(rest, " is invalid")
		if m, err := strconv.Unquote(quoted); err == nil {
			method = m
		}
		code = codeInvalidRequest
		msg = fmt.Sprintf("Invalid Request: %s was called before initialize; send initialize first, then notifications/initialized", method)
	case strings.HasPrefix(msg, "duplicate ") || strings.Contains(msg, ` before "initialize"`):
		code = codeInvalidRequest
	case strings.HasPrefix(msg, "unmarshaling ") || strings.HasPrefix(msg, "missing required ") || strings.HasPrefix(msg, "failed to decode "):
		code = jsonrpc.CodeInvalidParams
	}
	return errorReply(r.ID, code, msg)
}
