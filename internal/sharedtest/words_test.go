package sharedtest

import (
	"reflect"
	"testing"
)

func TestMessageFaultsFindsWhatANewUserMet(t *testing.T) {
	bad := []string{
		`index vault "vault": record vault: attempt to write a readonly database (8)`,
		`database /x/a.db: file is not a usable jarvis database: disk full (1544); run it`,
		`open: *fs.PathError somewhere`,
		`the database holds no vault named "x" (it holds [en vault-all])`,
		`query must be at least 1 characters long`,
		`No notes are whose path starts with "Nope/": nothing was searched.`,
		`value %!v(MISSING)`,
		`run the the command`,
		`failed: SQLITE_BUSY`,
		`a value of <nil>`,
	}
	for _, msg := range bad {
		if len(MessageFaults(msg)) == 0 {
			t.Errorf("no fault found in %q", msg)
		}
	}
	good := []string{
		"database /tmp/a.db is read-only for you; run `chmod u+rw /tmp/a.db /tmp/a.db-wal`, or choose another database with --db",
		`No notes are tagged #draft in vault "work": nothing was searched.`,
		"1 note, 2 attachments; 12 notes (3 updated) in 1.5s",
		"the first index of vault \"en\" is running: 420 of 1,536 files read; ask again in a few seconds",
		"see notes/notes.md and Help/Help.md",
		"run `jarvis index --vault '/tmp/my vault' --rebuild`",
	}
	for _, msg := range good {
		if f := MessageFaults(msg); len(f) > 0 {
			t.Errorf("faults found in a sound message %q: %v", msg, f)
		}
	}
}

func TestSuggestedCommands(t *testing.T) {
	msg := "run `jarvis index --vault '/tmp/my vault' --db \"/a b.db\" --rebuild` or `chmod u+rw x`; then `jarvis doctor`, not `jarvis $(x)`"
	got := SuggestedCommands(msg)
	want := [][]string{{"index", "--vault", "/tmp/my vault", "--db", "/a b.db", "--rebuild"}, {"doctor"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SuggestedCommands = %q, want %q", got, want)
	}
	if got := SuggestedCommands(`run 'it'\''s' nothing`); got != nil {
		t.Errorf("commands found outside backquotes: %q", got)
	}
	if w, ok := shellWords(`a 'it'\''s' b`); !ok || !reflect.DeepEqual(w, []string{"a", "it's", "b"}) {
		t.Errorf("shellWords of a quoted quote = %q, %v", w, ok)
	}
}
