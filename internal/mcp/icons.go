package mcp

import (
	"encoding/base64"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// svgIcon is a 24x24 line drawing in jarvis's colour as an icon: a small
// SVG in a data URI, so that nothing is fetched from anywhere. It is sent
// in every tools/list answer, so each is kept to a few hundred bytes.
func svgIcon(paths string) mcpsdk.Icon {
	return mcpsdk.Icon{
		Source: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(
			`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#7c3aed" stroke-width="2" stroke-linecap="round">`+
				paths+`</svg>`)),
		MIMEType: "image/svg+xml",
		Sizes:    []string{"any"},
	}
}

// serverIcon is jarvis's icon, for the clients that show one beside the
// server's name: a magnifying glass over a note.
var serverIcon = svgIcon(`<path d="M5 2h9l5 5v6"/><path d="M5 2v20h8"/><path d="M8 8h5M8 12h4"/><circle cx="17.5" cy="17.5" r="3.5"/><path d="M20 20l2.5 2.5"/>`)

// The tools' icons, one for each kind of work, so that a client showing
// them tells searching from reading, linking, writing and checking.
var (
	iconSearch = svgIcon(`<circle cx="10" cy="10" r="6"/><path d="M15 15l6 6"/>`)
	iconNote   = svgIcon(`<path d="M6 2h8l4 4v16H6z"/><path d="M9 10h6M9 14h6M9 18h4"/>`)
	iconGraph  = svgIcon(`<circle cx="5" cy="12" r="2.5"/><circle cx="19" cy="5" r="2.5"/><circle cx="19" cy="19" r="2.5"/><path d="M7.2 11l9.6-5M7.2 13l9.6 5"/>`)
	iconVaults = svgIcon(`<path d="M3 6h7l2 2h9v12H3z"/>`)
	iconHealth = svgIcon(`<path d="M2 12h5l2-6 4 12 2-6h7"/>`)
	iconTable  = svgIcon(`<rect x="3" y="4" width="18" height="16" rx="1"/><path d="M3 10h18M9 4v16"/>`)
	iconDay    = svgIcon(`<rect x="3" y="5" width="18" height="16" rx="1"/><path d="M3 10h18M8 3v4M16 3v4"/>`)
	iconWrite  = svgIcon(`<path d="M4 20h4L20 8l-4-4L4 16z"/><path d="M14 6l4 4"/>`)
)

// toolIcons are the icons addTool gives each tool.
var toolIcons = map[string]mcpsdk.Icon{
	ToolSearchSemantic: iconSearch,
	ToolSearchVault:    iconSearch,
	ToolSearchCombined: iconSearch,
	ToolBuildContext:   iconSearch,
	ToolReadNote:       iconNote,
	ToolSearchGraph:    iconGraph,
	ToolRelatedNotes:   iconGraph,
	ToolListVaults:     iconVaults,
	ToolHealthStatus:   iconHealth,
	ToolQueryNotes:     iconTable,
	ToolPeriodicNote:   iconDay,
	ToolCreateNote:     iconWrite,
	ToolEditNote:       iconWrite,
	ToolMoveNote:       iconWrite,
	ToolDeleteNote:     iconWrite,
}
