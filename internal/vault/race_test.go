//go:build race

package vault

// raceEnabled shrinks the inputs of tests that measure scale: the race
// detector slows single-goroutine parsing tenfold and checks nothing there.
const raceEnabled = true
