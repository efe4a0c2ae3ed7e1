// Package mcp is jarvis's Model Context Protocol server: the tools an
// assistant calls to search and read Obsidian vaults, and notes as
// resources. Every tool stays registered whatever is down and says when its
// answer is degraded and why.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/big"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Options configure the server.
type Options struct {
	Version string
	Logger  *slog.Logger
	// Vaults are the vaults served: every tool and resource answers
	// within them, and reading notes from disk needs nothing else.
	Vaults []config.Vault
	// State says how fresh the index is; nil means nothing indexes in the
	// background and the index is taken as ready.
	State IndexState
	// Metrics, when set, times every tool call for health-status.
	Metrics Metrics
	// Limits bound the requests in flight; a zero field takes its value
	// from DefaultLimits.
	Limits Limits
	// AnswerTokens is the most one tool answer takes, text and structured
	// content together (see Tokens); DefaultAnswerTokens when 0.
	AnswerTokens int
	// Invocation is the server's flags that choose the database and
	// vaults: a jarvis command an answer suggests (jarvis undo) repeats
	// them, so that it acts on the same database.
	Invocation health.Invocation
}

// instructions tell the model which tool to use when.
const instructions = `jarvis searches the user's Obsidian vaults (Markdown notes joined by [[wikilinks]]).
- search-vault: keyword search (exact words, names, phrases in quotes, prefix*). Start here when the user names something.
- search-semantic: passages close to a description; by meaning with a neural embedder, by shared words and word pieces with the default lexical one.
- search-combined: both, fused; a good default for questions.
- search-graph: notes linked to or from a note, to explore a topic's neighbourhood.
- related-notes: notes close to one note (by links, meaning and tags), links it could make, and unlinked mentions of it.
- build-context: the best passages for a question across the vaults, fitted to a token budget, each with its citation; use it to gather what the notes say before answering.
- read-note: the full text of a note (or one section) with its links and backlinks; every search result's vault and path can be passed to it.
- query-notes: notes by their properties, as an Obsidian Base runs: a .base file, a base block in a note, or a filter such as status == "active" && due <= today() + "7d".
- periodic-note: the user's daily (weekly, monthly, quarterly, yearly) note for today or another date, found by the vault's own settings.
- list-vaults: which vaults exist and how fresh their index is.
- health-status: what is wrong when results look incomplete.
Results say "degraded" when part of jarvis is unavailable; the text explains what was used instead.`

// New builds the MCP server with the tools given, each bound to the
// services it was built from, and the note resources.
func New(list []Tool, res Resources, opts Options) *mcpsdk.Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "jarvis", Title: "Jarvis: Obsidian vault search", Version: opts.Version, Icons: []mcpsdk.Icon{serverIcon}},
		&mcpsdk.ServerOptions{Instructions: instructions, Logger: slog.New(sdkHandler{log.Handler()}), PageSize: 200,
			Capabilities: capabilities(), SetCacheable: setCacheable})
	ceiling := opts.AnswerTokens
	if ceiling <= 0 {
		ceiling = DefaultAnswerTokens
	}
	ceiling = max(ceiling, minAnswerTokens)
	base := tools{vaults: opts.Vaults, st: opts.State, metrics: opts.Metrics, log: log, answerTokens: ceiling, inv: opts.Invocation,
		inputs: map[string]*jsonschema.Schema{}, offered: map[string]bool{}}
	// Every tool that finds no note says why from what the index holds
	// (unready), whether or not it lists the vaults itself.
	base.stats = res.stats
	for _, tool := range list {
		t := base
		tool.bind(&t)
		tool.add(&t, s)
	}
	r := base
	if res.bind != nil {
		res.bind(&r)
	}
	registerResources(s, &r)
	// recoverPanics comes first, so that a panic anywhere in the chain,
	// in these middlewares too, is an error answer and never the end of
	// the server.
	s.AddReceivingMiddleware(recoverPanics(log), timeCalls(opts.Metrics, base.inputs), newInFlight(opts.Limits).middleware, nullArguments, writesOff(base.offered), friendlyArgumentErrors(base.inputs), answerCeiling(ceiling))
	return s
}

