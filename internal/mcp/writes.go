package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
)

// ToolWrites reports whether the tool named changes notes whatever its
// arguments: the write tools, registered only when a vault is writable.
// It is the one list of them: registration, the answer to a call of one
// that is off, and the HTTP server's scope check all ask it.
func ToolWrites(name string) bool {
	return slices.Contains(writeToolNames, name)
}

// CallWrites reports whether a call of the tool named with the JSON
// arguments given may change notes: a write tool, or periodic-note given
// text to append. Arguments it cannot read as one plain object (a key
// given twice, or not JSON) count as writing, so that no reading of them
// another parser might make lets a write through as a read.
func CallWrites(name string, args json.RawMessage) bool {
	if ToolWrites(name) {
		return true
	}
	if name != ToolPeriodicNote {
		return false
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		return false
	}
	if _, ok := objectFields(args); !ok {
		return true
	}
	var in PeriodicNoteInput
	if json.Unmarshal(args, &in) != nil {
		return true
	}
	return in.writes()
}

// RequestWrites reports whether a JSON-RPC request body may change notes:
// a tools/call whose call writes (CallWrites). Every other message reads.
// A body that is not one plain object, or whose method, params or tool
// name are given twice, counts as writing, for the same reason.
func RequestWrites(body []byte) bool {
	top, ok := objectFields(body)
	if !ok {
		return true
	}
	raw, ok := top["method"]
	if !ok {
		return false // a response to a request of the server's
	}
	var method string
	if json.Unmarshal(raw, &method) != nil {
		return true
	}
	if method != "tools/call" {
		return false
	}
	params, ok := objectFields(top["params"])
	if !ok {
		return true
	}
	var name string
	if json.Unmarshal(params["name"], &name) != nil {
		return true
	}
	return CallWrites(name, params["arguments"])
}

// objectFields reads a JSON object's members, exactly as named (the SDK
// matches names case for case), refusing one that names a member twice.
func objectFields(data []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if _, twice := out[key]; twice {
			return nil, false
		}
		out[key] = v
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // more after the object
	}
	return out, true
}
