package mcp_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
)

// TestSchemaBoundsMatchDescriptions: a number argument whose description
// states its range ("1 to 50", "from 1") has that range in its schema,
// so the model reads the same bound the SDK enforces.
func TestSchemaBoundsMatchDescriptions(t *testing.T) {
	cs := connect(t, &fake{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rangeWords := regexp.MustCompile(`^[^;(]*?\b(-?\d+(?:\.\d+)?) to (\d+(?:\.\d+)?)\b`)
	fromWords := regexp.MustCompile(`\bfrom (\d+)\b`)
	checked := 0
	for _, tool := range res.Tools {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]struct {
				Type        any      `json:"type"`
				Description string   `json:"description"`
				Minimum     *float64 `json:"minimum"`
				Maximum     *float64 `json:"maximum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			if p.Type != "integer" && p.Type != "number" {
				continue
			}
			if m := rangeWords.FindStringSubmatch(p.Description); m != nil {
				checked++
				lo, _ := strconv.ParseFloat(m[1], 64)
				hi, _ := strconv.ParseFloat(m[2], 64)
				if p.Minimum == nil || *p.Minimum != lo || p.Maximum == nil || *p.Maximum != hi {
					t.Errorf("%s %s: the description says %s to %s; the schema's bounds are %v to %v", tool.Name, name, m[1], m[2], deref(p.Minimum), deref(p.Maximum))
				}
			} else if m := fromWords.FindStringSubmatch(p.Description); m != nil {
				checked++
				lo, _ := strconv.ParseFloat(m[1], 64)
				if p.Minimum == nil || *p.Minimum != lo {
					t.Errorf("%s %s: the description says from %s; the schema's minimum is %v", tool.Name, name, m[1], deref(p.Minimum))
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d bounds; the test no longer reads the descriptions", checked)
	}
}

func deref(f *float64) any {
	if f == nil {
		return "none"
	}
	return *f
}
