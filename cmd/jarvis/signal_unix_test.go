//go:build unix

package main

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestSignalsGiveTheShellsStatus: a command stopped by SIGTERM exits 143,
// by Ctrl-C 130, as a shell reports a process those signals ended, and the
// signal reaches the context rather than ending the process.
func TestSignalsGiveTheShellsStatus(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		ctx, stop := notifyContext()
		if err := syscall.Kill(syscall.Getpid(), tt.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not end the context", tt.sig)
		}
		if got := interruptedStatus(ctx); got != tt.want {
			t.Errorf("after %v: status %d, want %d", tt.sig, got, tt.want)
		}
		stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := interruptedStatus(ctx); got != 130 {
		t.Errorf("cancelled without a signal: status %d, want 130", got)
	}
}
