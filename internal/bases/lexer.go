package bases

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF tokKind = iota
	tNumber
	tString
	tIdent
	tRegexp
	tPunct
)

// token is one lexeme; pos is its byte offset in the source.
type token struct {
	kind tokKind
	text string // identifier, punctuation, or the decoded string
	num  float64
	re   [2]string // regexp source and flags
	pos  int
}

// maxPattern bounds the length of a regular expression, so that compiling
// one stays cheap; Go's regexp matches in linear time, so the length is the
// only knob left.
const maxPattern = 1000

// punctuation, longest first so that "==" wins over "=".
var puncts = []string{"==", "!=", ">=", "<=", "&&", "||", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ".", ":", "!", ">", "<"}

// lex splits src into tokens. A "/" starts a regular expression literal
// when a value is expected there, that is when the previous token cannot end
// a value: the rule JavaScript's own tokenizers use.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for {
		for i < len(src) {
			r, n := utf8.DecodeRuneInString(src[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += n
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tEOF, pos: i})
			return toks, hyphenatedName(src, toks)
		}
		c := src[i]
		start := i
		switch {
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && isDigit(src[i+1]) && !endsValue(toks):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			// A "." is part of the number only when a digit follows, so that
			// 5.isEmpty() calls a method on 5.
			if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && isDigit(src[k]) {
					for k < len(src) && isDigit(src[k]) {
						k++
					}
					j = k
				}
			}
			f, err := strconv.ParseFloat(src[i:j], 64)
			if err != nil {
				return nil, errAt(src, i, fmt.Sprintf("%q is not a number", src[i:j]))
			}
			toks = append(toks, token{kind: tNumber, num: f, text: src[i:j], pos: start})
			i = j
		case c == '"' || c == '\'':
			s, j, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tString, text: s, pos: start})
			i = j
		case c == '/' && !endsValue(toks):
			source, flags, j, err := lexRegexp(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tRegexp, re: [2]string{source, flags}, pos: start})
			i = j
		case isIdentStart(src[i:]):
			j := i
			for j < len(src) {
				r, n := utf8.DecodeRuneInString(src[j:])
				if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					break
				}
				j += n
			}
			toks = append(toks, token{kind: tIdent, text: src[i:j], pos: start})
			i = j
		default:
			found := false
			for _, p := range puncts {
				if strings.HasPrefix(src[i:], p) {
					toks = append(toks, token{kind: tPunct, text: p, pos: start})
					i += len(p)
					found = true
					break
				}
			}
			if !found {
				r, _ := utf8.DecodeRuneInString(src[i:])
				if c == '=' || c == '&' || c == '|' {
					return nil, errAt(src, i, fmt.Sprintf("unexpected %q: use == to compare, && for and, || for or", string(r)))
				}
				return nil, errAt(src, i, fmt.Sprintf("unexpected character %q", string(r)))
			}
		}
	}
}

// hyphenatedName refuses a name with a hyphen written as a bare property,
// such as due-date: it reads as due minus date, two properties notes rarely
// have, so the filter would quietly match nothing. The Bases syntax page
// reads such a property as note["due-date"]; a subtraction is written
// with spaces around the minus (due - date). A name is one when identifiers
// and minus signs follow each other without spaces, the last identifier is
// not called (due-today() subtracts a function's value), and none is a
// name the language gives a meaning: value, index and acc in list
// functions, values in summaries, and the keywords.
func hyphenatedName(src string, toks []token) error {
	adjacent := func(a, b token) bool { return a.pos+len(a.text) == b.pos }
	isPunct := func(t token, p string) bool { return t.kind == tPunct && t.text == p }
	for k := 0; k+2 < len(toks); k++ {
		first := toks[k]
		if first.kind != tIdent || reservedName[first.text] {
			continue
		}
		end := k
		for end+2 < len(toks) {
			minus, next := toks[end+1], toks[end+2]
			if !isPunct(minus, "-") || next.kind != tIdent || reservedName[next.text] || !adjacent(toks[end], minus) || !adjacent(minus, next) {
				break
			}
			end += 2
		}
		start := k
		k = end
		if end == start || isPunct(toks[end+1], "(") {
			continue
		}
		prefix := "note"
		if start >= 1 && isPunct(toks[start-1], ".") {
			owner := toks[max(start-2, 0)]
			if start < 2 || owner.kind != tIdent || owner.text != "note" && owner.text != "formula" ||
				start >= 3 && isPunct(toks[start-3], ".") {
				continue // a field of some other value, as in file.name-x
			}
			prefix = owner.text
		}
		name := src[first.pos : toks[end].pos+len(toks[end].text)]
		return errAt(src, first.pos, fmt.Sprintf("%s reads as a subtraction (%s): to read the property %q, write %s[%q]; to subtract, put spaces around the minus sign",
			name, strings.ReplaceAll(name, "-", " - "), name, prefix, name))
	}
	return nil
}

