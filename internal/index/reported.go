package index

import "log/slog"

// Reported marks a log record whose matter the command's own output
// reports: a problem an index run counts (Result.Warnings, listed by
// doctor), or a fallback a search's answer states. A person's terminal
// leaves such records to that output unless details are asked for
// (--verbose); a log, such as the server's, keeps them. Whether a record
// is reported is said here, by the call that logs it, never guessed from
// its message.
var Reported = slog.Bool("reported", true)

// IsReported reports whether a is the Reported mark.
func IsReported(a slog.Attr) bool {
	return a.Equal(Reported)
}
