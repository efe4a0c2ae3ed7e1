package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"

	"golang.org/x/term"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// errHelp means --help was asked for and printed.
var errHelp = errors.New("help printed")

// stringList is a flag that may be repeated.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// common are the flags every command that reads vaults takes.
type common struct {
	vaults   stringList
	db       string
	config   string
	embedder string
	verbose  bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.Var(&c.vaults, "vault", "a vault, by its folder or its name in the config file (`PATH|NAME`; repeatable)")
	fs.StringVar(&c.db, "db", "", "the SQLite database `file`")
	fs.StringVar(&c.config, "config", "", "the config `file` (YAML or TOML)")
	fs.StringVar(&c.embedder, "embedder", "", "the embedding `provider` for semantic search: lexical (default), ollama, openai, or a local model's name or folder")
	fs.BoolVar(&c.verbose, "verbose", false, "log details to stderr")
	fs.BoolVar(&c.verbose, "v", false, "short for --verbose")
}

// load settles the configuration from the flags, the environment and the
// config file.
func (c *common) load(e *env) (config.Config, error) {
	return config.Load(config.Flags{Vaults: c.vaults, DB: c.db, ConfigFile: c.config, Embedder: c.embedder}, e.getenv)
}

// checkVaults fails with one line saying what to do when no vault is
// configured, two vaults would index the same notes, or a vault folder
// cannot be read.
func checkVaults(e *env, cfg config.Config) error {
	if err := checkConfigured(e, cfg); err != nil {
		return err
	}
	return folderError(cfg, false)
}

// folderError is the usage error for a vault whose folder cannot be read:
// the first such vault when every is false, and only when none of the
// vaults can be read when every is true (search answers from the vaults
// it can read, and says which it could not).
func folderError(cfg config.Config, every bool) error {
	var first error
	for _, v := range cfg.Vaults {
		why := index.FolderProblem(v.Path)
		if why == "" {
			if every {
				return nil
			}
			continue
		}
		if first == nil {
			names := ""
			if len(cfg.FileVaults) > 0 && cfg.VaultSource != "config file" {
				names = " (the config file names " + words.Quoted(cfg.FileVaults) + ")"
			}
			first = fmt.Errorf("vault %q: its folder %s %s; check the path or name given with %s%s: %w",
				v.Name, v.Path, why, cfg.VaultOrigin(), names, errUsage)
		}
		if !every {
			return first
		}
	}
	return first
}

// checkConfigured is checkVaults without the reading of the folders, for
// the server, which serves while a folder cannot be read: it fails when no
// vault is configured or two vaults would index the same notes.
func checkConfigured(e *env, cfg config.Config) error {
	if len(cfg.Vaults) == 0 {
		return fmt.Errorf("no vault given: %s: %w", cfg.NoVaultFix(e.getenv), errUsage)
	}
	if o := cfg.Overlap(); o != nil {
		return fmt.Errorf("%w: %w", o, errUsage)
	}
	return nil
}

// repeatFlags makes the command that err suggests, when the database
// holds a vault under another folder or other rules, repeat the flags of
// this run (cfg.Invocation), so that it works when pasted. The binding
// error is returned itself: a wrapping made before the flags were set
// holds its text as it was then, and its own text says all. It is a
// usage error (exit status 2) wherever it is met: the run's flags or
// configuration clash with the database.
func repeatFlags(err error, cfg config.Config) error {
	var be *index.BindingError
	if errors.As(err, &be) {
		be.Invocation = cfg.Invocation()
		return fmt.Errorf("%w: %w", be, errUsage)
	}
	// Obsidian's settings unreadable is said alike, whole, with its fix.
	var ue *index.ObsidianUnknownError
	if errors.As(err, &ue) {
		return ue
	}
	return err
}

// usageIfRefused makes err a usage error (exit status 2) when it holds a
// Bases expression refused when read (bases.RefusedWhenRead): the flag
// that gave it, --filter, --formula or --where, must change. query and
// search both ask it.
// exprFlagError words the refusal of a Bases expression given as the
// value of flag (--filter, --where) in one sentence that names the flag:
// "--where `status ==`, column 10: expected a value after "=="", a usage
// error; an error of another kind is given back as it is, and ok is false.
func exprFlagError(flag string, err error) (error, bool) {
	var be *bases.Error
	if !errors.As(err, &be) || !bases.RefusedWhenRead(err) {
		return err, false
	}
	return fmt.Errorf("%s %s: %w", flag, strings.TrimPrefix(be.Error(), "expression "), errUsage), true
}

