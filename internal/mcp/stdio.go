package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// parseError is the JSON-RPC answer to a line that is not JSON: the id is
// null because none could be read.
var parseError = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: each line must be one JSON-RPC message"}}` + "\n")

// StdioTransport serves MCP over in and out, one JSON-RPC message per
// line, as the SDK's stdio transport does, except that a line that is not
// JSON is answered with a parse error and skipped: the SDK ends the
// session on one, and with it the server a client started.
func StdioTransport(in io.ReadCloser, out io.WriteCloser) mcpsdk.Transport {
	w := &lockedWriter{w: out}
	return &mcpsdk.IOTransport{Reader: &jsonLines{in: bufio.NewReader(in), closer: in, out: w}, Writer: w}
}

// jsonLines passes on the lines of in that are JSON, and answers the others
// on out.
type jsonLines struct {
	in      *bufio.Reader
	closer  io.Closer
	out     io.Writer
	pending []byte // the rest of a JSON line not yet read
	err     error  // what ended in, returned once pending is read
}

func (r *jsonLines) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.in.ReadBytes('\n')
		r.err = err
		switch {
		case len(bytes.TrimSpace(line)) == 0:
		case json.Valid(line):
			r.pending = line
		default:
			if _, werr := r.out.Write(parseError); werr != nil {
				return 0, werr
			}
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func (r *jsonLines) Close() error { return r.closer.Close() }

// lockedWriter lets parse errors and the SDK's messages, each one Write,
// share out without interleaving.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }
