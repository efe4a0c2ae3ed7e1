//go:build race

package vectors

// raceEnabled makes tests that compare thousands of queries with an exact
// scan ask fewer under the race detector, which slows them tenfold; the
// plain test run asks them all.
const raceEnabled = true
