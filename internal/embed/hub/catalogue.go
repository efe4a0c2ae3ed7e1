// Package hub gets embedding models from the Hugging Face hub onto this
// machine and finds them again: a catalogue of models jarvis knows how to
// run, pinned to one commit each; resumable, hash-checked downloads that
// install a model whole or not at all; and the models folder they live in
// (JARVIS_MODELS, or jarvis/models in the user cache folder).
//
// A model folder put there by hand, or anywhere else, works too: wherever a
// model name is taken, a path to a model folder is as good (see Resolve).
package hub

import "strings"

// Kind says how a model turns text into a vector.
type Kind string

const (
	// KindStatic models look each token's vector up in a table and average
	// them: no neural network at query time, so they are fast on any CPU.
	KindStatic Kind = "static"
	// KindTransformer models run a BERT encoder over the text and pool its
	// output: slower, and better at meaning that depends on word order.
	KindTransformer Kind = "transformer"
)

// Model is a model of the catalogue: one the jarvis embedders are known to
// run, with what a person needs to choose it.
type Model struct {
	// Name is the short name used on the command line (bge-small-en-v1.5).
	Name string
	// Repo is the Hugging Face repository, owner/name.
	Repo string
	// Revision is the commit of Repo that is downloaded, pinned so that a
	// name always means the same bytes.
	Revision string
	Kind     Kind
	Layout   Layout
	// Dimensions is the length of the model's vectors.
	Dimensions int
	// Size is the approximate download in bytes.
	Size int64
	// GoodFor says in one line what the model is for.
	GoodFor string
	// QueryPrefix and PassagePrefix are put before a search query and
	// before a note's text, for models trained with them.
	QueryPrefix   string
	PassagePrefix string
}

const mb = 1_000_000

// bgeQueryInstruction is what bge-small-en-v1.5's model card says to put
// before a short query searching for longer passages; passages get nothing.
const bgeQueryInstruction = "Represent this sentence for searching relevant passages: "

// catalogue is ordered from the smallest and fastest to the slowest.
//
// Every revision is a real commit of its repository, found where public code
// pins it (benchmark model registries, sha-pinned download scripts, Hugging
// Face cache snapshot paths), each one seen holding the files its layout
// needs. To move a model to a newer commit, check that the commit has those
// files, then change the revision here.
var catalogue = []Model{
	{
		Name: "potion-base-8M", Repo: "minishlab/potion-base-8M",
		Revision: "bf8b056651a2c21b8d2565580b8569da283cab23",
		Kind:     KindStatic, Layout: LayoutModel2Vec, Dimensions: 256, Size: 31 * mb,
		GoodFor: "the smallest and fastest: general English notes on any machine",
	},
	{
		Name: "potion-retrieval-32M", Repo: "minishlab/potion-retrieval-32M",
		Revision: "6fc8051fab2a1e0ee76689cf08c853792ac285e7",
		Kind:     KindStatic, Layout: LayoutModel2Vec, Dimensions: 512, Size: 130 * mb,
		GoodFor: "fast English search, tuned for finding notes from a question",
	},
	{
		Name: "static-retrieval-mrl-en-v1", Repo: "sentence-transformers/static-retrieval-mrl-en-v1",
		Revision: "f60985c706f192d45d218078e49e5a8b6f15283a",
		Kind:     KindStatic, Layout: LayoutStaticEmbedding, Dimensions: 1024, Size: 126 * mb,
		GoodFor: "fast English search with wider vectors than the potion models",
	},
	{
		Name: "all-MiniLM-L6-v2", Repo: "sentence-transformers/all-MiniLM-L6-v2",
		Revision: "1110a243fdf4706b3f48f1d95db1a4f5529b4d41",
		Kind:     KindTransformer, Layout: LayoutBERT, Dimensions: 384, Size: 91 * mb,
		GoodFor: "the classic small transformer: similar sentences and notes, English",
	},
	{
		Name: "gte-small", Repo: "thenlper/gte-small",
		Revision: "17e1f347d17fe144873b1201da91788898c639cd",
		Kind:     KindTransformer, Layout: LayoutBERT, Dimensions: 384, Size: 68 * mb,
		GoodFor: "general English search and similarity, no prefixes to get right",
	},
	{
		Name: "bge-small-en-v1.5", Repo: "BAAI/bge-small-en-v1.5",
		Revision: "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
		Kind:     KindTransformer, Layout: LayoutBERT, Dimensions: 384, Size: 134 * mb,
		GoodFor:     "English search: short questions finding longer notes",
		QueryPrefix: bgeQueryInstruction,
	},
	{
		Name: "e5-small-v2", Repo: "intfloat/e5-small-v2",
		Revision: "dca8b1a9dae0d4575df2bf423a5edb485a431236",
		Kind:     KindTransformer, Layout: LayoutBERT, Dimensions: 384, Size: 134 * mb,
		GoodFor:     "English search: questions against passages",
		QueryPrefix: "query: ", PassagePrefix: "passage: ",
	},
}

// Catalogue returns the models jarvis knows, from the fastest to the
// slowest. The slice is a copy.
func Catalogue() []Model {
	return append([]Model(nil), catalogue...)
}

// Lookup finds a catalogue model by its name or its repository, ignoring
// case.
func Lookup(name string) (Model, bool) {
	for _, m := range catalogue {
		if strings.EqualFold(m.Name, name) || strings.EqualFold(m.Repo, name) {
			return m, true
		}
	}
	return Model{}, false
}
