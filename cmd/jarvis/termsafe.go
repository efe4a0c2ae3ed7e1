package main

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// safeWriter is the standard output of every command but jarvis mcp: what
// it prints comes from notes (snippets, titles, paths), which may hold
// control characters, and a terminal acts on them (an escape sequence
// recolours it or moves its cursor; a bell rings). Each control character
// is shown as its symbol instead (ESC as ␛, NUL as ␀, DEL as ␡), and a C1
// control (U+0080 to U+009F) as U+FFFD. Newlines and tabs pass, and so do
// the two escapes search writes itself for bold (boldOn, boldOff). JSON
// output holds no control characters to change: encoding/json escapes
// them.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if clean(p) {
		return s.w.Write(p)
	}
	var b bytes.Buffer
	b.Grow(len(p) + 16)
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == 0x1b && (bytes.HasPrefix(p[i:], []byte(boldOn)) || bytes.HasPrefix(p[i:], []byte(boldOff))):
			n := len(boldOn)
			if bytes.HasPrefix(p[i:], []byte(boldOff)) {
				n = len(boldOff)
			}
			b.Write(p[i : i+n])
			i += n
			continue
		case c == '\n' || c == '\t':
			b.WriteByte(c)
		case c < 0x20:
			b.WriteRune(0x2400 + rune(c))
		case c == 0x7f:
			b.WriteRune(0x2421)
		case c >= 0x80:
			r, size := utf8.DecodeRune(p[i:])
			if r >= 0x80 && r <= 0x9f {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(p[i : i+size])
			}
			i += size
			continue
		default:
			b.WriteByte(c)
		}
		i++
	}
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clean reports whether p holds nothing safeWriter changes: no control
// character but newline and tab, and no UTF-8 lead byte of a C1 control.
func clean(p []byte) bool {
	for _, c := range p {
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == 0xc2 {
			return false
		}
	}
	return true
}
