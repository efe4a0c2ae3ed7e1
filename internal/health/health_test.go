package health

import (
	"context"
	"strings"
	"testing"
	"time"
)

func check(name string, order int, rs ...Result) Check {
	return Check{Name: name, Order: order, Run: func(context.Context) []Result { return rs }}
}

func TestRunSumsUp(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		want   Overall
		code   int
	}{
		{"all ok", []Check{check("a", 0, Result{Status: OK}), check("b", 0, Result{Status: OK})}, Healthy, 0},
		{"a warning", []Check{check("a", 0, Result{Status: OK}), check("b", 0, Result{Status: Warn})}, Degraded, 1},
		{"a failure beats warnings", []Check{check("a", 0, Result{Status: Warn}), check("b", 0, Result{Status: Fail}), check("c", 0, Result{Status: Warn})}, Broken, 2},
		{"no checks", nil, Healthy, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Run(context.Background(), tt.checks, time.Second)
			if rep.Status != tt.want || rep.ExitCode() != tt.code {
				t.Fatalf("status %s, exit %d; want %s, %d", rep.Status, rep.ExitCode(), tt.want, tt.code)
			}
		})
	}
}

func TestRunNamesAndSurvives(t *testing.T) {
	checks := []Check{
		check("named by the check", 0, Result{Status: OK}),
		check("several", 0, Result{Name: "several one", Status: OK}, Result{Name: "several two", Status: OK}),
		{Name: "panics", Run: func(context.Context) []Result { panic("boom") }},
		{Name: "hangs", Run: func(ctx context.Context) []Result { <-make(chan struct{}); return nil }},
		check("after", 0, Result{Status: OK}),
	}
	rep := Run(context.Background(), checks, 50*time.Millisecond)
	var names []string
	for _, r := range rep.Checks {
		names = append(names, r.Name+"="+string(r.Status))
	}
	want := "named by the check=ok several one=ok several two=ok panics=fail hangs=fail after=ok"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("results = %s\nwant      %s", got, want)
	}
	if !strings.Contains(rep.Checks[3].Detail, "boom") || rep.Checks[3].Fix == "" {
		t.Fatalf("panic result = %+v", rep.Checks[3])
	}
	if rep.Status != Broken {
		t.Fatalf("status = %s", rep.Status)
	}
}

func TestSortKeepsOrderAmongEquals(t *testing.T) {
	cs := []Check{check("disk", 90), check("b", 40), check("config", 10), check("c", 40)}
	Sort(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Name)
	}
	if strings.Join(got, ",") != "config,b,c,disk" {
		t.Fatalf("order = %v", got)
	}
}

func TestDiskSpace(t *testing.T) {
	rs := DiskSpace(t.TempDir() + "/not/yet/created/j.db").Run(context.Background())
	if len(rs) != 1 || rs[0].Status == Fail || !strings.Contains(rs[0].Detail, "free") {
		t.Fatalf("disk space = %+v", rs)
	}
}
