package write

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzApplyEdits checks that no note and no edit list makes ApplyEdits
// panic, that an edit list that fails gives back no bytes, and that
// append and prepend of text t grow the note by t (in the note's line
// ends) and at most one line end for prepend, three for append (one to
// end the note's last line, a blank line, one to end t).
func FuzzApplyEdits(f *testing.F) {
	f.Add([]byte(sample), `[{"op":"append","text":"x"}]`)
	f.Add([]byte("---\r\na: 1\r\n---\r\n# A\r\nx"), `[{"op":"prepend","text":"p\nq"},{"op":"replace_section","heading":"A","text":"y"}]`)
	f.Add([]byte("\uFEFF---\ntags: [a]\n---\n"), `[{"op":"set_properties","properties":{"tags":["b"],"d":"2024-01-01","x":null}}]`)
	f.Add([]byte("a a\n"), `[{"op":"replace","find":"a","replace":"$1","count":2}]`)
	f.Add([]byte("x"), `[{"op":"content","text":"y\r\nz"}]`)
	f.Fuzz(func(t *testing.T, src []byte, list string) {
		var edits []Edit
		if json.Unmarshal([]byte(list), &edits) != nil || len(src) > 1<<16 {
			return
		}
		orig := bytes.Clone(src)
		out, err := ApplyEdits(src, edits)
		if !bytes.Equal(src, orig) {
			t.Fatal("ApplyEdits changed its input")
		}
		if err != nil {
			if out != nil {
				t.Fatalf("error %v, and bytes too", err)
			}
			return
		}
		if len(edits) != 1 || (edits[0].Op != OpAppend && edits[0].Op != OpPrepend) {
			return
		}
		_, body := splitBOM(src)
		nl := lineEnd(body)
		grown := len(out) - len(src)
		text := len(withLineEnds(edits[0].Text, nl))
		most := 1
		if edits[0].Op == OpAppend {
			most = 3
		}
		if extra := grown - text; extra < 0 || extra%len(breakOf(nl)) != 0 || extra/len(breakOf(nl)) > most {
			t.Fatalf("%s of %d bytes grew the note by %d", edits[0].Op, text, grown)
		}
	})
}
