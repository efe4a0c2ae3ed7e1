package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// terminalHandler writes the warnings and errors of a command a person
// runs (index, search, ...) as plain lines, one each:
//
//	jarvis: warning: stored vectors not kept; they are made again: disk is full
//
// A record marked index.Reported is left out: the command's own output
// says it (the index summary counts the problems, a search's answer says
// what it read instead), and --verbose shows the records one by one. The
// server's log (jarvis mcp) is not written by it: that is a log for the
// client and keeps every record.
type terminalHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	attrs  []slog.Attr // given by WithAttrs, keys with their groups
	prefix string      // the groups of WithGroup, each followed by "."
}

func newTerminalHandler(w io.Writer) *terminalHandler {
	return &terminalHandler{mu: &sync.Mutex{}, w: w}
}

// Enabled is true for warnings and errors: what is less is a detail.
func (h *terminalHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn
}

func (h *terminalHandler) Handle(_ context.Context, r slog.Record) error {
	attrs := append([]slog.Attr(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		attrs = appendFlat(attrs, h.prefix, a)
		return true
	})
	for i, a := range attrs {
		if index.IsReported(a) {
			return nil
		}
		attrs[i] = databaseTrouble(a, false)
	}
	line := terminalLine(r.Level, r.Message, attrs)
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line)
	return err
}

func (h *terminalHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range as {
		h2.attrs = appendFlat(h2.attrs, h.prefix, a)
	}
	return &h2
}

func (h *terminalHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.prefix += name + "."
	return &h2
}

// appendFlat appends a to attrs, a group as its members, each key after
// the names of its groups; empty attributes are dropped, as slog's own
// handlers drop them.
func appendFlat(attrs []slog.Attr, prefix string, a slog.Attr) []slog.Attr {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return attrs
	}
	if a.Value.Kind() != slog.KindGroup {
		// The mark is matched by its own key, whatever the groups.
		if !index.IsReported(a) {
			a.Key = prefix + a.Key
		}
		return append(attrs, a)
	}
	if a.Key != "" {
		prefix += a.Key + "."
	}
	for _, m := range a.Value.Group() {
		attrs = appendFlat(attrs, prefix, m)
	}
	return attrs
}

// explaining are the keys whose values are sentences of their own, such
// as an error's text: they are written without their key, after the rest.
var explaining = map[string]bool{"err": true, "error": true, "why": true, "reason": true, "problem": true}

// terminalLine is a record as a person reads it: "jarvis: warning: " (or
// "error: "), the message, then what the attributes name ("vault Work,
// path a.md") and what they explain, each after a colon, on one line.
func terminalLine(level slog.Level, msg string, attrs []slog.Attr) string {
	var named, why []string
	for _, a := range attrs {
		v := logLine(a.Value.String())
		if explaining[a.Key] {
			why = append(why, v)
		} else {
			named = append(named, a.Key+" "+v)
		}
	}
	kind := "warning"
	if level >= slog.LevelError {
		kind = "error"
	}
	parts := []string{"jarvis", kind, logLine(msg)}
	if len(named) > 0 {
		parts = append(parts, strings.Join(named, ", "))
	}
	if len(why) > 0 {
		parts = append(parts, strings.Join(why, "; "))
	}
	return strings.Join(parts, ": ") + "\n"
}

// databaseTrouble is a, an error the database met, in the words every
// command uses for the database's trouble (store.Said: "the database is
// locked by another program"), not SQLite's with its result codes ("database
// is locked (5) (SQLITE_BUSY)"); raw keeps SQLite's words after them, for a
// log of every detail. Any other attribute is returned as it is.
func databaseTrouble(a slog.Attr, raw bool) slog.Attr {
	err, ok := a.Value.Resolve().Any().(error)
	if !ok || a.Value.Kind() != slog.KindAny || store.Classify(err) == store.KindOther {
		return a
	}
	said := store.Said(err)
	if raw {
		said += " (" + err.Error() + ")"
	}
	return slog.String(a.Key, said)
}

// logLine puts text on one line.
func logLine(text string) string {
	return strings.Join(strings.Fields(text), " ")
}
