package wordpiece

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// tokenizerJSON is what FromTokenizerJSON reads of a Hugging Face
// tokenizers file.
type tokenizerJSON struct {
	Truncation *struct {
		MaxLength int `json:"max_length"`
	} `json:"truncation"`
	Padding *struct {
		PadToken string `json:"pad_token"`
	} `json:"padding"`
	AddedTokens []struct {
		ID         int64  `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
	} `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        struct {
		Type                    string          `json:"type"`
		UnkToken                *string         `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
		Merges                  json.RawMessage `json:"merges"`
		Vocab                   json.RawMessage `json:"vocab"`
	} `json:"model"`
}

// FromTokenizerJSON reads a Hugging Face tokenizer.json whose model is
// WordPiece, with a BertNormalizer (or Lowercase, NFD then StripAccents) and
// a BertPreTokenizer (or WhitespaceSplit with Punctuation). Any other model,
// normalizer or pre-tokenizer is refused with an error matching
// ErrUnsupported that names it.
//
// Every entry of added_tokens (for BERT: [PAD], [UNK], [CLS], [SEP],
// [MASK]) is matched literally in the text before normalisation and encoded
// as its id, as the tokenizers library does for tokens marked
// "normalized": false; this package matches them that way whatever the
// flag says. lstrip and rstrip change nothing here, since whitespace never
// reaches a token; single_word is honoured. The ids of [CLS], [SEP] and the
// others come from the vocabulary, not from the post_processor.
func FromTokenizerJSON(data []byte) (*Tokenizer, error) {
	t, err := fromTokenizerJSON(data)
	if err != nil {
		var u *UnsupportedError
		if errors.As(err, &u) && u.File == "tokenizer.json" {
			return nil, err
		}
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	return t, nil
}

func fromTokenizerJSON(data []byte) (*Tokenizer, error) {
	var f tokenizerJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	m := f.Model
	switch {
	case m.Type == "WordPiece":
	case m.Type == "" && m.ContinuingSubwordPrefix != nil && m.MaxInputCharsPerWord != nil && len(m.Merges) == 0:
		// Files without a model type: these fields are WordPiece's alone.
	case m.Type == "":
		return nil, unsupported("tokenizer.json", "the model has no type, and is not WordPiece")
	default:
		return nil, unsupported("tokenizer.json", "model type %q is not supported (only WordPiece)", m.Type)
	}

	opts, err := normalizerOptions(f.Normalizer)
	if err != nil {
		return nil, err
	}
	if err := checkPreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}

	var vocab64 map[string]int64
	if err := json.Unmarshal(m.Vocab, &vocab64); err != nil {
		return nil, fmt.Errorf("model vocab: %w", err)
	}
	if len(vocab64) == 0 {
		return nil, errors.New("model vocab is empty")
	}
	// Ids must be dense enough that the table of tokens by id stays the
	// size of the vocabulary.
	limit := int64(2*(len(vocab64)+len(f.AddedTokens)) + 1024)
	vocab := make(map[string]int32, len(vocab64)+len(f.AddedTokens))
	size := 0
	setID := func(tok string, id int64) error {
		if id < 0 || id >= limit {
			return fmt.Errorf("token %q has id %d, outside 0..%d", tok, id, limit-1)
		}
		vocab[tok] = int32(id)
		size = max(size, int(id)+1)
		return nil
	}
	for tok, id := range vocab64 {
		if err := setID(tok, id); err != nil {
			return nil, err
		}
	}
	var added []addedToken
	for _, a := range f.AddedTokens {
		if err := setID(a.Content, a.ID); err != nil {
			return nil, fmt.Errorf("added_tokens: %w", err)
		}
		added = append(added, addedToken{text: a.Content, id: int32(a.ID), singleWord: a.SingleWord})
	}

	if m.UnkToken != nil {
		opts.UnknownToken = *m.UnkToken
	}
	if m.MaxInputCharsPerWord != nil {
		opts.MaxInputCharsPerWord = *m.MaxInputCharsPerWord
	}
	if f.Padding != nil {
		opts.PADToken = f.Padding.PadToken
	}
	maxLenFromFile := f.Truncation != nil && f.Truncation.MaxLength > 0
	if maxLenFromFile {
		opts.MaxLen = f.Truncation.MaxLength
	}
	prefix := "##"
	if m.ContinuingSubwordPrefix != nil {
		prefix = *m.ContinuingSubwordPrefix
	}
	t, err := newTokenizer(vocab, size, opts, prefix, added)
	if err != nil {
		return nil, err
	}
	t.maxLenFromFile = maxLenFromFile
	return t, nil
}

// normalizerJSON is one normalizer of tokenizer.json.
type normalizerJSON struct {
	Type               string            `json:"type"`
	CleanText          *bool             `json:"clean_text"`
	HandleChineseChars *bool             `json:"handle_chinese_chars"`
	StripAccents       *bool             `json:"strip_accents"`
	Lowercase          *bool             `json:"lowercase"`
	Normalizers        []json.RawMessage `json:"normalizers"`
}

// normalizerOptions turns the normalizer of tokenizer.json into Options.
// BertNormalizer sets them all ("strip_accents": null follows "lowercase");
// a Sequence may add Lowercase, NFD followed by StripAccents, and Strip,
// which trims whitespace and so changes nothing once words are split.
func normalizerOptions(raw json.RawMessage) (Options, error) {
	opts := Options{KeepControl: true}
	strip := false
	var steps []normalizerJSON
	if err := flattenNormalizer(raw, &steps); err != nil {
		return opts, err
	}
	nfd := false
	for _, n := range steps {
		switch n.Type {
		case "BertNormalizer":
			lower := boolOr(n.Lowercase, true)
			opts.KeepControl = opts.KeepControl && !boolOr(n.CleanText, true)
			opts.SplitCJK = opts.SplitCJK || boolOr(n.HandleChineseChars, true)
			opts.Lowercase = opts.Lowercase || lower
			strip = strip || boolOr(n.StripAccents, lower)
		case "Lowercase":
			opts.Lowercase = true
		case "NFD":
			nfd = true
		case "StripAccents":
			if !nfd {
				return opts, unsupported("tokenizer.json", "normalizer StripAccents without NFD before it is not supported")
			}
			strip = true
		case "Strip":
		default:
			return opts, unsupported("tokenizer.json", "normalizer %q is not supported (only BertNormalizer, Lowercase, NFD with StripAccents, Strip)", n.Type)
		}
	}
	if nfd && !strip {
		return opts, unsupported("tokenizer.json", "normalizer NFD without StripAccents is not supported")
	}
	opts.StripAccents = &strip
	return opts, nil
}

func flattenNormalizer(raw json.RawMessage, out *[]normalizerJSON) error {
	if isNull(raw) {
		return nil
	}
	var n normalizerJSON
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("normalizer: %w", err)
	}
	if n.Type != "Sequence" {
		*out = append(*out, n)
		return nil
	}
	for _, sub := range n.Normalizers {
		if err := flattenNormalizer(sub, out); err != nil {
			return err
		}
	}
	return nil
}

// preTokenizerJSON is one pre_tokenizer of tokenizer.json.
type preTokenizerJSON struct {
	Type          string            `json:"type"`
	Behavior      string            `json:"behavior"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
}

// checkPreTokenizer accepts BertPreTokenizer, and WhitespaceSplit with
// Punctuation (isolated), which split text the same way: at whitespace, and
// around every punctuation character.
func checkPreTokenizer(raw json.RawMessage) error {
	if isNull(raw) {
		return unsupported("tokenizer.json", "a tokenizer without a pre_tokenizer is not supported (only BertPreTokenizer)")
	}
	var p preTokenizerJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("pre_tokenizer: %w", err)
	}
	steps := []preTokenizerJSON{p}
	if p.Type == "Sequence" {
		steps = steps[:0]
		for _, sub := range p.PreTokenizers {
			var s preTokenizerJSON
			if err := json.Unmarshal(sub, &s); err != nil {
				return fmt.Errorf("pre_tokenizer: %w", err)
			}
			steps = append(steps, s)
		}
	}
	var bert, whitespace, punct bool
	for _, s := range steps {
		switch s.Type {
		case "BertPreTokenizer":
			bert = true
		case "WhitespaceSplit":
			whitespace = true
		case "Punctuation":
			if s.Behavior != "" && s.Behavior != "Isolated" {
				return unsupported("tokenizer.json", "pre_tokenizer Punctuation with behavior %q is not supported (only Isolated)", s.Behavior)
			}
			punct = true
		default:
			return unsupported("tokenizer.json", "pre_tokenizer %q is not supported (only BertPreTokenizer, or WhitespaceSplit with Punctuation)", s.Type)
		}
	}
	if !bert && !(whitespace && punct) {
		return unsupported("tokenizer.json", "pre_tokenizer must split at whitespace and punctuation (BertPreTokenizer, or WhitespaceSplit with Punctuation)")
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