// capabilities are what the server declares, in initialize and
// server/discover alike (the SDK answers both from them, adding tools and
// resources, which are registered). Prompts are declared because
// prompts/list is answered (with none): MCP 2026-07-28 has a server that
// answers a method declare it. Logging stays declared, as it was by
// default, for the clients that set a level.
func capabilities() *mcpsdk.ServerCapabilities {
	//lint:ignore SA1019 logging is deprecated from 2026-07-28 on, and kept for the clients of the earlier versions, to which it was declared
	return &mcpsdk.ServerCapabilities{Logging: &mcpsdk.LoggingCapabilities{}, Prompts: &mcpsdk.PromptCapabilities{}}
}

// writesOff answers a call of a write tool this server does not offer (no
// vault is writable) by saying how the user turns writing on, rather than
// that no such tool exists; offered holds the tools registered.
func writesOff(offered map[string]bool) mcpsdk.Middleware {
	return func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			if r, ok := req.(*mcpsdk.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
				if !offered[r.Params.Name] && ToolWrites(r.Params.Name) {
					return &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: writingOff(r.Params.Name)}}}, nil
				}
			}
			return next(ctx, method, req)
		}
	}
}

// writingOff says that what (a write tool, or a tool's argument that
// writes) is off because no vault is writable, and how the user turns
// writing on. Every refusal of a write on a server without a writable
// vault is worded here.
func writingOff(what string) string {
	return what + " is off in this server: no vault is writable, and jarvis changes no note unless the user asks it to; " + allowWriting
}

// writeArguments are the arguments of a reading tool that write, which
// its schema has only when some vault is writable: given to a server
// without one, they are refused as writingOff says, not as unknown.
var writeArguments = map[string][]string{ToolPeriodicNote: periodicWrites.in}

// tools is what a handler works with: what every tool shares, and the
// services of its own tool, which Tool.bind puts in place. A service the
// tool was not built with stays nil, and use reports it unavailable.
type tools struct {
	vaults  []config.Vault
	st      IndexState
	metrics Metrics
	log     *slog.Logger
	// answerTokens is the ceiling of one answer (see answerCeiling).
	answerTokens int
	// inputs are the input schemas of the tools registered, by name,
	// shared by every tool's copy (see addTool).
	inputs map[string]*jsonschema.Schema
	// offered are the names of the tools registered, shared alike.
	offered map[string]bool

	keyword  KeywordSearch
	semantic SemanticSearch
	graph    LinkGraph
	parser   NoteParser
	stored   StoredNotes
	notes    Notes
	stats    Vaults
	health   Health
	pack     ContextPack
	related  RelatedNotes
	clock    Clock
	// vaultFiles reads a vault's files for query-notes.
	vaultFiles VaultFiles
	// writer changes notes for the write tools.
	writer NoteWriter
	// inv is the server's flags, for the jarvis commands answers suggest.
	inv health.Invocation
}