func usageIfRefused(err error) error {
	if bases.RefusedWhenRead(err) {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	return err
}

// commandFlags are the flags of fs given on the command line, other than
// the common ones cfg.Invocation repeats, as they would be typed again.
func commandFlags(fs *flag.FlagSet) []string {
	var shared common
	commonFlags := flag.NewFlagSet("", flag.ContinueOnError)
	shared.register(commonFlags)
	var out []string
	fs.Visit(func(f *flag.Flag) {
		if commonFlags.Lookup(f.Name) != nil {
			return
		}
		switch list, ok := f.Value.(*stringList); {
		case ok:
			for _, v := range *list {
				out = append(out, "--"+f.Name, v)
			}
		case isBool(f) && f.Value.String() == "true":
			out = append(out, "--"+f.Name)
		case isBool(f):
			out = append(out, "--"+f.Name+"=false")
		default:
			out = append(out, "--"+f.Name, f.Value.String())
		}
	})
	return out
}

// logger writes to stderr, never stdout: stdout carries JSON output.
// Without --verbose it writes warnings and errors for a person to read
// (terminalHandler), leaving to the command's output what that says
// itself; with it, every record down to the details, as structured lines.
func (c *common) logger(e *env) *slog.Logger {
	if !c.verbose {
		return slog.New(newTerminalHandler(e.stderr))
	}
	return slog.New(structuredHandler(e.stderr, slog.LevelDebug))
}

// structuredHandler writes records from level up as structured lines, for
// --verbose and for the server's log. The index.Reported mark, which says
// what a terminal leaves out, is a note to the terminal, not a fact for
// the reader: it is not written.
func structuredHandler(w io.Writer, level slog.Level) slog.Handler {
	return slog.NewTextHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if index.IsReported(a) {
				return slog.Attr{}
			}
			return databaseTrouble(a, level <= slog.LevelDebug)
		},
	})
}

// configPointer is the line each command that reads the configuration
// ends its help with, in place of the reference itself.
const configPointer = "More settings (environment variables, config file): run `jarvis help config`.\n"

// newFlagSet makes a flag set whose --help prints usage, a description, the
// flags as the README writes them (--flag) and, for commands that read the
// configuration, where to find its reference. synopsis is the command and
// its arguments without flags: the usage line lists the flags from fs
// (see usageLine). The flag package's own messages are dropped: parse
// words errors itself.
func newFlagSet(name, synopsis, description string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := e.stdout
		fmt.Fprintf(w, "%s\n\n%s\n", usageLine(synopsis, fs), description)
		if hasFlags(fs) {
			fmt.Fprint(w, "\nFlags:\n")
			printFlags(w, fs)
		}
		if fs.Lookup("vault") != nil {
			fmt.Fprintf(w, "\n%s", configPointer)
		}
	}
	return fs
}

// usageLine is "Usage: " and synopsis followed by every flag of fs, each
// as [--name VALUE], [--name] for a switch, [--name=false] for a switch
// that is on by default, and with "..." when it may be repeated; a
// one-letter short form is left to the flag list. Lines wrap at
// helpWidth.
func usageLine(synopsis string, fs *flag.FlagSet) string {
	words := []string{"Usage: " + synopsis}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := strings.CutPrefix(f.Usage, "short for --"); ok && len(f.Name) == 1 {
			return
		}
		word := "--" + f.Name
		switch {
		case isBool(f) && f.DefValue == "true":
			word += "=false"
		case !isBool(f):
			word += " " + valueName(f)
		}
		word = "[" + word + "]"
		if _, ok := f.Value.(*stringList); ok {
			word += "..."
		}
		words = append(words, word)
	})
	const indent = "       " // under the synopsis, past "Usage: "
	var b strings.Builder
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= helpWidth:
			line += " " + w
		default:
			b.WriteString(line + "\n")
			line = indent + w
		}
	}
	b.WriteString(line)
	return b.String()
}

// hasFlags reports whether fs defines any flag: a command without one
// shows no "Flags:" heading.
func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// goTypeNames are the value names the flag package makes up from a
// flag's Go type when its usage names none in backquotes; help shows the
// word for what the value is instead.
var goTypeNames = map[string]string{
	"int": "N", "uint": "N", "float": "NUMBER", "duration": "DURATION", "string": "TEXT", "value": "VALUE",
}

// valueName is the placeholder help writes after --flag, in capitals,
// in both the usage line and the flag list: the word in backquotes in
// the flag's usage, or a plain word for its type; "" for a switch.
func valueName(f *flag.Flag) string {
	name, _ := flag.UnquoteUsage(f)
	if isBool(f) || name == "" {
		return ""
	}
	if plain, ok := goTypeNames[name]; ok {
		return plain
	}
	return strings.ToUpper(name)
}

// withDefault adds a flag's default to its usage: inside the usage's
// closing parenthesis when it ends in one, as in "(1 to 50, default 10)",
// rather than a second parenthesis after it.
func withDefault(usage, def string) string {
	if strings.HasSuffix(usage, ")") {
		return strings.TrimSuffix(usage, ")") + ", default " + def + ")"
	}
	return usage + " (default " + def + ")"
}

// isBool reports whether f is a switch, given without a value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagColumn is where flag descriptions start, and helpWidth where they
// wrap: help then reads in an 80-column terminal.
const (
	flagColumn = 26
	helpWidth  = 79
)