// reservedName are the names a hyphenated property name never starts or
// goes on with: the keywords and the names list functions and summaries
// give values.
var reservedName = map[string]bool{
	"true": true, "false": true, "null": true, "note": true, "file": true, "formula": true, "this": true,
	"value": true, "index": true, "acc": true, "values": true,
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

// endsValue says whether the last token can end a value, in which case a
// following "/" divides.
func endsValue(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	switch t.kind {
	case tNumber, tString, tIdent, tRegexp:
		return true
	case tPunct:
		return t.text == ")" || t.text == "]" || t.text == "}"
	}
	return false
}

// lexString reads a quoted string starting at src[i], decoding the escapes
// JavaScript knows (\n, \t, \r, \b, \f, \v, \0, \xHH, \uHHHH, \u{H...});
// any other escaped character stands for itself.
func lexString(src string, i int) (string, int, error) {
	q := src[i]
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		c := src[j]
		switch {
		case c == q:
			return b.String(), j + 1, nil
		case c == '\\':
			if j+1 >= len(src) {
				return "", 0, errAt(src, j, "unfinished escape at the end of the text")
			}
			e := src[j+1]
			j += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case '0':
				b.WriteByte(0)
			case 'x', 'u':
				n := 2
				if e == 'u' {
					n = 4
				}
				end := j + n
				if e == 'u' && j < len(src) && src[j] == '{' {
					k := strings.IndexByte(src[j:], '}')
					if k < 0 {
						return "", 0, errAt(src, j-2, `unfinished \u{...} escape`)
					}
					end = j + k + 1
					r, err := strconv.ParseUint(src[j+1:end-1], 16, 32)
					if err != nil || r > unicode.MaxRune {
						return "", 0, errAt(src, j-2, `expected a hexadecimal code point in \u{...}`)
					}
					b.WriteRune(rune(r))
					j = end
					continue
				}
				if end > len(src) {
					return "", 0, errAt(src, j-2, fmt.Sprintf(`expected %d hexadecimal digits after \%c`, n, e))
				}
				r, err := strconv.ParseUint(src[j:end], 16, 32)
				if err != nil {
					return "", 0, errAt(src, j-2, fmt.Sprintf(`expected %d hexadecimal digits after \%c`, n, e))
				}
				b.WriteRune(rune(r))
				j = end
			default:
				r, n := utf8.DecodeRuneInString(src[j-1:])
				b.WriteRune(r)
				j += n - 1
			}
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, errAt(src, i, fmt.Sprintf("text starting here has no closing %c", q))
}

// lexRegexp reads /source/flags starting at src[i]. A "/" inside a
// character class or after a backslash does not end the pattern.
func lexRegexp(src string, i int) (string, string, int, error) {
	j := i + 1
	inClass := false
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\\':
			j += 2
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			source := src[i+1 : j]
			k := j + 1
			for k < len(src) && (src[k] >= 'a' && src[k] <= 'z' || src[k] >= 'A' && src[k] <= 'Z') {
				k++
			}
			if source == "" {
				return "", "", 0, errAt(src, i, "expected a pattern between the slashes of a regular expression")
			}
			return source, src[j+1 : k], k, nil
		case c == '\n':
			j = len(src)
			continue
		}
		j++
	}
	return "", "", 0, errAt(src, i, "regular expression starting here has no closing /")
}
