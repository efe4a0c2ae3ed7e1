package write

// Edit is one edit of edit-note. (Its fields and ApplyEdits land with
// the edit engine; this declaration stands in for it until then.)
type Edit struct {
	Op         string         `json:"op"`
	Text       string         `json:"text,omitempty"`
	Find       string         `json:"find,omitempty"`
	Replace    string         `json:"replace,omitempty"`
	Count      *int           `json:"count,omitempty"`
	Heading    string         `json:"heading,omitempty"`
	Properties map[string]any `json:"properties,omitempty"`
}
