package embed

import "testing"

func TestDisplayName(t *testing.T) {
	for _, tc := range []struct{ give, want string }{
		{"lexical/hashed-ngrams-v1/768/idf-8e282cee2159", "lexical hashed-ngrams-v1"},
		{"local/all-MiniLM-L6-v2/384/3f2a9c", "local all-MiniLM-L6-v2"},
		{"local/sentence-transformers/all-MiniLM-L6-v2/384/3f2a9c/p1a2b3c4d", "local sentence-transformers/all-MiniLM-L6-v2"},
		{"ollama/nomic-embed-text/768", "ollama nomic-embed-text"},
		{"openai/text-embedding-3-small/0", "openai text-embedding-3-small"},
		{"something else", "something else"},
		{"", ""},
	} {
		if got := DisplayName(tc.give); got != tc.want {
			t.Errorf("DisplayName(%q) = %q; want %q", tc.give, got, tc.want)
		}
	}
	// What each embedder really gives reads as its provider and model.
	if l := NewLexical(); DisplayName(l.Fingerprint()) != l.Provider()+" "+l.Model() {
		t.Errorf("lexical %q reads as %q", l.Fingerprint(), DisplayName(l.Fingerprint()))
	}
}
