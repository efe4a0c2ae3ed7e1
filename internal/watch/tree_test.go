package watch

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

func TestLimitReached(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		limit  bool
		advice string
	}{
		{"inotify watches", fmt.Errorf("add: %w", syscall.ENOSPC), true, "max_user_watches"},
		{"open files", syscall.EMFILE, true, "ulimit"},
		{"permission", syscall.EACCES, false, ""},
		{"other", errors.New("odd"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := limitReached(tt.err); got != tt.limit {
				t.Errorf("limitReached = %v, want %v", got, tt.limit)
			}
			if tt.limit && !strings.Contains(limitAdvice(tt.err), tt.advice) {
				t.Errorf("advice %q does not mention %q", limitAdvice(tt.err), tt.advice)
			}
		})
	}
}
