package embed

import "strings"

// DisplayName is the embedder a fingerprint names, as a reader knows it:
// its provider and model ("lexical hashed-ngrams-v1", "local
// all-MiniLM-L6-v2"), without the dimension and the hashes that tell one
// build of it from another. Every Fingerprint is provider/model/dim[/…],
// and a model's name may hold slashes itself; a string of another shape
// is given back as it is.
func DisplayName(fingerprint string) string {
	parts := strings.Split(fingerprint, "/")
	for i := 2; i < len(parts); i++ {
		if parts[i] != "" && strings.Trim(parts[i], "0123456789") == "" {
			return parts[0] + " " + strings.Join(parts[1:i], "/")
		}
	}
	return fingerprint
}
