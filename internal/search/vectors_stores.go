package search

// Stores names, by vault, the index that holds the vault's vectors in
// memory; a vault with none loaded is absent.
func (v *Vectors) Stores() map[string]string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make(map[string]string, len(v.cols))
	for name, col := range v.cols {
		if col.lex != nil {
			out[name] = "column"
		} else {
			out[name] = "dense"
		}
	}
	return out
}
