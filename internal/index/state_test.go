package index

import "testing"

// TestStateForKeepsWhatTheVaultsNamedAreOwed: a failure pinned to another
// vault, and another vault's folder not watched, are left out of the state
// over one vault; a failure pinned to none is every vault's.
func TestStateForKeepsWhatTheVaultsNamedAreOwed(t *testing.T) {
	failed := State{State: StateFailed, Error: "help: disk full", Failed: map[string]string{"help": "disk full"},
		Unwatched: map[string]string{"help": "gone", "biz": "gone too"}}
	if st := failed.For("biz"); st.State != StateReady || st.Error != "" || st.Failed != nil || len(st.Unwatched) != 1 || st.Unwatched["biz"] == "" {
		t.Errorf("over biz: %+v", st)
	}
	if st := failed.For("help"); st.State != StateFailed || st.Failed["help"] == "" || len(st.Unwatched) != 1 {
		t.Errorf("over help: %+v", st)
	}
	if st := failed.For(); st.State != StateFailed || len(st.Unwatched) != 2 {
		t.Errorf("over every vault: %+v", st)
	}
	if len(failed.Unwatched) != 2 || len(failed.Failed) != 1 {
		t.Errorf("For changed the state it was asked of: %+v", failed)
	}
	whole := State{State: StateFailed, Error: "the database is locked"}
	if st := whole.For("biz"); st.State != StateFailed || st.Error == "" {
		t.Errorf("a failure of no one vault, over biz: %+v", st)
	}
}
