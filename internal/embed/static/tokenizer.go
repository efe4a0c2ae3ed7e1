package static

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"unicode/utf8"
)

// vocabFacts are what pooling needs to know about a tokenizer.json: how
// many token ids it can produce, which id is its unknown token, and the
// median length of its tokens (model2vec clips text by it).
type vocabFacts struct {
	size        int   // distinct tokens, added tokens included
	maxID       int   // largest token id
	unkID       int32 // -1 if the model names no unknown token
	medianRunes int
}

// tokenizerFile is the part of a Hugging Face tokenizer.json read here.
type tokenizerFile struct {
	Model struct {
		Type     string          `json:"type"`
		UnkToken *string         `json:"unk_token"`
		Vocab    json.RawMessage `json:"vocab"`
	} `json:"model"`
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
}

// readVocabFacts reads path, a tokenizer.json.
func readVocabFacts(path string) (vocabFacts, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return vocabFacts{}, err
	}
	var tf tokenizerFile
	if err := json.Unmarshal(raw, &tf); err != nil {
		return vocabFacts{}, fmt.Errorf("parse %s: %w", path, err)
	}
	vocab := map[string]int{}
	switch tf.Model.Type {
	case "WordPiece", "BPE", "WordLevel", "":
		if err := json.Unmarshal(tf.Model.Vocab, &vocab); err != nil {
			return vocabFacts{}, fmt.Errorf("parse %s: model.vocab: %w", path, err)
		}
	case "Unigram":
		// A list of [piece, score] pairs; a piece's id is its position.
		var pieces [][2]any
		if err := json.Unmarshal(tf.Model.Vocab, &pieces); err != nil {
			return vocabFacts{}, fmt.Errorf("parse %s: model.vocab: %w", path, err)
		}
		for i, p := range pieces {
			s, ok := p[0].(string)
			if !ok {
				return vocabFacts{}, fmt.Errorf("parse %s: model.vocab[%d] is not a [piece, score] pair", path, i)
			}
			vocab[s] = i
		}
	default:
		return vocabFacts{}, fmt.Errorf("%s: tokenizer model type %q is not supported", path, tf.Model.Type)
	}
	for _, at := range tf.AddedTokens {
		if _, ok := vocab[at.Content]; !ok {
			vocab[at.Content] = at.ID
		}
	}
	facts := vocabFacts{size: len(vocab), unkID: -1, maxID: -1}
	lengths := make([]int, 0, len(vocab))
	for tok, id := range vocab {
		if id < 0 {
			return vocabFacts{}, fmt.Errorf("%s: token %q has negative id %d", path, tok, id)
		}
		facts.maxID = max(facts.maxID, id)
		lengths = append(lengths, utf8.RuneCountInString(tok))
	}
	if tf.Model.UnkToken != nil {
		id, ok := vocab[*tf.Model.UnkToken]
		if !ok {
			return vocabFacts{}, fmt.Errorf("%s: unknown token %q is not in the vocabulary", path, *tf.Model.UnkToken)
		}
		facts.unkID = int32(id)
	}
	facts.medianRunes = medianFloor(lengths)
	return facts, nil
}

// medianFloor is the median of v (the mean of the middle two for an even
// count), rounded down, as int(numpy.median(v)) gives it.
func medianFloor(v []int) int {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
