// Package words writes the small pieces of English that messages share:
// a count with its noun ("1 note", "3 notes") and a list of names ("a", "b"
// and "c"). Every message a user reads counts through here, so that none
// says "1 characters".
package words

import (
	"strconv"
	"strings"
)

// Count is n and the noun, singular for exactly one: Count(1, "note") is
// "1 note", Count(0, "note") and Count(3, "note") are "0 notes" and
// "3 notes". The plural is the noun with "s"; CountAs takes another.
func Count[N Integer](n N, noun string) string {
	return CountAs(n, noun, noun+"s")
}

// CountAs is Count for a noun whose plural is not the noun with "s", or
// for a noun and its verb: CountAs(n, "note links", "notes link").
func CountAs[N Integer](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}

// Integer is what a count may be: file sizes are int64, most counts int.
type Integer interface {
	~int | ~int32 | ~int64
}

// List joins items as a sentence does: "a", "a and b", "a, b and c"; ""
// for none.
func List(items []string) string { return joined(items, "and") }

// ListOr is List with "or" for the last: the choices to pick one of.
func ListOr(items []string) string { return joined(items, "or") }

// joined is items as a sentence joins them, the last after conj.
func joined(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Quoted is List of the names each in double quotes, as messages name a
// vault or a file: `"en" and "vault-all"`.
func Quoted(names []string) string { return List(quotedEach(names)) }

// QuotedOr is Quoted with "or" for the last: the names to choose one of,
// `"en" or "vault-all"`.
func QuotedOr(names []string) string { return ListOr(quotedEach(names)) }

func quotedEach(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return q
}

// Agree is one when n is 1 and many otherwise: the verb or word that
// agrees with a count given apart, as in "1 of 5 chunks has" and "2 of 5
// chunks have".
func Agree[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// LineRange names the lines a passage spans: "line 13" for one line,
// "lines 13-15" for more. Every answer that cites a passage's lines words
// them through here, so that none says "lines 13-13".
func LineRange(start, end int) string {
	if end <= start {
		return "line " + strconv.Itoa(start)
	}
	return "lines " + strconv.Itoa(start) + "-" + strconv.Itoa(end)
}

// Lines names the lines things (nouns: links) are on, each line once in
// the order first given, with the count of the things on a line holding
// more than one: Lines([]int{3, 3}, "link") is "line 3 (2 links)", and
// Lines([]int{3, 7, 3}, "link") "lines 3 (2 links), 7".
func Lines(lines []int, noun string) string {
	var order []int
	count := map[int]int{}
	for _, l := range lines {
		if count[l] == 0 {
			order = append(order, l)
		}
		count[l]++
	}
	parts := make([]string, len(order))
	for i, l := range order {
		parts[i] = strconv.Itoa(l)
		if count[l] > 1 {
			parts[i] += " (" + Count(count[l], noun) + ")"
		}
	}
	word := "lines "
	if len(order) == 1 {
		word = "line "
	}
	return word + strings.Join(parts, ", ")
}
