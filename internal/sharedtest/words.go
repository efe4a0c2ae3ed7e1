package sharedtest

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// wordFaults are the shapes of text that tell a user nothing or mislead:
// what a Go value or an SQLite result looks like when printed raw, and
// grammar a sentence built from parts gets wrong.
var wordFaults = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an SQLite result code", regexp.MustCompile(`[a-z] \(\d{1,5}\)(?:$|[^\w])`)},
	{"an SQLite error name", regexp.MustCompile(`\bSQLITE_[A-Z_]+\b`)},
	{"SQLite's own wording", regexp.MustCompile(`(?i)attempt to write a readonly database|database disk image is malformed|unable to open database file|file is not a database|SQL logic error|disk I/O error`)},
	{"a Go type or package name", regexp.MustCompile(`\*?\b(?:fs|os|sql|store|search|index|vault|vectors|graph|mcp|config|errors|fmt|json|http|syscall)\.[A-Z]\w*\b`)},
	{"a Go value printed raw", regexp.MustCompile(`%!|<nil>|\bmap\[|&\{|\[\]string|\bstruct \{`)},
	{"a Go slice printed raw", regexp.MustCompile(`\(it holds \[|\[[\p{L}\d_-]+ [\p{L}\d_-]+(?: [\p{L}\d_-]+)*\]`)},
	{"a singular count with a plural noun", regexp.MustCompile(`(?:^|[^\d.,])1 (?:characters|notes|files|vaults|links|chunks|seconds|bytes|results|words|attachments|tags|headings|passages|times|minutes|hours|days|items|tests|folders|lines)\b`)},
	{"a broken sentence", regexp.MustCompile(`\b(?:are|is) whose\b`)},
	{"a space before punctuation", regexp.MustCompile(`\w [,;:.](?:\s|$)`)},
	{"an empty quotation", regexp.MustCompile(`""|''|\(\)`)},
}

// MessageFaults lists what is wrong with a message meant for a person:
// raw SQLite codes and wording, Go type names and values, and the grammar
// faults of sentences assembled from parts. Empty when it reads well.
func MessageFaults(msg string) []string {
	var out []string
	for _, f := range wordFaults {
		if m := f.re.FindString(msg); m != "" {
			out = append(out, f.what+": "+strings.TrimSpace(m))
		}
	}
	if w := repeatedWord(msg); w != "" {
		out = append(out, "a word twice: "+w+" "+w)
	}
	return out
}

// repeatedWord is a small word written twice in a row ("the the"), the
// mark of two sentence parts joined by hand; "" when there is none.
func repeatedWord(msg string) string {
	words := strings.Fields(msg)
	for i := 1; i < len(words); i++ {
		w := strings.ToLower(words[i])
		if len(w) <= 4 && w == strings.ToLower(words[i-1]) && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
			return words[i]
		}
	}
	return ""
}

// CheckWords fails the test for each fault MessageFaults finds in msg,
// saying where the message came from.
func CheckWords(tb testing.TB, where, msg string) {
	tb.Helper()
	for _, f := range MessageFaults(msg) {
		tb.Errorf("%s: %s, in:\n%s", where, f, msg)
	}
}

// SuggestedCommands are the jarvis command lines a message tells its
// reader to run, as the words a shell would pass: each `jarvis ...` in
// backquotes, with single- and double-quoted words taken as one.
func SuggestedCommands(msg string) [][]string {
	var out [][]string
	parts := strings.Split(msg, "`")
	for i := 1; i < len(parts); i += 2 {
		words, ok := shellWords(parts[i])
		if ok && len(words) > 1 && words[0] == "jarvis" {
			out = append(out, words[1:])
		}
	}
	return out
}

// shellWords splits a command line as a POSIX shell does, for the quoting
// health.Quote writes: plain words, 'single quotes' with '\” for a quote,
// and "double quotes". ok is false for what it cannot split (an open quote,
// a variable, a pipe).
func shellWords(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	in := false // inside a word
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i++
			in = true
		case c == '$' || c == '|' || c == ';' || c == '&' || c == '<' || c == '>':
			return nil, false
		case unicode.IsSpace(rune(c)):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}
