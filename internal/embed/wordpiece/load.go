package wordpiece

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrUnsupported is matched (errors.Is) by the error for a tokenizer this
// package cannot reproduce: another model type, normaliser or
// pre-tokeniser, or a SentencePiece vocabulary.
var ErrUnsupported = errors.New("unsupported tokenizer")

// UnsupportedError says which part of which file is not supported.
type UnsupportedError struct {
	File   string // "tokenizer.json", "vocab.txt", "tokenizer_config.json"
	Detail string
}

func (e *UnsupportedError) Error() string { return e.File + ": " + e.Detail }

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

func unsupported(file, format string, args ...any) error {
	return &UnsupportedError{File: file, Detail: fmt.Sprintf(format, args...)}
}

// maxModelLen is the largest model_max_length taken as a real limit;
// transformers writes a huge number (1e30) for "no limit".
const maxModelLen = 1 << 20

// Load reads the tokenizer of a model directory: dir/tokenizer.json when it
// exists, else dir/vocab.txt with the settings of dir/tokenizer_config.json
// (do_lower_case, strip_accents, tokenize_chinese_chars, the special token
// names), BERT's uncased defaults where that file is missing or silent. The
// maximum length is tokenizer.json's truncation length, else
// tokenizer_config.json's model_max_length, else DefaultMaxLen.
func Load(dir string) (*Tokenizer, error) {
	t, err := load(dir)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", dir, err)
	}
	return t, nil
}

func load(dir string) (*Tokenizer, error) {
	cfg, err := readTokenizerConfig(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err == nil {
		t, err := FromTokenizerJSON(data)
		if err != nil {
			return nil, err
		}
		if !t.maxLenFromFile && cfg.maxLen > 0 {
			t.maxLen = cfg.maxLen
		}
		return t, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "vocab.txt"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("neither tokenizer.json nor vocab.txt is there")
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opts, err := cfg.options()
	if err != nil {
		return nil, err
	}
	return FromVocab(f, opts)
}

// tokenizerConfig is what Load reads of tokenizer_config.json.
type tokenizerConfig struct {
	DoLowerCase          *bool           `json:"do_lower_case"`
	StripAccents         *bool           `json:"strip_accents"`
	TokenizeChineseChars *bool           `json:"tokenize_chinese_chars"`
	DoBasicTokenize      *bool           `json:"do_basic_tokenize"`
	ModelMaxLength       *float64        `json:"model_max_length"`
	UnkToken             json.RawMessage `json:"unk_token"`
	CLSToken             json.RawMessage `json:"cls_token"`
	SEPToken             json.RawMessage `json:"sep_token"`
	PADToken             json.RawMessage `json:"pad_token"`
	MaskToken            json.RawMessage `json:"mask_token"`

	maxLen int
}

// readTokenizerConfig reads path; a missing file is an empty config.
func readTokenizerConfig(path string) (tokenizerConfig, error) {
	var cfg tokenizerConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("tokenizer_config.json: %w", err)
	}
	if m := cfg.ModelMaxLength; m != nil && *m >= 1 && *m <= maxModelLen && *m == math.Trunc(*m) {
		cfg.maxLen = int(*m)
	}
	return cfg, nil
}

// options turns the config into Options, BERT's uncased defaults where it
// is silent.
func (c tokenizerConfig) options() (Options, error) {
	opts := DefaultOptions()
	if c.DoBasicTokenize != nil && !*c.DoBasicTokenize {
		return opts, unsupported("tokenizer_config.json", "do_basic_tokenize false is not supported")
	}
	if c.DoLowerCase != nil {
		opts.Lowercase = *c.DoLowerCase
	}
	opts.StripAccents = c.StripAccents
	if c.TokenizeChineseChars != nil {
		opts.SplitCJK = *c.TokenizeChineseChars
	}
	opts.MaxLen = c.maxLen
	var err error
	for _, f := range []struct {
		raw json.RawMessage
		to  *string
	}{
		{c.UnkToken, &opts.UnknownToken},
		{c.CLSToken, &opts.CLSToken},
		{c.SEPToken, &opts.SEPToken},
		{c.PADToken, &opts.PADToken},
		{c.MaskToken, &opts.MaskToken},
	} {
		if *f.to, err = tokenName(f.raw); err != nil {
			return opts, fmt.Errorf("tokenizer_config.json: %w", err)
		}
	}
	return opts, nil
}

// tokenName reads a special token as tokenizer_config.json writes it: a
// string, or an object with its content.
func tokenName(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", fmt.Errorf("special token %s: %w", raw, err)
	}
	return obj.Content, nil
}

