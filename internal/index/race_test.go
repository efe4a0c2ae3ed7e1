//go:build race

package index

// raceEnabled shrinks the vaults of tests that measure scale: the race
// detector slows indexing about tenfold.
const raceEnabled = true
