package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema infers T's schema and lets edit add what struct tags cannot
// say: ranges, defaults and allowed values, which clients show and the SDK
// checks before a handler runs.
func inputSchema[T any](edit func(p map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	if edit != nil {
		edit(s.Properties)
	}
	return s
}

func intRange(p *jsonschema.Schema, lo, hi, def int) {
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
	p.Default = mustJSON(def)
}

func floatRange(p *jsonschema.Schema, lo, hi float64) {
	p.Minimum, p.Maximum = &lo, &hi
}

func textLength(p *jsonschema.Schema, lo, hi int) {
	p.MinLength, p.MaxLength = &lo, &hi
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
