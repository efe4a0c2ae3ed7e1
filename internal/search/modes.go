package search

import "context"

// Keyword is Search in keyword mode.
func (s *Service) Keyword(ctx context.Context, q Query) (Answer, error) {
	q.Mode = ModeKeyword
	return s.Search(ctx, q)
}

// Semantic is Search in semantic mode.
func (s *Service) Semantic(ctx context.Context, q Query) (Answer, error) {
	q.Mode = ModeSemantic
	return s.Search(ctx, q)
}

// Combined is Search in combined mode.
func (s *Service) Combined(ctx context.Context, q Query) (Answer, error) {
	q.Mode = ModeCombined
	return s.Search(ctx, q)
}

// Embedder is the fingerprint of the embedder semantic search uses, or ""
// when there is none yet.
func (s *Service) Embedder() string {
	return s.semantic.Embedder()
}

// VectorsAbsent says why semantic search holds no vector to search when
// vectors are stored (VectorsAbsent): being read into memory, or
// unreadable. "" when neither.
func (s *Service) VectorsAbsent() (why string, stored bool) {
	return VectorsAbsent(s.semantic.vec)
}

// VectorStores names, by vault, the store that holds the vault's vectors
// in memory (see vectors.Vectors.Stores); a vault with none loaded is absent.
func (s *Service) VectorStores() map[string]string {
	return s.semantic.vec.Stores()
}
