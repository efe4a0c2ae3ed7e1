package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// alternativesVault is a vault where the query "car repair" and the
// alternative "automobile maintenance" find different notes.
func alternativesVault(t *testing.T) config.Vault {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"Car repair.md":     "Car repair: the brakes of the car squeal, and the car needs repair.",
		"Garage visit.md":   "Automobile maintenance at the garage: oil changed, automobile maintenance booked yearly.",
		"Automobile.md":     "Notes on the automobile maintenance schedule for the automobile.",
		"Bread.md":          "Sourdough bread with a long rise.",
		"Bicycle.md":        "Bicycle chain oiled; the bicycle rides well.",
		"Car park.md":       "Where the car is parked at the station.",
		"Recipes/Stew.md":   "A beef stew for winter.",
		"Travel/Trains.md":  "Trains to the coast run hourly.",
		"Travel/Flights.md": "Flights are booked for spring.",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return config.Vault{Name: "v", Path: dir}
}

// TestAlternativesFuse holds every mode to the rule of alternatives: the
// notes an alternative finds join the query's in one ranking, below the
// query's best (the query weighs more), and the answer says what each
// alternative found.
func TestAlternativesFuse(t *testing.T) {
	svc, _ := indexedService(t, alternativesVault(t))
	ctx := context.Background()
	for _, mode := range allModes {
		plain, err := svc.Search(ctx, Query{Mode: mode, Text: "car repair"})
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(plain.Results, func(r notes.Result) bool { return r.Path == "Garage visit.md" }) {
			t.Fatalf("%s: the query alone found Garage visit.md; the vault does not test alternatives", mode)
		}
		a, err := svc.Search(ctx, Query{Mode: mode, Text: "car repair", Alternatives: []string{"automobile", " Car Repair ", "", "automobile maintenance"}})
		if err != nil {
			t.Fatal(err)
		}
		paths := resultPaths(a.Results)
		if q, alt := slices.Index(paths, "Car repair.md"), slices.Index(paths, "Garage visit.md"); q < 0 || alt < 0 || q > alt {
			t.Errorf("%s: results %v; want Car repair.md, the query's best, above Garage visit.md, an alternative's best", mode, paths)
		}
		for _, want := range []string{"Garage visit.md", "Automobile.md"} {
			if !slices.Contains(paths, want) {
				t.Errorf("%s: results %v lack %s, which the alternatives find", mode, paths, want)
			}
		}
		// The alternative that repeats the query, and the blank one, are
		// not searched.
		if len(a.Alternatives) != 2 || a.Alternatives[0].Text != "automobile" || a.Alternatives[1].Text != "automobile maintenance" {
			t.Fatalf("%s: alternatives %+v; want automobile and automobile maintenance", mode, a.Alternatives)
		}
		for _, h := range a.Alternatives {
			if h.Found < 2 || h.Added < 1 || h.Added > h.Found {
				t.Errorf("%s: %+v; want at least the two automobile notes found, at least one the query did not find", mode, h)
			}
		}
	}
}

// TestNoAlternativesAsBefore holds a search without alternatives, or with
// only alternatives that repeat the query or are blank, to the answer of
// the query alone.
func TestNoAlternativesAsBefore(t *testing.T) {
	svc, _ := indexedService(t, alternativesVault(t))
	ctx := context.Background()
	for _, mode := range allModes {
		for _, limit := range []int{0, 2} {
			plain, err := svc.Search(ctx, Query{Mode: mode, Text: "car", Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			for _, alts := range [][]string{{}, {"CAR", "  "}} {
				got, err := svc.Search(ctx, Query{Mode: mode, Text: "car", Limit: limit, Alternatives: alts})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, plain) {
					t.Errorf("%s, limit %d, alternatives %q: %+v; want the query's own answer %+v", mode, limit, alts, got, plain)
				}
			}
		}
	}
}

// TestAlternativesBounds holds the bounds of alternatives.
func TestAlternativesBounds(t *testing.T) {
	svc, _ := indexedService(t, alternativesVault(t))
	for _, tc := range []struct {
		name string
		alts []string
		want string
	}{
		{"too many", []string{"a", "b", "c", "d", "e", "f"}, "6 were given and a search takes at most 5"},
		{"too long", []string{"a", strings.Repeat("x", MaxAlternativeChars+1)}, "alternative 2 is 501 characters long"},
	} {
		_, err := svc.Search(context.Background(), Query{Text: "car", Alternatives: tc.alts})
		if !errors.Is(err, ErrAlternatives) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}
