package mcp

import (
	"io"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/index"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxInFlight is the bound StdioTransport puts on requests handled at once.
var MaxInFlight = sessionBound(DefaultLimits())

// StdioLimits are the bounds of a stdio session, and hooks that tell a
// test where the session is.
type StdioLimits struct {
	InFlight int
	Grace    time.Duration
	Draining func() // called as the session starts to drain
	Held     func() // called as a request starts to wait for a slot
}

// StdioTransportWith is StdioTransport with the limits given.
func StdioTransportWith(l StdioLimits) func(io.ReadCloser, io.Writer) mcpsdk.Transport {
	return func(in io.ReadCloser, out io.Writer) mcpsdk.Transport {
		return stdioTransport(in, out, stdioLimits{inFlight: l.InFlight, grace: l.Grace, draining: l.Draining, held: l.Held})
	}
}

// Freshness is the line list-vaults and health-status give of the index.
var Freshness = freshness

// EmbeddingLine is the line list-vaults and health-status give of the
// vectors, loading and why being what search.VectorsAbsent says.
func EmbeddingLine(e index.Embedding, loaded, loading bool, why string) string {
	return embedding(e, loaded, vectorsAbsent{loading: loading, why: why})
}
