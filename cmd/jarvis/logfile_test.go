package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestLogFileIsBounded writes far more than a log file's bound: the file
// and its one older copy stay within it, and the latest record is in the
// file.
func TestLogFileIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jarvis.log")
	const max = 4 << 10
	l, err := openLogFile(path, max)
	if err != nil {
		t.Fatal(err)
	}
	record := bytes.Repeat([]byte("x"), 99)
	record = append(record, '\n')
	for range 1000 { // 100 KB
		if _, err := l.Write(record); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Write([]byte("last\n")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > max {
			t.Errorf("%s holds %d bytes, more than %d", filepath.Base(p), st.Size(), max)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("last\n")) {
		t.Errorf("the latest record is not at the end of the log file")
	}

	// Reopened, the file's size so far counts.
	l, err = openLogFile(path, int64(len(data))+10)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Write(record); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != int64(len(record)) {
		t.Errorf("after reopening, a record past the bound left %d bytes, want a new file of %d", st.Size(), len(record))
	}
}
