//go:build race

package main

// raceEnabled makes sweeps of many whole runs (a rebuild at twenty damaged
// pages) take fewer under the race detector, which slows a run tenfold;
// the full sweep runs in the plain test run.
const raceEnabled = true
