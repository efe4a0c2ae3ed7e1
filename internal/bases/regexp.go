package bases

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// compileRegexp turns a JavaScript regular expression literal into Go's
// regexp. The flags i, m and s map to Go's; g (replace every match) is kept
// for replace(); u and y are accepted, u being Go's default and y (sticky)
// meaningless for the functions Bases offers. Patterns Go cannot run in
// linear time (back-references, look-around) are refused, which also means
// no pattern can run away.
func compileRegexp(source, flags string) (*Regexp, error) {
	if len(source) > maxPattern {
		return nil, fmt.Errorf("regular expression is longer than %d characters", maxPattern)
	}
	var goFlags string
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			if !strings.ContainsRune(goFlags, f) {
				goFlags += string(f)
			}
		case 'g', 'u', 'y':
		default:
			return nil, fmt.Errorf("unknown regular expression flag %q (expected g, i, m, s, u or y)", string(f))
		}
	}
	pattern := source
	if goFlags != "" {
		pattern = "(?" + goFlags + ")" + pattern
	}
	if at, what, instead := backtracking(source); at >= 0 {
		return nil, &patternError{at: at, msg: fmt.Sprintf("regular expression /%s/ cannot be used: %s is not supported, "+
			"as patterns here run in linear time, without look-ahead, look-behind or back-references; %s", source, what, instead)}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		msg, at := err.Error(), -1
		if e, ok := err.(*syntax.Error); ok {
			msg = string(e.Code)
			if e.Expr != "" {
				msg += ": " + e.Expr
				at = strings.Index(source, e.Expr)
			}
		}
		return nil, &patternError{at: at, msg: fmt.Sprintf("regular expression /%s/ cannot be used: %s", source, msg)}
	}
	return &Regexp{Source: source, Flags: flags, re: re}, nil
}

// patternError is a pattern that cannot be used; at is the byte offset in
// the pattern of the part at fault, or -1.
type patternError struct {
	at  int
	msg string
}

func (e *patternError) Error() string { return e.msg }

// regexpErrAt is the parse error for a regular expression literal starting
// at pos in src that compileRegexp refused: at the part of the pattern at
// fault when it is known, else at the literal.
func regexpErrAt(src string, pos int, err error) *Error {
	if pe, ok := err.(*patternError); ok && pe.at >= 0 {
		return errAt(src, pos+1+pe.at, pe.msg) // 1: the opening "/"
	}
	return errAt(src, pos, err.Error())
}

// backtracking finds the first construct of a JavaScript pattern that only
// a backtracking matcher runs: look-ahead, look-behind and back-references
// by number or name. It returns its byte offset in source and its name, or
// -1, with what to write instead. Inside a character class these are
// plain characters and escapes.
func backtracking(source string) (at int, what, instead string) {
	const (
		lookaround = "test each part in its own condition and join them with && (and ! for a part that must not match) instead"
		backref    = "write the repeated text out instead"
	)
	inClass := false
	for i := 0; i < len(source); i++ {
		rest := source[i:]
		switch c := source[i]; {
		case c == '\\' && i+1 < len(source):
			if n := source[i+1]; !inClass && n >= '1' && n <= '9' {
				j := i + 2
				for j < len(source) && isDigit(source[j]) {
					j++
				}
				return i, "the back-reference " + source[i:j], backref
			}
			if !inClass && strings.HasPrefix(rest, `\k<`) {
				return i, "the named back-reference \\k<...>", backref
			}
			i++ // the escaped character
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case strings.HasPrefix(rest, "(?="):
			return i, "the look-ahead (?=...)", lookaround
		case strings.HasPrefix(rest, "(?!"):
			return i, "the negative look-ahead (?!...)", lookaround
		case strings.HasPrefix(rest, "(?<="):
			return i, "the look-behind (?<=...)", lookaround
		case strings.HasPrefix(rest, "(?<!"):
			return i, "the negative look-behind (?<!...)", lookaround
		}
	}
	return -1, "", ""
}

func (r *Regexp) global() bool { return strings.ContainsRune(r.Flags, 'g') }

// expandJS expands a JavaScript replacement string for one match: $$ is a
// dollar sign, $& the match, $1 to $99 a group, $<name> a named group; a
// reference to a group that does not exist stays as written.
func expandJS(repl, src string, re *regexp.Regexp, m []int) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '$' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		n := repl[i+1]
		switch {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '&':
			b.WriteString(src[m[0]:m[1]])
			i++
		case n == '<':
			end := strings.IndexByte(repl[i:], '>')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			name := repl[i+2 : i+end]
			if g := re.SubexpIndex(name); g > 0 && m[2*g] >= 0 {
				b.WriteString(src[m[2*g]:m[2*g+1]])
			}
			i += end
		case n >= '0' && n <= '9':
			g := int(n - '0')
			used := 1
			if i+2 < len(repl) && repl[i+2] >= '0' && repl[i+2] <= '9' {
				if g2 := g*10 + int(repl[i+2]-'0'); g2 <= re.NumSubexp() {
					g, used = g2, 2
				}
			}
			if g == 0 || g > re.NumSubexp() {
				b.WriteByte(c)
				continue
			}
			if m[2*g] >= 0 {
				b.WriteString(src[m[2*g]:m[2*g+1]])
			}
			i += used
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