// readOnly are the annotations of every jarvis tool: they read the vaults
// and index and change nothing, and they reach nothing outside the user's
// own files.
func readOnly(title string) *mcpsdk.ToolAnnotations {
	closed := false
	return &mcpsdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// sdkHandler logs what the SDK logs at INFO (each session connected and
// ended, with an empty id over stdio) at DEBUG: a user reads jarvis's own
// lines at INFO, and the SDK's only when looking into a session.
type sdkHandler struct{ slog.Handler }

func (h sdkHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.Handler.Enabled(ctx, sdkLevel(level))
}

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = sdkLevel(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{h.Handler.WithAttrs(attrs)}
}

func (h sdkHandler) WithGroup(name string) slog.Handler { return sdkHandler{h.Handler.WithGroup(name)} }

// sdkLevel is the level a line the SDK logs at level is logged at.
func sdkLevel(level slog.Level) slog.Level {
	if level == slog.LevelInfo {
		return slog.LevelDebug
	}
	return level
}

// recoverPanics turns a panic in any handler into a tool error (for tool
// calls) or a protocol error, so that one bad note or bug never stops the
// server. Each kind of panic is logged with its stack once; when it comes
// again, a line with the count is logged at the 2nd, 4th, 8th... time, so
// that a client repeating a failing call cannot fill the log.
func recoverPanics(log *slog.Logger) mcpsdk.Middleware {
	seen := &panicCounts{n: map[string]int{}}
	return func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (res mcpsdk.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					switch n := seen.add(method, p); {
					case n == 1:
						log.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
					case n&(n-1) == 0:
						log.Error("handler panicked again", "method", method, "panic", p, "times", n)
					}
					if method == "tools/call" {
						r := &mcpsdk.CallToolResult{}
						r.SetError(fmt.Errorf("jarvis hit an internal error answering this call (%v); try again, or try another tool; the server keeps running", p))
						res, err = r, nil
						return
					}
					res, err = nil, fmt.Errorf("internal error: %v", p)
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// panicCounts counts the panics of each method and message.
type panicCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// maxPanicKinds bounds how many kinds of panic are told apart; beyond it,
// every new kind is logged with its stack.
const maxPanicKinds = 1000

// add counts one panic and returns how many of its kind there have been.
func (c *panicCounts) add(method string, p any) int {
	key := method + "\x00" + fmt.Sprint(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.n[key]; !ok && len(c.n) >= maxPanicKinds {
		return 1
	}
	c.n[key]++
	return c.n[key]
}

// nullArguments reads a tool call whose arguments are null as one without
// arguments ({}), which is how a client that has nothing to pass may send
// them; the SDK would otherwise apply the schema's defaults to a nil map.
// Every tool call comes through here, whatever the tool.
func nullArguments(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if r, ok := req.(*mcpsdk.CallToolRequest); ok && method == "tools/call" && r.Params != nil &&
			string(bytes.TrimSpace(r.Params.Arguments)) == "null" {
			r.Params.Arguments = json.RawMessage("{}")
		}
		return next(ctx, method, req)
	}
}

// friendlyArgumentErrors rewords the SDK's schema validation failures
// ("validating \"arguments\": validating root: ...") into an instruction a
// model can act on, reading what was expected from the tool's input
// schema in inputs.
func friendlyArgumentErrors(inputs map[string]*jsonschema.Schema) mcpsdk.Middleware {
	return func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/call" || err != nil {
				return res, err
			}
			r, ok := res.(*mcpsdk.CallToolResult)
			if !ok || !r.IsError {
				return res, err
			}
			var input *jsonschema.Schema
			var tool string
			var args json.RawMessage
			if call, ok := req.(*mcpsdk.CallToolRequest); ok && call.Params != nil {
				tool = call.Params.Name
				input = inputs[tool]
				args = call.Params.Arguments
			}
			for _, c := range r.Content {
				tc, ok := c.(*mcpsdk.TextContent)
				if !ok || !strings.HasPrefix(tc.Text, `validating "arguments"`) {
					continue
				}
				if off := writeArgumentOff(tc.Text, tool, input); off != "" {
					tc.Text = off
					continue
				}
				detail := explainSchemaError(tc.Text, input, args)
				tc.Text = invalidArguments(detail, "fix it (the tool's input schema lists the allowed values)")
			}
			return res, err
		}
	}
}

// writeArgumentOff is the answer to a call of tool refused by the schema
// validation message msg for an argument that writes (writeArguments)
// which the tool's schema, input, lacks because no vault is writable:
// writingOff's words. "" for any other refusal.
func writeArgumentOff(msg, tool string, input *jsonschema.Schema) string {
	_, names, ok := strings.Cut(msg, "unexpected additional properties ")
	if !ok {
		return ""
	}
	for _, name := range unknownArguments(names) {
		if slices.Contains(writeArguments[tool], name) && argumentSchema(input, name) == nil {
			return writingOff(fmt.Sprintf("%s's %s argument", tool, name))
		}
	}
	return ""
}

// unknownArguments are the names in the SDK's list of arguments the
// schema does not have: ["append" "etag"].
func unknownArguments(list string) []string {
	var names []string
	rest := strings.TrimPrefix(list, "[")
	for {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			break
		}
		n, _ := strconv.Unquote(q)
		names = append(names, n)
		rest = strings.TrimLeft(rest[len(q):], " ")
	}
	if len(names) == 0 {
		names = []string{strings.Trim(list, `[]"`)}
	}
	return names
}

// invalidArguments is the text of a tool error for arguments that cannot
// be used: what is wrong, then what to do before calling again. Every
// such error is worded here.
func invalidArguments(detail, fix string) string {
	return "Invalid arguments: " + detail + ". " + strings.ToUpper(fix[:1]) + fix[1:] + " and call again."
}

// argumentError is an error of the arguments a handler finds itself,
// worded as invalidArguments words the schema's.
type argumentError struct{ detail, fix string }

func (e argumentError) Error() string { return invalidArguments(e.detail, e.fix) }

