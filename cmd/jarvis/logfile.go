package main

import (
	"fmt"
	"os"
	"sync"
)

// maxLogBytes is the most one --log-file holds. When a write would take
// it past this, the file is renamed to its name with ".1" (replacing the
// one before) and a new one begun: a server left running for months keeps
// at most twice this on disk, the latest logs always among it.
const maxLogBytes = 10 << 20

// logFile is a log file bounded by rolling over to one older copy.
type logFile struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	size int64
}

// openLogFile opens path for appending, bounded to max bytes (and as much
// again in path.1).
func openLogFile(path string, max int64) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &logFile{path: path, max: max, f: f, size: st.Size()}, nil
}

// Write appends one log record, first rolling the file over when the
// record would take it past its bound. A failed roll-over keeps writing
// to the file as it is: losing logs is worse than a larger file.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.roll(); err != nil {
			fmt.Fprintf(l.f, "jarvis: the log file could not be rolled over: %v\n", err)
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// roll moves the file to path.1 and opens a new one at path.
func (l *logFile) roll() error {
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f, l.size = f, 0
	return nil
}

// Close closes the file.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}
