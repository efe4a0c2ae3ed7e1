package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport serves MCP over in and out, one JSON-RPC message per
// line, as the SDK's stdio transport does, except that a line that is not
// a JSON-RPC message is answered with an error and skipped: the SDK ends
// the session on one, and with it the server a client started. out is
// never closed, as the SDK never closes stdout.
func StdioTransport(in io.ReadCloser, out io.Writer) mcpsdk.Transport {
	w := &lockedWriter{w: out}
	return &mcpsdk.IOTransport{
		Reader: &jsonLines{in: bufio.NewReader(in), closer: in, out: w, max: mcpsdk.DefaultMaxLineLength},
		Writer: w,
	}
}

// JSON-RPC error codes for a line that cannot be taken as a message.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// jsonLines passes on the lines of in that are JSON-RPC messages, and
// answers the others on out.
type jsonLines struct {
	in      *bufio.Reader
	closer  io.Closer
	out     io.Writer
	max     int    // the longest line read; a longer one is refused
	pending []byte // the rest of a message line not yet read
	err     error  // what ended in, returned once pending is read
}

func (r *jsonLines) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.readLine()
		r.err = err
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if reply := checkMessage(line); reply != nil {
			if _, werr := r.out.Write(reply); werr != nil {
				return 0, werr
			}
			continue
		}
		r.pending = line
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// readLine reads one line, refusing to hold more than r.max bytes of it:
// the rest of a longer line is read and dropped, and the line is answered
// as not JSON.
func (r *jsonLines) readLine() ([]byte, error) {
	var line []byte
	for {
		part, err := r.in.ReadSlice('\n')
		if len(line)+len(part) <= r.max {
			line = append(line, part...)
		} else {
			line = []byte("\x00") // not JSON, whatever came before
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

func (r *jsonLines) Close() error { return r.closer.Close() }

// checkMessage returns the error to answer a line with, or nil when the
// line is a JSON-RPC 2.0 message (or a batch of them) the SDK can read.
func checkMessage(line []byte) []byte {
	if !json.Valid(line) {
		return errorReply(nil, codeParseError, "Parse error: each line must be one JSON-RPC message")
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) == nil {
		if len(batch) == 0 {
			return errorReply(nil, codeInvalidRequest, "Invalid Request: an empty batch")
		}
		for _, m := range batch {
			if _, ok := isMessage(m); !ok {
				return errorReply(nil, codeInvalidRequest, "Invalid Request: every message of a batch needs jsonrpc \"2.0\" and a method or an id")
			}
		}
		return nil
	}
	if id, ok := isMessage(line); !ok {
		return errorReply(id, codeInvalidRequest, "Invalid Request: a message needs jsonrpc \"2.0\" and a method or an id")
	}
	return nil
}

// isMessage reports whether raw is a JSON-RPC 2.0 object with a method or
// an id, and returns its id when it has one.
func isMessage(raw []byte) (json.RawMessage, bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		ID      json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m.ID, m.JSONRPC == "2.0" && (m.Method != nil || len(m.ID) > 0)
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
// share out without interleaving. Close leaves out open.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