var (
	schemaBound  = regexp.MustCompile(`^(-?[0-9/.e+-]+) is (?:greater|less) than ([0-9.]+)$`)
	schemaLength = regexp.MustCompile(`contains (\d+) Unicode code points, (?:more|fewer|less) than (\d+)$`)
	schemaItems  = regexp.MustCompile(`array length (\d+) is (?:greater|less) than (\d+)$`)
	schemaType   = regexp.MustCompile(`has type "?(\w+)"?, want (?:one of )?\[?"?(\w+)"?`)
)

// explainSchemaError turns one of the SDK's validation messages into words:
// "depth must be at most 5; got 9".
//
// The message is a chain of schema locations, then the keyword that failed
// and what failed it: `validating "arguments": validating root: validating
// /properties/depth: maximum: 9 is greater than 5.000000`. What failed it
// may be the caller's value of any size and content, so the locations are
// read from the front, only the end of the value is looked at, and nothing
// of it is quoted longer than quoteArg allows. What a value of the wrong
// type should have been is read from input, the tool's input schema, when
// given: the message names "an array of strings", not the null an optional
// list's schema also allows. args, the call's arguments, tell which item
// of a list holds a field the schema does not have.
func explainSchemaError(msg string, input *jsonschema.Schema, args json.RawMessage) string {
	rest := strings.TrimPrefix(msg, `validating "arguments": `)
	prop, item, field, where := "an argument", false, "", ""
	for strings.HasPrefix(rest, "validating ") {
		loc, after, ok := strings.Cut(rest[len("validating "):], ": ")
		if !ok {
			break
		}
		if strings.HasPrefix(loc, "/") {
			where = loc
		}
		if _, p, ok := strings.Cut(loc, "/properties/"); ok {
			var under string
			prop, under, _ = strings.Cut(p, "/")
			item = under == "items"
			// A field of the objects a list holds: sort's direction.
			field, _ = strings.CutPrefix(under, "items/properties/")
			if field == under {
				field = ""
			}
		}
		rest = after
	}
	if field != "" && !strings.Contains(field, "/") {
		return explainFieldError(prop, field, rest, input, args)
	}
	keyword, detail, _ := strings.Cut(rest, ": ")
	// The end of the detail holds the numbers; the value comes before.
	tail := detail[max(0, len(detail)-120):]
	switch keyword {
	case "required":
		names := strings.Trim(strings.TrimPrefix(detail, "missing properties: "), "[]")
		return "missing required argument " + clip(strings.ReplaceAll(names, `"`, ""), maxQuoted)
	case "maxLength", "minLength":
		if m := schemaLength.FindStringSubmatch(tail); m != nil {
			if keyword == "maxLength" {
				return fmt.Sprintf("%s must be at most %s long; it has %s", prop, characters(m[2]), m[1])
			}
			return fmt.Sprintf("%s must be at least %s long", prop, characters(m[2]))
		}
	case "maximum", "minimum":
		if m := schemaBound.FindStringSubmatch(detail); m != nil {
			// The SDK prints the number as a fraction: 3/2 for 1.5.
			got := m[1]
			if r, ok := new(big.Rat).SetString(got); ok {
				f, _ := r.Float64()
				got = number(f)
			}
			limit := strings.TrimRight(strings.TrimRight(m[2], "0"), ".")
			if keyword == "maximum" {
				return fmt.Sprintf("%s must be at most %s; got %s", prop, limit, got)
			}
			return fmt.Sprintf("%s must be at least %s; got %s", prop, limit, got)
		}
	case "enum":
		msg := prop + " must be one of the allowed values"
		if p := argumentSchema(input, prop); p != nil && len(p.Enum) > 0 {
			var allowed []string
			for _, e := range p.Enum {
				allowed = append(allowed, fmt.Sprintf("%q", fmt.Sprint(e)))
			}
			msg = fmt.Sprintf("%s must be %s", prop, words.ListOr(allowed))
		}
		// The value comes first: "sideways does not equal any of: [...]".
		if i := strings.LastIndex(detail, " does not equal any of: "); i >= 0 {
			msg += "; got " + quoteArg(detail[:i])
		}
		return msg
	case "maxItems", "minItems":
		if m := schemaItems.FindStringSubmatch(tail); m != nil {
			n, _ := strconv.Atoi(m[2])
			bound := "at most"
			if keyword == "minItems" {
				bound = "at least"
			}
			return fmt.Sprintf("%s takes %s %s; got %s", prop, bound, words.Count(n, itemNoun(prop)), m[1])
		}
	case "type":
		if m := schemaType.FindStringSubmatch(tail); m != nil {
			want := withArticle(m[2])
			if p := argumentSchema(input, prop); p != nil {
				if item && p.Items != nil {
					p = p.Items
				}
				if e := expected(p); e != "" {
					want = e
				}
			}
			if item {
				return fmt.Sprintf("each item of %s must be %s, not %s", prop, want, withArticle(m[1]))
			}
			return fmt.Sprintf("%s must be %s, not %s", prop, want, withArticle(m[1]))
		}
	}
	if strings.HasPrefix(rest, "unmarshaling arguments") {
		return `the arguments must be a JSON object with one member per argument, such as {"query": "coffee"}`
	}
	if names, ok := strings.CutPrefix(rest, "unexpected additional properties "); ok {
		unknown := unknownArguments(names)
		if where != "" {
			if path, object, noun := unknownFieldAt(where, input, args, unknown[0]); path != "" {
				return unknownFields(path, object, noun, unknown)
			}
		}
		takes := "; the tool takes " + fieldsTaken(input)
		if input == nil || len(input.Properties) == 0 {
			takes = ""
		}
		if len(unknown) == 1 {
			said := "there is no argument " + quoteArg(unknown[0])
			if input != nil {
				if near := words.Nearest(unknown[0], slices.Collect(maps.Keys(input.Properties)), 2); near != "" {
					said += "; did you mean " + near + "?"
					if takes != "" {
						takes = " The tool takes " + fieldsTaken(input)
					}
				}
			}
			return said + takes
		}
		for i, n := range unknown {
			unknown[i] = quoteArg(n)
		}
		return "there are no arguments " + words.List(unknown) + takes
	}
	if prop != "an argument" {
		return prop + ": " + clip(rest, maxQuoted)
	}
	return clip(rest, maxQuoted)
}