// FromVocab reads a vocab.txt, one token a line, the id of a token being its
// line number from 0. The five special tokens named in opts are matched
// literally in the text, as BERT's tokenizers do.
func FromVocab(r io.Reader, opts Options) (*Tokenizer, error) {
	vocab := make(map[string]int32, 32*1024)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var n int32
	for sc.Scan() {
		line := sc.Text()
		if n == 0 && strings.HasPrefix(strings.TrimSpace(line), "{") {
			return nil, unsupported("vocab.txt", "the vocabulary is JSON, not one token a line (a BPE vocab.json?)")
		}
		// As in Hugging Face tokenizers, trailing whitespace (a CR) is not
		// part of the token; a repeated token keeps its last line.
		vocab[strings.TrimRightFunc(line, unicode.IsSpace)] = n
		n++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vocab.txt: %w", err)
	}
	specials := []string{
		orDefault(opts.PADToken, "[PAD]"), orDefault(opts.UnknownToken, "[UNK]"),
		orDefault(opts.CLSToken, "[CLS]"), orDefault(opts.SEPToken, "[SEP]"),
		orDefault(opts.MaskToken, "[MASK]"),
	}
	var added []addedToken
	for _, s := range specials {
		if id, ok := vocab[s]; ok && s != "" {
			added = append(added, addedToken{text: s, id: id})
		}
	}
	t, err := newTokenizer(vocab, int(n), opts, orDefault(opts.ContinuingSubwordPrefix, "##"), added)
	if err != nil {
		return nil, fmt.Errorf("vocab.txt: %w", err)
	}
	return t, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// newTokenizer builds a tokenizer over vocab, whose ids are below size.
// prefix is the continuing-subword prefix, taken as it is.
func newTokenizer(vocab map[string]int32, size int, opts Options, prefix string, added []addedToken) (*Tokenizer, error) {
	if err := checkNotSentencePiece(vocab); err != nil {
		return nil, err
	}
	t := &Tokenizer{
		vocab:     vocab,
		tokens:    make([]string, size),
		clean:     !opts.KeepControl,
		lowercase: opts.Lowercase,
		splitCJK:  opts.SplitCJK,
		maxChars:  opts.MaxInputCharsPerWord,
		maxLen:    opts.MaxLen,
	}
	t.stripAccents = opts.Lowercase
	if opts.StripAccents != nil {
		t.stripAccents = *opts.StripAccents
	}
	if t.maxChars <= 0 {
		t.maxChars = 100
	}
	if t.maxLen <= 0 {
		t.maxLen = DefaultMaxLen
	}
	// A token longer than any word that can be split is never matched, so
	// the trie leaves it out; that also bounds the trie's depth.
	maxTokenBytes := len(prefix) + utf8.UTFMax*t.maxChars
	entries := make([]trieEntry, 0, len(vocab))
	for tok, id := range vocab {
		if id < 0 || int(id) >= size {
			return nil, fmt.Errorf("token %q has id %d, outside 0..%d", tok, id, size-1)
		}
		t.tokens[id] = tok
		if tok != "" && len(tok) <= maxTokenBytes {
			entries = append(entries, trieEntry{tok, id})
		}
	}
	t.trie = buildTrie(entries, prefix)

	var ok bool
	unk := orDefault(opts.UnknownToken, "[UNK]")
	if t.unk, ok = vocab[unk]; !ok {
		return nil, fmt.Errorf("the unknown token %q is not in the vocabulary", unk)
	}
	t.cls = lookup(vocab, orDefault(opts.CLSToken, "[CLS]"))
	t.sep = lookup(vocab, orDefault(opts.SEPToken, "[SEP]"))
	t.pad = lookup(vocab, orDefault(opts.PADToken, "[PAD]"))
	t.mask = lookup(vocab, orDefault(opts.MaskToken, "[MASK]"))

	// Longest first, so that the first match at a position is the longest.
	slices.SortStableFunc(added, func(a, b addedToken) int { return len(b.text) - len(a.text) })
	for _, a := range added {
		if a.text == "" {
			continue
		}
		t.added = append(t.added, a)
		t.addedFirst[a.text[0]] = true
	}
	t.asciiTables()
	return t, nil
}

func lookup(vocab map[string]int32, tok string) int32 {
	if id, ok := vocab[tok]; ok {
		return id
	}
	return -1
}

// checkNotSentencePiece refuses the vocabularies of RoBERTa, XLM-R, MPNet
// and SentencePiece models, whose tokens ("<s>", "</s>", "▁word") mean a
// different tokenisation than BERT's even when the file looks alike.
func checkNotSentencePiece(vocab map[string]int32) error {
	_, hasS := vocab["<s>"]
	_, hasEndS := vocab["</s>"]
	_, hasCLS := vocab["[CLS]"]
	if hasS && hasEndS && !hasCLS {
		return unsupported("vocabulary", "it has <s> and </s> but no [CLS]: a RoBERTa/SentencePiece vocabulary, not BERT WordPiece")
	}
	spm := 0
	for tok := range vocab {
		if strings.HasPrefix(tok, "\u2581") {
			spm++
		}
	}
	if spm > 0 && spm*100 >= len(vocab) {
		return unsupported("vocabulary", "%d tokens start with the SentencePiece mark \u2581: not a BERT WordPiece vocabulary", spm)
	}
	return nil
}
