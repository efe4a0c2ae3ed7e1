package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCacheHints: every result that carries cache hints (MCP 2026-07-28)
// has them from the one rule, whether the SDK builds it (tools/list,
// prompts/list, resources/templates/list, resources/read) or jarvis does
// (resources/list, read from the index): private, as they hold the user's
// notes; five minutes for the lists fixed while the server runs, none for
// notes, which change as the user edits. resources/list had an empty
// scope, which is not one, and the others were public.
func TestCacheHints(t *testing.T) {
	ctx := context.Background()
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connect(t, b)
	const fixed = 5 * 60 * 1000
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "jarvis://vaults"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method string
		got    mcpsdk.Cacheable
		ttl    int
	}{
		{"tools/list", tools.Cacheable, fixed},
		{"prompts/list", prompts.Cacheable, fixed},
		{"resources/templates/list", templates.Cacheable, fixed},
		{"resources/list", resources.Cacheable, 0},
		{"resources/read", read.Cacheable, 0},
	} {
		if tt.got.CacheScope != "private" || tt.got.TTLMs != tt.ttl {
			t.Errorf("%s: cacheScope %q, ttlMs %d; want private and %d", tt.method, tt.got.CacheScope, tt.got.TTLMs, tt.ttl)
		}
	}
}

// TestServerDeclaresWhatItAnswers: the capabilities name prompts, as
// prompts/list is answered (with none), besides tools and resources; the
// server has an SVG icon of its own, written into a data URI.
func TestServerDeclaresWhatItAnswers(t *testing.T) {
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connect(t, b)
	init := cs.InitializeResult()
	caps := init.Capabilities
	if caps.Prompts == nil || caps.Tools == nil || caps.Resources == nil {
		t.Fatalf("capabilities %+v: want prompts, tools and resources", caps)
	}
	if prompts, err := cs.ListPrompts(context.Background(), nil); err != nil || len(prompts.Prompts) != 0 {
		t.Errorf("prompts/list: %v, %v; want none", prompts, err)
	}
	icons := init.ServerInfo.Icons
	if len(icons) != 1 || icons[0].MIMEType != "image/svg+xml" || !strings.HasPrefix(icons[0].Source, "data:image/svg+xml;base64,") {
		t.Fatalf("icons %+v: want one SVG in a data URI", icons)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(icons[0].Source, "data:image/svg+xml;base64,"))
	var svg struct{ XMLName xml.Name }
	if err != nil || xml.Unmarshal(data, &svg) != nil || svg.XMLName.Local != "svg" {
		t.Errorf("the icon is not an SVG document: %q", data)
	}
}