// fieldsTaken says which arguments a tool takes, or which fields an
// object argument takes, from its schema, the required first and marked
// so: "query_note_path (required), depth, direction and vault".
func fieldsTaken(input *jsonschema.Schema) string {
	if input == nil {
		return ""
	}
	var names []string
	for _, n := range input.Required {
		if input.Properties[n] != nil {
			names = append(names, n+" (required)")
		}
	}
	var rest []string
	for n := range input.Properties {
		if !slices.Contains(input.Required, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return words.List(append(names, rest...))
}

// unknownFieldAt finds, in a call's arguments args, the object that the
// schema location where (such as /properties/edits/items) validates and
// that has the field name: its path as the caller wrote it ("edits[1]"),
// its schema, and what it is ("edit", an item of edits). "" when it is
// not found, or where is the arguments themselves.
func unknownFieldAt(where string, input *jsonschema.Schema, args json.RawMessage, name string) (string, *jsonschema.Schema, string) {
	var v any
	if input == nil || json.Unmarshal(args, &v) != nil {
		return "", nil, ""
	}
	var walk func(v any, s *jsonschema.Schema, segs []string, path, noun string) (string, *jsonschema.Schema, string)
	walk = func(v any, s *jsonschema.Schema, segs []string, path, noun string) (string, *jsonschema.Schema, string) {
		if s == nil {
			return "", nil, ""
		}
		if len(segs) == 0 {
			if m, ok := v.(map[string]any); ok && path != "" {
				if _, has := m[name]; has {
					return path, s, noun
				}
			}
			return "", nil, ""
		}
		switch {
		case segs[0] == "properties" && len(segs) > 1:
			m, _ := v.(map[string]any)
			p := segs[1]
			if path != "" {
				p = path + "." + p
			}
			return walk(m[segs[1]], s.Properties[segs[1]], segs[2:], p, segs[1])
		case segs[0] == "items":
			list, _ := v.([]any)
			for i, e := range list {
				if p, cs, n := walk(e, s.Items, segs[1:], fmt.Sprintf("%s[%d]", path, i), itemNoun(noun)); p != "" {
					return p, cs, n
				}
			}
		}
		return "", nil, ""
	}
	return walk(v, input, strings.Split(strings.TrimPrefix(where, "/"), "/"), "", "")
}

// unknownFields says that the object at path has no such fields: "edits[0]
// has no field "append"; an edit takes op (required), text, ..., such as
// {"op":"append","text":"..."}", the example read from its schema.
func unknownFields(path string, object *jsonschema.Schema, noun string, unknown []string) string {
	quoted := make([]string, len(unknown))
	for i, n := range unknown {
		quoted[i] = quoteArg(n)
	}
	said := path + " has no field " + quoted[0]
	if len(quoted) > 1 {
		said = path + " has no fields " + words.List(quoted)
	}
	if len(unknown) == 1 {
		if near := words.Nearest(unknown[0], slices.Collect(maps.Keys(object.Properties)), 2); near != "" {
			said += "; did you mean " + near + "?"
		}
	}
	if len(object.Properties) == 0 {
		return said
	}
	takes := withArticle(noun) + " takes " + fieldsTaken(object)
	if strings.HasSuffix(said, "?") {
		said += " " + strings.ToUpper(takes[:1]) + takes[1:]
	} else {
		said += "; " + takes
	}
	if len(object.Examples) > 0 {
		if ex, err := json.Marshal(object.Examples[0]); err == nil {
			said += ", such as " + string(ex)
		}
	}
	return said
}

// explainFieldError is explainSchemaError for a field of the objects a
// list argument holds ("the direction of each sort key"): the enum and
// type failures in words, naming the field as the caller wrote it
// (fieldPath).
func explainFieldError(list, field, rest string, input *jsonschema.Schema, args json.RawMessage) string {
	var fs *jsonschema.Schema
	if p := argumentSchema(input, list); p != nil && p.Items != nil {
		fs = p.Items.Properties[field]
	}
	name := fieldPath(list, field, fs, args)
	keyword, detail, _ := strings.Cut(rest, ": ")
	switch keyword {
	case "enum":
		msg := name + " must be one of the allowed values"
		if fs != nil && len(fs.Enum) > 0 {
			var allowed []string
			for _, e := range fs.Enum {
				v := fmt.Sprint(e)
				if !slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, strconv.Quote(v)) }) {
					allowed = append(allowed, strconv.Quote(v))
				}
			}
			msg = fmt.Sprintf("%s must be %s", name, words.ListOr(allowed))
		}
		if i := strings.LastIndex(detail, " does not equal any of: "); i >= 0 {
			msg += "; got " + quoteArg(detail[:i])
		}
		return msg
	case "type":
		if m := schemaType.FindStringSubmatch(detail[max(0, len(detail)-120):]); m != nil {
			want := withArticle(m[2])
			if fs != nil {
				if e := expected(fs); e != "" {
					want = e
				}
			}
			return fmt.Sprintf("%s must be %s, not %s", name, want, withArticle(m[1]))
		}
	}
	return name + ": " + clip(rest, maxQuoted)
}