// printFlags lists the flags of fs with two dashes, as the README and most
// tools write them; the flag package's PrintDefaults writes one. A
// one-letter flag whose usage is "short for --NAME" is shown beside NAME
// (-v, --verbose) rather than on a line of its own.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	short := map[string]string{} // long name -> its one-letter form
	fs.VisitAll(func(f *flag.Flag) {
		if long, ok := strings.CutPrefix(f.Usage, "short for --"); ok && len(f.Name) == 1 {
			short[long] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := strings.CutPrefix(f.Usage, "short for --"); ok && len(f.Name) == 1 {
			return
		}
		_, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if s, ok := short[f.Name]; ok {
			left = "-" + s + ", " + left
		}
		if name := valueName(f); name != "" {
			left += " " + name
		}
		if !isZeroDefault(f) {
			usage = withDefault(usage, f.DefValue)
		}
		lines := wrapWords(usage, helpWidth-flagColumn)
		if len(left)+2 > flagColumn-2 {
			fmt.Fprintf(w, "  %s\n", left)
		} else {
			fmt.Fprintf(w, "  %-*s%s\n", flagColumn-2, left, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintf(w, "%*s%s\n", flagColumn, "", l)
		}
	})
}

// isZeroDefault reports whether a flag's default is its type's zero value,
// which help leaves unsaid.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return true
	}
	return false
}

// wrapWords breaks text into lines of at most width bytes at spaces; a
// word longer than width gets a line of its own.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// parse parses flags, turning --help into errHelp and bad flags into usage
// errors. Positional arguments are refused.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes no positional arguments (got %q); see `jarvis %s --help`: %w",
			fs.Name(), fs.Arg(0), fs.Name(), errUsage)
	}
	return nil
}

// parseWithFolders is parse for a command that also takes vault folders
// after its flags, each as one --vault: a Claude Desktop bundle (.mcpb)
// can pass the folders its user chose only as arguments of their own.
func (c *common) parseWithFolders(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c.vaults = append(c.vaults, fs.Args()...)
	return nil
}

// parseFlags runs fs.Parse, printing the help only when it was asked for:
// the flag package would print it after any error too, burying the one
// line that says what was wrong.
func parseFlags(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = help
	switch {
	case errors.Is(err, flag.ErrHelp):
		help()
		return errHelp
	case err != nil:
		return fmt.Errorf("%s; see `jarvis %s --help`: %w", flagProblem(fs, err), fs.Name(), errUsage)
	}
	return nil
}

// unknownFlag is the flag package's error for a flag fs does not define.
var unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)

// flagProblem words the flag package's error err in plain words: an
// unknown flag with the flag of fs it most likely meant (words.Nearest),
// a number flag given something else, any other with its flag written
// --flag.
func flagProblem(fs *flag.FlagSet, err error) string {
	if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := words.Nearest(m[1], names, 2); near != "" {
			return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", m[1], near)
		}
		return "unknown flag --" + m[1]
	}
	if m := notANumber.FindStringSubmatch(err.Error()); m != nil {
		if f := fs.Lookup(m[2]); f != nil {
			switch valueName(f) {
			case "NUMBER":
				return fmt.Sprintf("--%s takes a number (got %s)", m[2], m[1])
			case "DURATION":
				return fmt.Sprintf("--%s takes a duration such as 30s or 5m (got %s)", m[2], m[1])
			}
		}
		return fmt.Sprintf("--%s takes a whole number (got %s)", m[2], m[1])
	}
	if m := needsValue.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := notABool.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("--%s takes true or false (got %s)", m[2], m[1])
	}
	return dashFlags(err.Error())
}

// needsValue and notABool are the flag package's errors for a flag
// given last without its value, and a switch given something other than
// true or false.
var (
	needsValue = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
	notABool   = regexp.MustCompile(`^invalid boolean value (".*") for -+([\w-]+): parse error$`)
)

// flagInError finds the flag name in the flag package's error messages
// ("flag provided but not defined: -x", "invalid value \"a\" for flag -n:
// ...", "flag needs an argument: -x", "invalid boolean value ... for -x").
var flagInError = regexp.MustCompile(`((?:defined|argument): |for (?:flag )?)-([A-Za-z][\w-]+)`)

// notANumber is the flag package's error for a number flag given
// something else: its value and the flag's name.
var notANumber = regexp.MustCompile(`^invalid value (".*") for flag -([A-Za-z][\w-]+): parse error$`)

// dashFlags writes the flag named in a flag package error with two dashes,
// as help shows it.
func dashFlags(msg string) string {
	return flagInError.ReplaceAllString(msg, "$1--$2")
}

func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// sayWhenWaiting tells the user, on stderr, when the command pauses for
// another jarvis process writing to the same database, such as an MCP
// server indexing at its start. The progress line, if one is drawn, is
// erased first so that the message starts a line of its own. also is
// more for that line, such as how not to wait.
func sayWhenWaiting(e *env, db *store.DB, progress *progressView, also ...string) {
	db.OnWait = func() {
		progress.Clear()
		fmt.Fprintf(e.stderr, "jarvis: %s\n", strings.Join(append([]string{waitingLine(db.Path)}, also...), "; "))
	}
}

// waitingLine says that a writer waits for another jarvis writing to the
// database at path.
func waitingLine(path string) string {
	return fmt.Sprintf("another jarvis process is writing to %s; waiting for it to finish", path)
}
