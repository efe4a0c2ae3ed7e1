//go:build race

package embed

// raceEnabled skips allocation counts, which the race detector changes
// (sync.Pool drops items at random under it).
const raceEnabled = true
