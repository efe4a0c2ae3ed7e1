package mcp

import (
	"context"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixedListTTL is how long a client may keep a list that does not change
// while the server runs (tools, prompts, resource templates, what
// server/discover says): they change only when jarvis is started again,
// with other flags or another configuration, and a client that kept them
// longer would miss the write tools turned on by a restart.
const fixedListTTL = 5 * time.Minute

// cacheHint is the one rule for the cache hints (MCP 2026-07-28, SEP-2549)
// of every result that carries them, whichever code builds the result: the
// SDK's own list methods and server/discover through
// ServerOptions.SetCacheable, jarvis's resources/list through
// listNoteResources.
//
// Every hint is private: the answers hold the user's notes and vault
// names, which a cache shared between users must not hand to anyone else.
// Notes and the note list change as the user edits and the index catches
// up, so they are stale at once (ttl 0): an assistant that edits a note it
// read from a cache would edit an old text.
func cacheHint(req mcpsdk.Request) mcpsdk.Cacheable {
	c := mcpsdk.Cacheable{CacheScope: "private"}
	switch req.(type) {
	case *mcpsdk.ListToolsRequest, *mcpsdk.ListPromptsRequest, *mcpsdk.ListResourceTemplatesRequest, *mcpsdk.ServerRequest[*mcpsdk.DiscoverParams]:
		c.TTLMs = int(fixedListTTL / time.Millisecond)
	}
	return c
}

// setCacheable is ServerOptions.SetCacheable: cacheHint for the results
// the SDK builds.
func setCacheable(_ context.Context, req mcpsdk.Request, c *mcpsdk.Cacheable) {
	*c = cacheHint(req)
}
