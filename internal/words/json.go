package words

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONSyntax says where and why data, which encoding/json refused with
// err, stops being JSON, for someone who will open it in an editor: the
// line and column of the character at fault, counted as editors count
// them from 1, and the cause in plain words rather than the decoder's:
// "line 4, column 3: a comma before '}'". Every JSON file a user may have
// written by hand (Obsidian's settings, Claude Desktop's config) is
// worded here. ok is false when err is not a syntax error.
func JSONSyntax(data []byte, err error) (words string, ok bool) {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return "", false
	}
	msg := syn.Error()
	if strings.HasPrefix(msg, "unexpected end") {
		// Point just past the last character there is.
		end := len(bytes.TrimRight(data, " \t\r\n"))
		return position(data, end) + ": the text ends before the JSON is complete", true
	}
	// The decoder's offset counts the byte it refused.
	at := min(max(int(syn.Offset)-1, 0), len(data))
	return position(data, at) + ": " + jsonCause(data, at, msg), true
}

// jsonCause names what is wrong with the character at data[at], which the
// decoder refused with msg.
func jsonCause(data []byte, at int, msg string) string {
	if at >= len(data) {
		return "the JSON is not complete"
	}
	c := data[at]
	next := byte(0)
	if at+1 < len(data) {
		next = data[at+1]
	}
	before := bytes.TrimRight(data[:at], " \t\r\n")
	switch {
	case c == '/' && (next == '/' || next == '*'):
		return "a comment (// or /*), which JSON does not allow; remove it"
	case (c == '}' || c == ']') && len(before) > 0 && before[len(before)-1] == ',':
		return fmt.Sprintf("a comma before '%c'", c)
	case c == '\'':
		return "a single quote, where JSON takes double quotes"
	case strings.HasSuffix(msg, "in string literal"):
		return "a line break, tab or other control character inside quotes; JSON writes a line break as \\n and a tab as \\t"
	case strings.HasSuffix(msg, "after object key:value pair"), strings.HasSuffix(msg, "after array element"):
		return "a comma is missing before " + charWords(data[at:])
	case strings.HasSuffix(msg, "looking for beginning of object key string") && isNameStart(c):
		return "a key without double quotes, which JSON puts around every key"
	case strings.HasSuffix(msg, "after top-level value"):
		return "more text after the end of the JSON"
	}
	return charWords(data[at:]) + " is out of place"
}

// position is "line L, column C" of data[at].
func position(data []byte, at int) string {
	before := data[:at]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	col := utf8.RuneCount(before[start:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// charWords names the character that rest starts with: "the character
// 'x'", or its escape when it cannot be seen.
func charWords(rest []byte) string {
	r, _ := utf8.DecodeRune(rest)
	return "the character " + strconv.QuoteRune(r)
}

func isNameStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