// fieldPath names field of an item of the list argument list as the
// other argument errors name an item (unknownFields, "edits[0] has no
// field"): "edits[0].op", the first item whose field fs, the field's
// schema, refuses; "op in each item of edits" when none is found.
func fieldPath(list, field string, fs *jsonschema.Schema, args json.RawMessage) string {
	var call map[string]json.RawMessage
	var items []map[string]json.RawMessage
	if fs != nil && json.Unmarshal(args, &call) == nil && json.Unmarshal(call[list], &items) == nil {
		if r, err := fs.Resolve(nil); err == nil {
			for i, item := range items {
				raw, ok := item[field]
				var v any
				if !ok || json.Unmarshal(raw, &v) != nil {
					continue
				}
				if r.Validate(v) != nil {
					return fmt.Sprintf("%s[%d].%s", list, i, field)
				}
			}
		}
	}
	return fmt.Sprintf("%s in each item of %s", field, list)
}

// number writes a number as a person would: an integer without an
// exponent (1000000, not 1e+06).
func number(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// itemNoun is what the items of a list argument are, for a message about
// how many it takes.
func itemNoun(prop string) string {
	switch prop {
	case "paths":
		return "note"
	case "alternatives":
		return "alternative"
	case "edits":
		return "edit"
	}
	return "item"
}

// argumentSchema is the schema of input's property prop, nil when there
// is none.
func argumentSchema(input *jsonschema.Schema, prop string) *jsonschema.Schema {
	if input == nil {
		return nil
	}
	return input.Properties[prop]
}

// withArticle puts "a" or "an" before a JSON type name: "an integer",
// "a string"; null, a value, has none.
func withArticle(noun string) string {
	if noun == "null" {
		return noun
	}
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// characters is a length from a schema message, "1 character" or "20
// characters".
func characters(n string) string {
	i, err := strconv.Atoi(n)
	if err != nil {
		return n + " characters"
	}
	return words.Count(i, "character")
}
