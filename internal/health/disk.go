package health

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Free space below which the disk check warns or fails: an index of 10,000
// notes takes some tens of MB, and SQLite needs room for its WAL as well.
const (
	diskWarnBytes = 500 << 20
	diskFailBytes = 50 << 20
)

// DiskSpace checks the free space where the database lives (or will live).
func DiskSpace(dbPath string) Check {
	return Check{Name: "disk space", Order: 90, Starves: true, Run: func(ctx context.Context) []Result {
		dir := filepath.Dir(dbPath)
		for {
			if _, err := os.Stat(dir); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		free, err := freeBytes(dir)
		if err != nil {
			return []Result{{Status: Warn, Detail: fmt.Sprintf("cannot read free space of %s: %v", dir, err)}}
		}
		detail := fmt.Sprintf("%s free on the disk holding %s", humanBytes(free), dir)
		switch {
		case free < diskFailBytes:
			return []Result{{Status: Fail, Detail: detail, Fix: "free some disk space or move the database with --db"}}
		case free < diskWarnBytes:
			return []Result{{Status: Warn, Detail: detail, Fix: "free some disk space or move the database with --db"}}
		}
		return []Result{{Status: OK, Detail: detail}}
	}}
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d KB", n>>10)
	}
}
