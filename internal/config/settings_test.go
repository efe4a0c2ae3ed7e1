package config

import (
	"slices"
	"testing"
)

// TestSettingsNameEveryFileKey holds the table of settings and the config
// file's shape together: every key the decoder accepts has a row, and
// every row's key is one the decoder accepts.
func TestSettingsNameEveryFileKey(t *testing.T) {
	var inTable []string
	for _, s := range Settings {
		if s.Key != "" {
			inTable = append(inTable, s.Key)
		}
		if s.Key == "" && s.Env == "" {
			t.Errorf("a setting has neither key nor environment variable: %+v", s)
		}
		if s.Meaning == "" || s.Type == "" {
			t.Errorf("setting %q%q lacks its type or meaning", s.Key, s.Env)
		}
	}
	keys := FileKeys()
	if len(keys) < 10 {
		t.Fatalf("FileKeys found only %v", keys)
	}
	for _, k := range keys {
		if !slices.Contains(inTable, k) {
			t.Errorf("config file key %q is missing from Settings", k)
		}
	}
	for _, k := range inTable {
		if !slices.Contains(keys, k) {
			t.Errorf("Settings names %q, which the config file does not take", k)
		}
	}
}
